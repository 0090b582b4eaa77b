/**
 * The compression hint a client may give in the `compression` query parameter, the form field
 * `compression` or the `Content-Encoding` header (docs/compatibility.md#request-decoding).
 */

export type CompressionHint = 'gzip' | 'lz64' | 'base64' | 'unsupported';

/**
 * Parses a hint case-insensitively. Unknown, empty or absent values are `'unsupported'`,
 * which means "no hint", never an error.
 */
export function parseCompressionHint(value: string | null | undefined): CompressionHint {
  if (value === null || value === undefined || value === '') return 'unsupported';
  switch (value.trim().toLowerCase()) {
    case 'gzip':
    case 'gzip-js':
      return 'gzip';
    case 'lz64':
    case 'lz-string':
      return 'lz64';
    case 'base64':
    case 'b64':
      return 'base64';
    default:
      return 'unsupported';
  }
}

/**
 * The `compression` parameter of a raw query string (without the leading `?`), for a caller that
 * reads nothing else of it: the `/flags` body decoder, which never reads a query's `data=`.
 */
export function queryCompressionHint(query: string): CompressionHint {
  return query.length === 0 ? 'unsupported' : parseCompressionHint(new URLSearchParams(query).get('compression'));
}

/** Base64 helpers for the capture decoder (capture-rs `utils.rs` `is_likely_base64`, `decode_base64`). */

/** capture-rs only looks at this many leading bytes when sniffing a payload's encoding. */
export const SNIFF_BYTES = 128;

function isBase64Char(c: number, loose: boolean): boolean {
  return (
    (c >= 65 && c <= 90) || // A-Z
    (c >= 97 && c <= 122) || // a-z
    (c >= 48 && c <= 57) || // 0-9
    c === 43 || // +
    c === 47 || // /
    c === 61 || // =
    (loose && c === 32) // space: a urldecoded '+'
  );
}

/**
 * "Looks like base64": non-empty, a multiple of 4 long, and its first 128 characters are all in
 * `[A-Za-z0-9+/=]` (plus space when `loose`, for form values where urldecoding turned `+` into space).
 */
export function looksLikeBase64(payload: Uint8Array | string, loose: boolean): boolean {
  const n = payload.length;
  if (n === 0 || n % 4 !== 0) return false;
  const end = Math.min(n, SNIFF_BYTES);
  if (typeof payload === 'string') {
    for (let i = 0; i < end; i++) if (!isBase64Char(payload.charCodeAt(i), loose)) return false;
  } else {
    for (let i = 0; i < end; i++) if (!isBase64Char(payload[i] as number, loose)) return false;
  }
  return true;
}

/**
 * Strict standard-alphabet base64 with padding, as Rust's `STANDARD` engine decodes it: any
 * character outside the alphabet, misplaced padding or non-zero trailing bits fails. Node's own
 * decoder skips what it does not understand, so the result is checked by re-encoding it.
 * Returns `undefined` when the text is not canonical base64.
 */
export function decodeBase64Strict(text: string): Buffer | undefined {
  if (text.length === 0 || text.length % 4 !== 0) return undefined;
  const out = Buffer.from(text, 'base64');
  return out.toString('base64') === text ? out : undefined;
}

/** `decodeBase64Strict` over raw bytes (each byte one character). */
export function decodeBase64StrictBytes(bytes: Uint8Array): Buffer | undefined {
  if (bytes.length === 0 || bytes.length % 4 !== 0) return undefined;
  return decodeBase64Strict(asBuffer(bytes).toString('latin1'));
}

/** A Buffer view over the same memory (no copy). */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Spec §2.2 end to end: from an HTTP request to the JSON text of its payload. Pure, no I/O. */

import { parseCaptureQuery, type CaptureQuery } from './capture-query.js';
import { decompressPayload } from './decompress-payload.js';
import { extractPayloadBytes } from './extract-payload.js';
import type { CaptureRequest } from './types.js';

/**
 * Returns the payload text, or throws a `HedgerowError`: `HR_EMPTY_PAYLOAD`,
 * `HR_DECODE_FAILED` (400) or `HR_DECOMPRESSED_TOO_LARGE` (413). Pass `query` when the caller
 * already parsed `req.query`.
 */
export function decodePayload(
  req: CaptureRequest,
  maxDecompressedBytes: number,
  query: CaptureQuery = parseCaptureQuery(req.query),
): string {
  return decompressPayload(extractPayloadBytes(req, query), maxDecompressedBytes, req.path);
}

/**
 * Request decoding end to end (docs/compatibility.md#request-decoding): from an HTTP request to the
 * JSON text of its payload. Pure, no I/O.
 */

import { parseCaptureQuery, type CaptureQuery } from './capture-query.js';
import { decompressPayload } from '../wire/decompress-payload.js';
import { extractPayloadBytes } from '../wire/extract-payload.js';
import type { CaptureRequest } from './types.js';

export interface DecodedPayload {
  /** The payload's JSON text. */
  text: string;
  /** A form body's `api_key` (else `token`) field, for requests whose JSON carries no key. */
  formToken: string | undefined;
}

/**
 * Returns the payload text, or throws a `HedgerowError`: `HR_EMPTY_PAYLOAD` or an undecodable
 * payload (400, `isUndecodable`), or one over the decoded-size budget (413,
 * `isOverDecodedLimit`). Pass `query` when the caller already parsed `req.query`.
 */
export function decodePayload(
  req: CaptureRequest,
  maxDecompressedBytes: number,
  query: CaptureQuery = parseCaptureQuery(req.query),
): DecodedPayload {
  const extracted = extractPayloadBytes(req, query);
  return { text: decompressPayload(extracted, maxDecompressedBytes), formToken: extracted.formToken };
}

/**
 * Request framing Hedgerow refuses after an HTTP parser has let it through, and the answers for
 * framing faults: both backends answer these with PostHog's error body and close the connection,
 * since what follows on it can no longer be told apart from the body.
 */

import { catalogueError, HedgerowError, type FixedCode } from '../errors.js';
import { HTTP_REQUEST_TIMEOUT_MS } from '../limits.js';
import { parseContentLength } from './backend-common.js';
import { errorResponse } from './respond.js';
import type { HttpResponse } from './types.js';

/** The answer for a framing fault: a fixed catalogue code, or a filled-in template. */
export function framingAnswer(fault: FixedCode | HedgerowError): HttpResponse {
  return errorResponse(typeof fault === 'string' ? new HedgerowError(fault) : fault);
}

/**
 * Why the request's framing headers are refused, or undefined when they are fine. `contentLength`
 * and `transferEncoding` are the header values as received, repeated headers joined with ", ".
 *
 * - A Transfer-Encoding other than exactly `chunked` is refused with 501 (RFC 9112 §6.1: a coding
 *   the server does not understand); uWS reads any Transfer-Encoding as chunked and node:http
 *   passes `gzip, chunked` through with the gzip coding still on the body.
 * - Content-Length values that differ (RFC 9110 §8.6: the same value repeated is one length) or
 *   that are not a length are refused with 400; uWS frames the body by the first of them.
 */
export function framingFault(contentLength: string, transferEncoding: string): HttpResponse | undefined {
  if (transferEncoding !== '' && transferEncoding.trim().toLowerCase() !== 'chunked') {
    return framingAnswer(catalogueError('HR_TRANSFER_ENCODING_NOT_CHUNKED', { value: printable(transferEncoding) }));
  }
  if (contentLength !== '' && parseContentLength(contentLength) === undefined) {
    const lengths = contentLength.split(',').map((v) => v.trim());
    return lengths.length > 1 && lengths.every((v) => /^\d+$/.test(v))
      ? framingAnswer(catalogueError('HR_CONFLICTING_CONTENT_LENGTH', { values: printable(contentLength) }))
      : framingAnswer(catalogueError('HR_MALFORMED_CONTENT_LENGTH', { value: printable(contentLength) }));
  }
  return undefined;
}

/** A header value as shown in a detail: at most 64 characters. */
function printable(value: string): string {
  return value.length > 64 ? `${value.slice(0, 61)}...` : value;
}

/** The 408 for a request whose body stalled for `idleMs`, or took longer in all than the fixed limit. */
export function requestTimeout(reason: 'idle' | 'total', idleMs: number): HttpResponse {
  return framingAnswer(
    reason === 'idle'
      ? catalogueError('HR_REQUEST_BODY_IDLE', { idle_ms: idleMs })
      : catalogueError('HR_REQUEST_BODY_TIMEOUT', { seconds: HTTP_REQUEST_TIMEOUT_MS / 1000 }),
  );
}

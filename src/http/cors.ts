/**
 * CORS as PostHog's capture sends it: the requesting origin is mirrored with credentials allowed,
 * the requested headers are mirrored, and GET, POST and OPTIONS are allowed. Browsers call
 * capture and flags from other origins, and drop events silently without these headers.
 */
import type { HttpRequest } from './types.js';

/**
 * What a header value may hold on the wire (Node's `validateHeaderValue`): a request header that
 * cannot be sent back is not mirrored. uWS hands header bytes over as UTF-8, so an `Origin` with a
 * `€` (no browser sends one) made the answer fail after the capture's commit: a 500, and the
 * SDK's retry stored the events twice.
 */
const SENDABLE = /^[\t\x20-\x7e\x80-\xff]*$/;

export function corsHeaders(req: Pick<HttpRequest, 'header' | 'method'>): Record<string, string> {
  const origin = req.header('origin');
  if (origin === '' || !SENDABLE.test(origin)) return {};
  const headers: Record<string, string> = {
    'access-control-allow-origin': origin,
    'access-control-allow-credentials': 'true',
    vary: 'origin, access-control-request-headers',
  };
  if (req.method === 'OPTIONS') {
    headers['access-control-allow-methods'] = 'GET, POST, OPTIONS';
    const requested = req.header('access-control-request-headers');
    if (requested !== '' && SENDABLE.test(requested)) headers['access-control-allow-headers'] = requested;
    headers['access-control-max-age'] = '86400';
  }
  return headers;
}

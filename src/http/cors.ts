/**
 * CORS as PostHog's capture sends it: the requesting origin is mirrored with credentials allowed,
 * the requested headers are mirrored, and GET, POST and OPTIONS are allowed. Browsers call
 * capture and flags from other origins, and drop events silently without these headers.
 */
import { catalogueError, HedgerowError } from '../errors.js';
import { errorResponse } from './respond.js';
import type { HttpRequest, HttpResponse } from './types.js';

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

/**
 * A public GET resource that browsers read from other origins (remote config, posthog-js's
 * bundles): the preflight answered 204, GET and HEAD answered by `respond`, any other method 405,
 * and the CORS headers on every answer, refusals included. A `vary` of the answer's own is kept
 * beside CORS's.
 */
export function withCors(req: HttpRequest, respond: () => HttpResponse | Promise<HttpResponse>): HttpResponse | Promise<HttpResponse> {
  const cors = corsHeaders(req);
  if (req.method === 'OPTIONS') return { status: 204, headers: cors };
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return errorResponse(catalogueError('HR_METHOD_NOT_ALLOWED', { method: req.method }), cors);
  }
  const withHeaders = (res: HttpResponse): HttpResponse => {
    const headers = { ...res.headers, ...cors };
    const own = res.headers?.vary;
    if (own !== undefined && cors.vary !== undefined) headers.vary = `${cors.vary}, ${own}`;
    return { ...res, headers };
  };
  const refused = (err: unknown): HttpResponse => {
    if (err instanceof HedgerowError) return errorResponse(err, cors);
    throw err;
  };
  let res: HttpResponse | Promise<HttpResponse>;
  try {
    res = respond();
  } catch (err) {
    return refused(err);
  }
  return res instanceof Promise ? res.then(withHeaders, refused) : withHeaders(res);
}

/**
 * CORS as PostHog's capture sends it: the requesting origin is mirrored with credentials allowed,
 * the requested headers are mirrored, and GET, POST and OPTIONS are allowed. Browsers call
 * capture and flags from other origins, and drop events silently without these headers.
 */
import type { HttpRequest } from './types.js';

export function corsHeaders(req: Pick<HttpRequest, 'header' | 'method'>): Record<string, string> {
  const origin = req.header('origin');
  if (origin === '') return {};
  const headers: Record<string, string> = {
    'access-control-allow-origin': origin,
    'access-control-allow-credentials': 'true',
    vary: 'origin, access-control-request-headers',
  };
  if (req.method === 'OPTIONS') {
    headers['access-control-allow-methods'] = 'GET, POST, OPTIONS';
    const requested = req.header('access-control-request-headers');
    if (requested !== '') headers['access-control-allow-headers'] = requested;
    headers['access-control-max-age'] = '86400';
  }
  return headers;
}

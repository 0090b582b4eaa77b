/** Response builders shared by the routes: JSON bodies and the PostHog error body. */
import { HedgerowError, isHedgerowError } from '../errors.js';
import type { HttpResponse } from './types.js';

export function json(status: number, body: unknown, headers?: Record<string, string>): HttpResponse {
  return {
    status,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  };
}

export function errorResponse(err: HedgerowError, headers?: Record<string, string>): HttpResponse {
  return json(err.status, err.toBody(), headers);
}

/** Maps anything thrown to a response; unknown errors become a 500 and are reported to `onUnknown`. */
export function toErrorResponse(err: unknown, onUnknown: (err: unknown) => void): HttpResponse {
  if (isHedgerowError(err)) return errorResponse(err);
  onUnknown(err);
  return errorResponse(new HedgerowError('HR_INTERNAL'));
}

/**
 * The one error catalogue. Every error a client can see is listed here with a stable
 * Hedgerow code, its HTTP status and the PostHog body fields (`type`, `code`, `attr`).
 * Handlers throw `HedgerowError`s; `toErrorResponse` at the edge turns them into bodies.
 */

export type PostHogErrorType =
  | 'validation_error'
  | 'authentication_error'
  | 'invalid_request'
  | 'not_found'
  | 'server_error'
  | 'throttled_error';

interface CatalogueEntry {
  readonly status: number;
  readonly type: PostHogErrorType;
  /** PostHog's `code` field. */
  readonly code: string;
  readonly attr: string | null;
  readonly message: string;
}

function entry(
  status: number,
  type: PostHogErrorType,
  code: string,
  message: string,
  attr: string | null = null,
): CatalogueEntry {
  return Object.freeze({ status, type, code, attr, message });
}

export const ERRORS = Object.freeze({
  // --- request decoding (capture) ---
  HR_EMPTY_PAYLOAD: entry(400, 'validation_error', 'invalid_payload', 'request missing data payload'),
  HR_DECODE_FAILED: entry(400, 'validation_error', 'invalid_payload', 'failed to decode request'),
  HR_PARSE_FAILED: entry(400, 'validation_error', 'invalid_payload', 'failed to parse request'),
  HR_NO_EVENT_NAME_ATTR: entry(
    400,
    'validation_error',
    'invalid_payload',
    'non-engage request missing event name attribute',
  ),
  HR_EMPTY_BATCH: entry(400, 'validation_error', 'invalid_payload', 'request holds no event'),
  HR_INVALID_EVENT: entry(400, 'validation_error', 'invalid_payload', 'Invalid payload'),
  HR_INVALID_UUID: entry(400, 'validation_error', 'invalid_payload', 'Event field "uuid" is not a valid UUID!', 'uuid'),
  HR_BODY_TOO_LARGE: entry(413, 'validation_error', 'payload_too_large', 'request body exceeds the size limit'),
  HR_DECOMPRESSED_TOO_LARGE: entry(
    413,
    'validation_error',
    'payload_too_large',
    'decompressed payload exceeds the size limit',
  ),
  HR_EVENT_TOO_LARGE: entry(413, 'validation_error', 'event_too_large', 'maximum event size exceeded'),

  // --- project key (capture, flags) ---
  HR_NO_PROJECT: entry(
    400,
    'validation_error',
    'invalid_project',
    'Project API key invalid. You can find your project API key in PostHog project settings.',
    'project_id',
  ),
  HR_INVALID_API_KEY: entry(
    401,
    'authentication_error',
    'invalid_api_key',
    'Project API key invalid. You can find your project API key in PostHog project settings.',
  ),
  HR_INCONSISTENT_API_KEYS: entry(
    401,
    'authentication_error',
    'invalid_api_key',
    'batch submitted with inconsistent api_key values',
  ),
  HR_INVALID_PERSONAL_API_KEY: entry(
    401,
    'authentication_error',
    'invalid_personal_api_key',
    'Personal API key invalid.',
  ),

  // --- management / read API ---
  HR_NOT_AUTHENTICATED: entry(
    401,
    'authentication_error',
    'not_authenticated',
    'Authentication credentials were not provided.',
  ),
  HR_AUTHENTICATION_FAILED: entry(
    401,
    'authentication_error',
    'authentication_failed',
    'Personal API key found in request is invalid.',
  ),
  HR_PROJECT_NOT_FOUND: entry(404, 'invalid_request', 'not_found', 'Project not found.'),
  HR_PROJECT_ACCESS_DENIED: entry(
    403,
    'authentication_error',
    'permission_denied',
    "You don't have access to the project.",
  ),
  HR_PERMISSION_DENIED: entry(
    403,
    'authentication_error',
    'permission_denied',
    'You do not have permission to perform this action.',
  ),
  HR_INVALID_QUERY: entry(400, 'validation_error', 'invalid_input', 'Invalid query parameter'),

  // --- routing ---
  HR_NOT_FOUND: entry(404, 'invalid_request', 'not_found', 'Not found.'),
  HR_METHOD_NOT_ALLOWED: entry(405, 'invalid_request', 'method_not_allowed', 'Method not allowed.'),

  // --- server ---
  HR_NOT_READY: entry(503, 'server_error', 'not_ready', 'Hedgerow is starting or shutting down; retry shortly.'),
  HR_STORE_FAILED: entry(503, 'server_error', 'server_error', 'Unable to store event. Please try again.'),
  HR_INTERNAL: entry(500, 'server_error', 'server_error', 'Internal server error.'),
});

export type ErrorCode = keyof typeof ERRORS;

/** The JSON body PostHog sends for an error. */
export interface PostHogErrorBody {
  type: PostHogErrorType;
  code: string;
  detail: string;
  attr: string | null;
}

export class HedgerowError extends Error {
  readonly hedgerowCode: ErrorCode;
  readonly status: number;
  readonly attr: string | null;

  /** `detail` replaces the catalogue message; `attr` overrides the catalogue attr. */
  constructor(code: ErrorCode, detail?: string, attr?: string | null) {
    const e = ERRORS[code];
    super(detail ?? e.message);
    this.name = 'HedgerowError';
    this.hedgerowCode = code;
    this.status = e.status;
    this.attr = attr === undefined ? e.attr : attr;
  }

  toBody(): PostHogErrorBody {
    const e = ERRORS[this.hedgerowCode];
    return { type: e.type, code: e.code, detail: this.message, attr: this.attr };
  }
}

export function isHedgerowError(err: unknown): err is HedgerowError {
  return err instanceof HedgerowError;
}

/**
 * A plain-data form of an error, used to carry catalogued errors across the worker boundary
 * (structured clone drops class identity).
 */
export interface SerializedError {
  hedgerowCode: ErrorCode;
  detail: string;
  attr: string | null;
}

export function serializeError(err: HedgerowError): SerializedError {
  return { hedgerowCode: err.hedgerowCode, detail: err.message, attr: err.attr };
}

export function deserializeError(s: SerializedError): HedgerowError {
  return new HedgerowError(s.hedgerowCode, s.detail, s.attr);
}

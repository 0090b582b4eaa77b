/**
 * `/flags` and `/decide` (spec flags.md §6): POST is evaluated in the worker pool (the uWS
 * front-end threads answer SDK-sized POSTs themselves, with the same answers: local-routes.ts);
 * GET answers the minimal flag-less response the Rust service gives, HEAD an empty 200, OPTIONS
 * 204 with `allow`. Browsers call these from other origins, so every answer carries the CORS headers.
 * A POST whose evaluation does not finish in time gets a flag-less 200 with the error flag.
 */
import { randomUUID } from 'node:crypto';
import { deserializeError, HedgerowError } from '../errors.js';
import type { FlagsHttpRequest, FlagsOutcome } from './run-flags-request.js';
import { FlagsResponseEncoder } from './flags-response.js';
import { parseFlagsQuery } from './flags-query.js';
import { remoteConfigFields } from '../flags/remote-config.js';
import type { FlagsPool } from '../pool/flags-pool.js';
import { corsHeaders } from '../http/cors.js';
import { errorResponse } from '../http/respond.js';
import type { Router } from '../http/router.js';
import type { HttpRequest, HttpResponse } from '../http/types.js';

export interface FlagsRoutesDeps {
  /** Undefined until the pool is ready: 503 meanwhile (SDKs retry). */
  pool: () => FlagsPool | undefined;
  /** Hears of every 200 whose body says errorsWhileComputingFlags (metrics). */
  onErrorsAnswered?: (endpoint: 'flags' | 'decide') => void;
}

const ALLOW = 'GET, POST, OPTIONS, HEAD';
const EMPTY_ENCODER = new FlagsResponseEncoder(() => undefined);
const FLAGLESS_CONFIG = remoteConfigFields({ apiToken: '', hasFeatureFlags: true });

export function addFlagsRoutes(router: Router, deps: FlagsRoutesDeps): void {
  router.add('*', '/flags', 'flags', (req) => handleFlags(req, 'flags', deps));
  router.add('*', '/decide', 'decide', (req) => handleFlags(req, 'decide', deps));
}

async function handleFlags(req: HttpRequest, endpoint: 'flags' | 'decide', deps: FlagsRoutesDeps): Promise<HttpResponse> {
  const cors = corsHeaders(req);
  switch (req.method) {
    case 'POST':
      break;
    case 'GET':
      return flaglessResponse(req, endpoint, cors, false);
    case 'HEAD':
      return { status: 200, headers: { 'content-type': 'application/json', ...cors } };
    case 'OPTIONS':
      return { status: 204, headers: { allow: ALLOW, ...cors } };
    default:
      return errorResponse(new HedgerowError('HR_METHOD_NOT_ALLOWED', `Method "${req.method}" not allowed.`), {
        allow: ALLOW,
        ...cors,
      });
  }
  const pool = deps.pool();
  if (!pool) return errorResponse(new HedgerowError('HR_NOT_READY'), cors);
  const outcome = await pool.submit(toFlagsRequest(req, endpoint));
  if (outcomeReportsErrors(outcome)) deps.onErrorsAnswered?.(endpoint);
  return flagsOutcomeResponse(req, endpoint, outcome);
}

/** Whether the answer to this outcome is a 200 that says errorsWhileComputingFlags (a timeout's flag-less one does). */
export function outcomeReportsErrors(outcome: FlagsOutcome): boolean {
  return outcome.ok === 'timeout' || (outcome.ok === true && outcome.errors);
}

/** The endpoint a path names (either form of the trailing slash), if any. */
export function flagsEndpointOf(path: string): 'flags' | 'decide' | undefined {
  switch (path) {
    case '/flags':
    case '/flags/':
      return 'flags';
    case '/decide':
    case '/decide/':
      return 'decide';
    default:
      return undefined;
  }
}

/** The answer to a POST from its evaluation's outcome (here, or in a front-end thread). */
export function flagsOutcomeResponse(req: HttpRequest, endpoint: 'flags' | 'decide', outcome: FlagsOutcome): HttpResponse {
  const cors = corsHeaders(req);
  if (outcome.ok === 'timeout') return flaglessResponse(req, endpoint, cors, true);
  if (!outcome.ok) return errorResponse(deserializeError(outcome.error), cors);
  return { status: 200, headers: { 'content-type': 'application/json', ...cors }, body: outcome.body };
}

/**
 * No flags, in the shape the version asks for: the answer to GET (Rust
 * `get_minimal_flags_response`), and to a POST whose evaluation timed out (`errors`: SDKs keep
 * the values they have). Config fields say flags exist, so clients do not turn flags off.
 */
function flaglessResponse(
  req: HttpRequest,
  endpoint: 'flags' | 'decide',
  cors: Record<string, string>,
  errors: boolean,
): HttpResponse {
  const query = parseFlagsQuery(req.query, endpoint);
  const body = EMPTY_ENCODER.encode({
    format: query.format,
    results: new Map(),
    errorsWhileComputingFlags: errors,
    requestId: randomUUID(),
    evaluatedAt: Date.now(),
    ...(errors && !query.config ? {} : { config: FLAGLESS_CONFIG }),
  });
  return { status: 200, headers: { 'content-type': 'application/json', ...cors }, body };
}

/** Headers only browsers send: a request with one comes from a client runtime (flag-visibility.ts). */
const BROWSER_HEADERS = ['origin', 'referer', 'sec-fetch-mode', 'sec-fetch-site'];

export function toFlagsRequest(req: HttpRequest, endpoint: 'flags' | 'decide', deadline?: number): FlagsHttpRequest {
  const out: FlagsHttpRequest = {
    endpoint,
    query: req.query,
    contentType: req.header('content-type'),
    contentEncoding: req.header('content-encoding'),
    body: req.body,
    userAgent: req.header('user-agent'),
    browserHeaders: BROWSER_HEADERS.some((name) => req.header(name) !== ''),
  };
  if (deadline !== undefined) out.deadline = deadline;
  return out;
}

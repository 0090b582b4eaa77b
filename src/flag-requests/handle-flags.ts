/**
 * `/flags` and `/decide` (docs/compatibility.md#flags-requests): POST is evaluated in the worker
 * pool (the uWS front-end threads answer SDK-sized POSTs themselves, with this same handler:
 * flags-in-thread.ts); GET answers the minimal flag-less response the Rust service gives, HEAD an
 * empty 200, OPTIONS 204 with `allow`. Browsers call these from other origins, so every answer
 * carries the CORS headers. A POST whose evaluation does not finish in time gets a flag-less 200
 * with the error flag.
 */
import { randomUUID } from 'node:crypto';
import { catalogueError, deserializeError, HedgerowError } from '../errors.js';
import type { FlagsHttpRequest, FlagsOutcome } from './run-flags-request.js';
import { FlagsResponseEncoder } from './flags-response.js';
import { parseFlagsQuery } from './flags-query.js';
import { remoteConfigFields } from '../flags/remote-config.js';
import { corsHeaders } from '../http/cors.js';
import { errorResponse } from '../http/respond.js';
import type { HttpRequest, HttpResponse } from '../http/types.js';
import type { FlagsSide } from './flags-side.js';

const ALLOW = 'GET, POST, OPTIONS, HEAD';
const EMPTY_ENCODER = new FlagsResponseEncoder(() => undefined);
const FLAGLESS_CONFIG = remoteConfigFields({ apiToken: '', hasFeatureFlags: true });

/**
 * The answer to one `/flags` or `/decide` request, or undefined when `side` hands it on. It comes
 * in the same call when the side evaluates in the same call (a front-end thread: no promise).
 */
export function handleFlags(
  req: HttpRequest,
  endpoint: 'flags' | 'decide',
  side: FlagsSide & { readonly handsOn: false },
): HttpResponse | Promise<HttpResponse>;
export function handleFlags(
  req: HttpRequest,
  endpoint: 'flags' | 'decide',
  side: FlagsSide,
): HttpResponse | Promise<HttpResponse> | undefined;
export function handleFlags(
  req: HttpRequest,
  endpoint: 'flags' | 'decide',
  side: FlagsSide,
): HttpResponse | Promise<HttpResponse> | undefined {
  if (req.method !== 'POST') return side.handsOn ? undefined : otherMethodResponse(req, endpoint);
  const outcome = side.evaluate(req, endpoint);
  if (outcome === undefined) return side.handsOn ? undefined : errorResponse(new HedgerowError('HR_NOT_READY'), corsHeaders(req));
  if (outcome instanceof Promise) return outcome.then((o) => answerOutcome(req, endpoint, o, side));
  return answerOutcome(req, endpoint, outcome, side);
}

function otherMethodResponse(req: HttpRequest, endpoint: 'flags' | 'decide'): HttpResponse {
  const cors = corsHeaders(req);
  switch (req.method) {
    case 'GET':
      return flaglessResponse(req, endpoint, cors, false);
    case 'HEAD':
      return { status: 200, headers: { 'content-type': 'application/json', ...cors } };
    case 'OPTIONS':
      return { status: 204, headers: { allow: ALLOW, ...cors } };
    default:
      return errorResponse(catalogueError('HR_METHOD_NOT_ALLOWED', { method: req.method }), {
        allow: ALLOW,
        ...cors,
      });
  }
}

function answerOutcome(req: HttpRequest, endpoint: 'flags' | 'decide', outcome: FlagsOutcome, side: FlagsSide): HttpResponse {
  if (outcomeReportsErrors(outcome)) side.onErrorsAnswered?.(endpoint);
  return flagsOutcomeResponse(req, endpoint, outcome);
}

/** Whether the answer to this outcome is a 200 that says errorsWhileComputingFlags (a timeout's flag-less one does). */
function outcomeReportsErrors(outcome: FlagsOutcome): boolean {
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
function flagsOutcomeResponse(req: HttpRequest, endpoint: 'flags' | 'decide', outcome: FlagsOutcome): HttpResponse {
  const cors = corsHeaders(req);
  if (outcome.ok === 'timeout') return flaglessResponse(req, endpoint, cors, true);
  if (!outcome.ok) return errorResponse(deserializeError(outcome.error), cors);
  return { status: 200, headers: { 'content-type': 'application/json', ...cors }, body: outcome.body, projectId: outcome.projectId };
}

/**
 * No flags, in the shape the version asks for: the answer to GET (Rust
 * `get_minimal_flags_response`), and to a POST whose evaluation timed out (`errors`: SDKs keep
 * the values they have). Config fields say flags exist, so clients do not turn flags off.
 */
function flaglessResponse(req: HttpRequest, endpoint: 'flags' | 'decide', cors: Record<string, string>, errors: boolean): HttpResponse {
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

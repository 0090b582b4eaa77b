/**
 * The routes an HTTP front-end thread answers itself (workers/http-thread.ts), from its own
 * handle on the store and with the same answers as the daemon's routes: `POST /flags` and
 * `POST /decide` of SDK size (flags-routes.ts), and the flag definitions that locally evaluating
 * SDKs poll (flag-definitions-routes.ts), whose 304 answers are most of their traffic. Every other
 * request goes to the daemon's thread.
 */
import { isHedgerowError, HedgerowError } from '../errors.js';
import { DefinitionsCache } from '../evaluation/definitions-cache.js';
import { flagsRequestDeps } from '../evaluation/flags-deps.js';
import { runFlagsRequest } from '../evaluation/run-flags-request.js';
import { AuthStore } from '../store/auth-store.js';
import { CohortStore } from '../store/cohort-store.js';
import { FlagReader } from '../store/flag-store.js';
import { GroupReader } from '../store/group-store.js';
import { openStore } from '../store/open-store.js';
import { errorResponse } from './respond.js';
import { Router } from './router.js';
import { addFlagDefinitionsRoutes } from './routes/flag-definitions-routes.js';
import { flagsEndpointOf, flagsOutcomeResponse, outcomeReportsErrors, toFlagsRequest } from './routes/flags-routes.js';
import type { LocalRoutesSetup } from './thread-messages.js';
import type { HttpRequest, HttpResponse } from './types.js';

/**
 * Larger bodies go to the daemon's worker pool, with its time limit (HEDGEROW_FLAGS_TIMEOUT_MS):
 * decoding one would hold up every other connection of this thread. SDK requests are far smaller.
 */
const LOCAL_FLAGS_MAX_BODY_BYTES = 64 * 1024;

/**
 * Decoded, a body may be no larger here: one that decodes to more (a small gzip or lz64 body can
 * hold megabytes) goes to the worker pool, which applies the daemon's limit. The decoders measure
 * before they build, so finding that out costs this thread nothing.
 */
const LOCAL_FLAGS_MAX_DECODED_BYTES = LOCAL_FLAGS_MAX_BODY_BYTES;

/**
 * Each `/flags` answer is written into this buffer (flags-response.ts `encodeInto`) and goes to
 * the socket before the next request is evaluated: the thread answers a local `/flags` request
 * synchronously, from uWS's data callback to `end()`, which copies what it does not send at
 * once. A larger answer is made as text.
 */
const ANSWER_BUFFER = Buffer.allocUnsafe(256 * 1024);

interface LocalAnswer {
  /** The route's metrics name. */
  route: string;
  response: HttpResponse | Promise<HttpResponse>;
  /** A `/flags` or `/decide` 200 that says errorsWhileComputingFlags (for the daemon's metrics). */
  reportsErrors?: true;
}

export interface LocalRoutes {
  /** The answer, or undefined when the daemon's thread must answer. */
  answer(req: HttpRequest): LocalAnswer | undefined;
  close(): Promise<void>;
}

/** `onBug` hears of errors that are not PostHog-shaped refusals (their requests get a 500). */
export function openLocalRoutes(setup: LocalRoutesSetup, onBug: (err: unknown) => void): LocalRoutes {
  const dbs = openStore({ dataDir: setup.dataDir, sync: setup.sync });
  const auth = new AuthStore(dbs);
  const decodedCap = Math.min(setup.maxDecompressedBytes, LOCAL_FLAGS_MAX_DECODED_BYTES);
  const deps = flagsRequestDeps(dbs, auth, decodedCap);
  const definitions = new Router();
  addFlagDefinitionsRoutes(definitions, {
    auth,
    definitions: new DefinitionsCache(new FlagReader(dbs), new CohortStore(dbs), new GroupReader(dbs)),
  });

  /** Refusals (authentication, permissions) answer as the daemon's routes do; anything else is a bug. */
  function refusal(err: unknown): HttpResponse {
    if (isHedgerowError(err)) return errorResponse(err);
    onBug(err);
    return errorResponse(new HedgerowError('HR_INTERNAL'));
  }

  function answerDefinitions(req: HttpRequest): LocalAnswer | undefined {
    let matched;
    try {
      matched = definitions.match(req);
    } catch {
      return undefined; // not a definitions path (or not GET there): the daemon's router decides
    }
    let response: HttpResponse | Promise<HttpResponse>;
    try {
      response = matched.run();
    } catch (err) {
      response = refusal(err);
    }
    return { route: matched.name, response: response instanceof Promise ? response.catch(refusal) : response };
  }

  return {
    answer(req) {
      const endpoint = flagsEndpointOf(req.path);
      if (endpoint === undefined) return req.method === 'GET' ? answerDefinitions(req) : undefined;
      if (req.method !== 'POST' || req.body.byteLength > LOCAL_FLAGS_MAX_BODY_BYTES) return undefined;
      const now = new Date();
      const request = toFlagsRequest(req, endpoint, now.getTime() + setup.flagsTimeoutMs);
      const outcome = runFlagsRequest(request, deps, now, ANSWER_BUFFER);
      if (!outcome.ok && outcome.error.hedgerowCode === 'HR_DECOMPRESSED_TOO_LARGE' && decodedCap < setup.maxDecompressedBytes) {
        return undefined; // the pool decodes it, with the daemon's own limit
      }
      const response = flagsOutcomeResponse(req, endpoint, outcome);
      return outcomeReportsErrors(outcome) ? { route: endpoint, response, reportsErrors: true } : { route: endpoint, response };
    },
    close: () => dbs.root.close(),
  };
}

/**
 * The routes a uWS front end answers itself (workers/http-thread.ts, main-front-end.ts), from a
 * handle on the store and with the same answers as the daemon's routes: `POST /flags` and
 * `POST /decide` of SDK size (the daemon's handler, src/flag-requests/handle-flags.ts, evaluating
 * here: flags-in-thread.ts), and the flag definitions that locally evaluating SDKs poll
 * (flag-definitions-routes.ts), whose 304 answers are most of their traffic. Every other request
 * goes to the daemon's router.
 */
import type { HashKeyWrite } from '../store/hash-key-override-store.js';
import { isHedgerowError, HedgerowError } from '../errors.js';
import { FlagsInThread } from '../flag-requests/flags-in-thread.js';
import type { FlagsEndpoint } from '../flag-requests/flags-side.js';
import { flagsEndpointOf, handleFlags } from '../flag-requests/handle-flags.js';
import { DefinitionsCache } from '../flags/definitions/definitions-cache.js';
import { AuthStore } from '../store/auth-store.js';
import { CohortStore } from '../store/cohort-store.js';
import { FlagReader } from '../store/flag-store.js';
import { GroupReader } from '../store/group-store.js';
import { openStore, type StoreDatabases } from '../store/open-store.js';
import { errorResponse } from './respond.js';
import { Router } from './router.js';
import { addFlagDefinitionsRoutes } from './routes/flag-definitions-routes.js';
import type { LocalRoutesSetup } from './thread-messages.js';
import type { HttpRequest, HttpResponse } from './types.js';

interface LocalAnswer {
  /** The route's metrics name. */
  route: string;
  response: HttpResponse | Promise<HttpResponse>;
}

export interface LocalRoutes {
  /** The answer, or undefined when the daemon's thread must answer. */
  answer(req: HttpRequest): LocalAnswer | undefined;
  close(): Promise<void>;
}

/**
 * `onBug` hears of errors that are not PostHog-shaped refusals (their requests get a 500);
 * `onFlagErrors` of every `/flags` or `/decide` 200 that says errorsWhileComputingFlags.
 */
export function openLocalRoutes(
  setup: LocalRoutesSetup,
  onBug: (err: unknown) => void,
  onFlagErrors: (endpoint: FlagsEndpoint) => void,
  onHashKeys?: (w: HashKeyWrite) => void,
): LocalRoutes {
  const dbs = openStore({ dataDir: setup.dataDir, sync: setup.sync });
  const routes = localRoutesOn(dbs, setup, onBug, onFlagErrors, onHashKeys);
  return { answer: routes.answer, close: () => dbs.root.close() };
}

/**
 * The same routes on a store handle the caller keeps (and closes): the daemon's thread uses its
 * own, since a second lmdb-js handle in one thread writes past the first one's coordination of
 * its own writes (a hash key's synchronous write would wait on LMDB's lock behind the event log's
 * commit, or deadlock with it).
 */
export function localRoutesOn(
  dbs: StoreDatabases,
  setup: LocalRoutesSetup,
  onBug: (err: unknown) => void,
  onFlagErrors: (endpoint: FlagsEndpoint) => void,
  onHashKeys?: (w: HashKeyWrite) => void,
): LocalRoutes {
  const auth = new AuthStore(dbs);
  const flags = new FlagsInThread(dbs, auth, setup, onFlagErrors, setup.replicateHashKeys ? onHashKeys : undefined);
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
      const response = handleFlags(req, endpoint, flags);
      return response === undefined ? undefined : { route: endpoint, response };
    },
    close: () => Promise.resolve(),
  };
}

/**
 * The routes an HTTP front-end thread answers itself (workers/http-thread.ts): `POST /flags` and
 * `POST /decide` of SDK size, evaluated in the thread from its own handle on the store, with the
 * same answers as the daemon's routes (flags-routes.ts). Every other request goes to the daemon.
 */
import { flagsRequestDeps } from '../evaluation/flags-deps.js';
import { runFlagsRequest } from '../evaluation/run-flags-request.js';
import { AuthStore } from '../store/auth-store.js';
import { openStore } from '../store/open-store.js';
import { flagsEndpointOf, flagsOutcomeResponse, toFlagsRequest } from './routes/flags-routes.js';
import type { LocalRoutesSetup } from './thread-messages.js';
import type { HttpRequest, HttpResponse } from './types.js';

/**
 * Larger bodies go to the daemon's worker pool, with its time limit (HEDGEROW_FLAGS_TIMEOUT_MS):
 * decoding one would hold up every other connection of this thread. SDK requests are far smaller.
 */
export const LOCAL_FLAGS_MAX_BODY_BYTES = 64 * 1024;

export interface LocalRoutes {
  /** The route's metrics name and the answer; undefined when the daemon's thread must answer. */
  answer(req: HttpRequest): { route: string; response: HttpResponse } | undefined;
  close(): Promise<void>;
}

export function openLocalFlags(setup: LocalRoutesSetup): LocalRoutes {
  const dbs = openStore({ dataDir: setup.dataDir, sync: setup.sync });
  const deps = flagsRequestDeps(dbs, new AuthStore(dbs), setup.maxDecompressedBytes);
  return {
    answer(req) {
      if (req.method !== 'POST' || req.body.byteLength > LOCAL_FLAGS_MAX_BODY_BYTES) return undefined;
      const endpoint = flagsEndpointOf(req.path);
      if (endpoint === undefined) return undefined;
      const outcome = runFlagsRequest(toFlagsRequest(req, endpoint), deps, new Date());
      return { route: endpoint, response: flagsOutcomeResponse(req, endpoint, outcome) };
    },
    close: () => dbs.root.close(),
  };
}

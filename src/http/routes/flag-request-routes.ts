/**
 * `/flags` and `/decide` on the daemon's router, every method: the handler and its answers are
 * src/flag-requests/handle-flags.ts, POSTs evaluated in the worker pool (flags-in-pool.ts). The
 * uWS front-end threads answer SDK-sized POSTs with the same handler (src/http/local-routes.ts).
 */
import { FlagsInPool, type FlagsInPoolDeps } from '../../flag-requests/flags-in-pool.js';
import { handleFlags } from '../../flag-requests/handle-flags.js';
import type { Router } from '../router.js';

export function addFlagsRoutes(router: Router, deps: FlagsInPoolDeps): void {
  const flags = new FlagsInPool(deps);
  // Answered through a promise whatever the method, as this route always was.
  router.add('*', '/flags', 'flags', async (req) => handleFlags(req, 'flags', flags));
  router.add('*', '/decide', 'decide', async (req) => handleFlags(req, 'decide', flags));
}

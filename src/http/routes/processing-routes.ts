/**
 * `GET /_persons/caught_up?timeout_ms=N`: waits until the person processor has applied every
 * event committed before the call (at most N ms, default 10 000), so tests and scripts can read
 * persons right after capturing events without sleeping. 200 `{caught_up: true}`, or 503
 * `{caught_up: false}` when the wait timed out. In cluster mode, "committed before the call" is
 * every event the cluster's events stream held.
 */
import type { PersonProcessorThread } from '../../processing/person-processor-thread.js';
import type { EventKey } from '../../store/open-store.js';
import { json } from '../respond.js';
import type { Router } from '../router.js';

export interface ProcessingRoutesDeps {
  processor: () => PersonProcessorThread | undefined;
  /** Key of the newest committed event block. */
  lastEventKey: () => EventKey | undefined;
  /**
   * Drops this thread's LMDB read snapshot (lmdb-js keeps one until a timer tick), so reads after
   * the answer see every commit the processor made, and the target is the newest block.
   */
  freshReads: () => void;
  /**
   * Cluster mode: waits until the node has written every message the events stream held at the
   * call into its own event log (false on timeout).
   */
  streamCaughtUp?: (timeoutMs: number) => Promise<boolean>;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_TIMEOUT_MS = 60_000;

export function addProcessingRoutes(router: Router, deps: ProcessingRoutesDeps): void {
  router.add(['GET'], '/_persons/caught_up', 'persons:caught_up', async (req) => {
    const processor = deps.processor();
    if (!processor) return json(503, { caught_up: false });
    const asked = Number(new URLSearchParams(req.query).get('timeout_ms') ?? DEFAULT_TIMEOUT_MS);
    const timeoutMs = Number.isFinite(asked) && asked >= 0 ? Math.min(asked, MAX_TIMEOUT_MS) : DEFAULT_TIMEOUT_MS;
    const started = Date.now();
    if (deps.streamCaughtUp && !(await deps.streamCaughtUp(timeoutMs))) return json(503, { caught_up: false });
    deps.freshReads();
    const caughtUp = await processor.caughtUp(deps.lastEventKey(), Math.max(0, timeoutMs - (Date.now() - started)));
    deps.freshReads();
    return json(caughtUp ? 200 : 503, { caught_up: caughtUp });
  });
}

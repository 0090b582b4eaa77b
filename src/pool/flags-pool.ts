/**
 * Flag evaluation's side of the worker pool: `/flags` and `/decide` requests that arrive in the
 * same event-loop turn go to a worker as one task (one Piscina round trip for many requests),
 * at most `MAX_REQUESTS_PER_TASK` each; while every slot is busy they wait and the next group
 * is larger. A worker stops evaluating a request at half of `timeoutMs` and answers the flags
 * done by then; a request not answered within `timeoutMs` (still queued, or a slow worker)
 * resolves as a timeout, which the route answers without flags rather than keep the client
 * waiting. Both carry `errorsWhileComputingFlags`.
 */
import type { HashKeyWrite } from '../store/hash-key-override-store.js';
import { catalogueError, serializeError } from '../errors.js';
import type { FlagsHttpRequest, FlagsOutcome } from '../flag-requests/run-flags-request.js';
import type { FlagsTaskResult } from './tasks.js';
import type { WorkerPool } from './worker-pool.js';

/** Evaluating 50 flags costs ~20-50 µs: 32 requests share a round trip without queueing long. */
const MAX_REQUESTS_PER_TASK = 32;

interface Pending {
  req: FlagsHttpRequest;
  resolve: (o: FlagsOutcome) => void;
}

const TIMED_OUT: FlagsOutcome = { ok: 'timeout' };

export class FlagsPool {
  private pending: Pending[] = [];
  private scheduled = false;
  private inFlightTasks = 0;

  constructor(
    private readonly pool: WorkerPool,
    private readonly timeoutMs: number,
    /** Cluster mode: hash keys the workers' requests wrote (WorkerSetup.replicateHashKeys). */
    private readonly onHashKeys?: (writes: HashKeyWrite[]) => void,
  ) {}

  get queueDepth(): number {
    return this.pending.length;
  }

  submit(req: FlagsHttpRequest): Promise<FlagsOutcome> {
    // The worker stops evaluating at half the budget, so its partial answer can come back before
    // the timer answers without any flags (a request still queued then).
    const deadline = Date.now() + this.timeoutMs / 2;
    return new Promise((settle) => {
      let done = false;
      const timer = setTimeout(() => resolve(TIMED_OUT), this.timeoutMs);
      const resolve = (o: FlagsOutcome) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        settle(o);
      };
      this.pending.push({ req: { ...req, deadline }, resolve });
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.flush();
      });
    });
  }

  private flush(): void {
    while (this.pending.length > 0 && this.inFlightTasks < this.pool.capacity) {
      this.dispatch(this.pending.splice(0, MAX_REQUESTS_PER_TASK));
    }
  }

  private dispatch(group: Pending[]): void {
    this.inFlightTasks++;
    this.pool.run<FlagsTaskResult>({ kind: 'flags', requests: group.map((p) => p.req) }).then(
      (result) => {
        this.release();
        if (result.hashKeys) this.onHashKeys?.(result.hashKeys);
        group.forEach((p, i) => p.resolve(result.outcomes[i] as FlagsOutcome));
      },
      (err: unknown) => {
        this.release();
        const e = catalogueError('HR_FLAGS_WORKER_FAILED', { reason: (err as Error)?.message ?? String(err) });
        for (const p of group) p.resolve({ ok: false, error: serializeError(e) });
      },
    );
  }

  private release(): void {
    this.inFlightTasks--;
    if (this.pending.length > 0) this.flush();
  }
}

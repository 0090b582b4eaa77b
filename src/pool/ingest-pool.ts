/**
 * Capture's side of the worker pool (worker-pool.ts): request grouping. Requests that arrive
 * together are sent to a worker as one task, so they share a Piscina round trip. Grouping adapts
 * to load: a group is dispatched at the end of the current event-loop turn (or after
 * `batchWindowMs`), and while every worker slot is busy requests keep accumulating so the next
 * group is larger. A worker returns its task's events as one encoded block and is free at once;
 * `commit` writes the block (the daemon's single writer: blocks returned in the same turn share
 * one LMDB transaction) and the task's requests are answered when it resolves.
 *
 * `admission()` caps the capture tasks running at once: the daemon lowers it while the person
 * processor is behind (one task, then none), so its CPU goes to the processor, the processing lag
 * stays bounded under sustained overload, and clients wait longer for their acknowledgements.
 * `resume()` starts what waited. The small requests handled on the main thread are never held:
 * one thread of them cannot outrun the processor.
 */
import { catalogueError, type FixedCode, HedgerowError, isHedgerowError } from '../errors.js';
import { looksLikeForm } from '../wire/extract-payload.js';
import type { CaptureRequest } from '../ingest/types.js';
import type { AuthStore } from '../store/auth-store.js';
import { runCaptureGroup } from './capture-group.js';
import type { IngestStats } from '../observability/metrics.js';
import type { CaptureOutcome, CaptureTaskResult } from './tasks.js';
import type { WorkerPool } from './worker-pool.js';

/**
 * Bodies up to this size, uncompressed and not forms, are handled on the main thread: parsing one
 * small event costs a few µs, less than handing it to a worker and back (measured 2026-11-21:
 * /capture/ went from 0.17 to 0.20–0.23 of the ack-only ceiling; docs/decisions.md). Anything that
 * could expand (gzip, lz64, forms) goes to a worker.
 */
const INLINE_MAX_BYTES = 4096;
/** A group stops growing at this many requests: ~40 µs of round trip shared by enough work. */
const MAX_REQUESTS_PER_TASK = 128;
/**
 * … or at about this many bytes of decoded payload (~400 events, ~1-2 ms of CPU), so requests do
 * not queue behind one long task. Counting compressed bytes instead made gzip tasks ~18x larger
 * than intended (measured: 7 ms tasks, and /batch/ throughput 10% lower).
 */
const MAX_WORK_BYTES_PER_TASK = 256 * 1024;

export interface IngestPoolOptions {
  pool: WorkerPool;
  maxDecompressedBytes: number;
  batchWindowMs: number;
  /** For the small requests handled on the main thread. */
  auth: AuthStore;
  /** Durably appends a block of encoded events; the requests are acknowledged once it resolves. */
  commit: (block: Uint8Array, events: number) => Promise<unknown>;
  onStats: (stats: IngestStats) => void;
  /** Most capture tasks that may run at once right now (checked before starting any); default: all slots. */
  admission?: () => number;
  /** Called when requests are left waiting because of `admission()`, not for a free slot. */
  onHeld?: () => void;
  /** Most decoded bytes of requests between `submit` and their outcome (0: no limit); past it, 503. */
  maxBytesInFlight?: number;
  /** Set while the store refuses writes: requests are answered with it at once, not decoded. */
  refusal?: () => HedgerowError | undefined;
}

interface Pending {
  req: CaptureRequest;
  /** Estimated decoded size, the measure of the CPU work the request costs. */
  work: number;
  resolve: (o: CaptureOutcome) => void;
}

export class IngestPool {
  private readonly pool: WorkerPool;
  private readonly capacity: number;
  private pending: Pending[] = [];
  private pendingWork = 0;
  private scheduled = false;
  private inFlightTasks = 0;
  private inline: Pending[] = [];
  private inlineScheduled = false;
  private closing = false;
  /** Estimated decoded bytes of the requests submitted and not yet answered. */
  private bytesInFlight = 0;

  constructor(private readonly opts: IngestPoolOptions) {
    this.pool = opts.pool;
    this.capacity = opts.pool.capacity;
  }

  /** Requests waiting for a slot plus tasks queued inside Piscina. */
  get queueDepth(): number {
    return this.pending.length + this.pool.queueSize;
  }

  submit(req: CaptureRequest): Promise<CaptureOutcome> {
    return new Promise((settle) => {
      const refused = this.opts.refusal?.();
      if (refused) {
        // Decoding requests whose commit would fail too only burns CPU; SDKs retry a 503.
        settle(outcomeOf(refused));
        return;
      }
      const work = estimatedWork(req);
      const max = this.opts.maxBytesInFlight ?? 0;
      if (max > 0 && this.bytesInFlight > 0 && this.bytesInFlight + work > max) {
        // Memory is bounded rather than every request kept until the store catches up; SDKs
        // retry a 503. A request alone is always taken.
        settle(failed('HR_CAPTURE_OVERLOADED'));
        return;
      }
      this.bytesInFlight += work;
      let answered = false;
      // Once only: a request the settling answered before a bug stopped it keeps that answer.
      const resolve = (outcome: CaptureOutcome): void => {
        if (answered) return;
        answered = true;
        this.bytesInFlight -= work;
        settle(outcome);
      };
      if (runsInline(req)) {
        this.inline.push({ req, work, resolve });
        this.scheduleInline();
        return;
      }
      this.pending.push({ req, work, resolve });
      this.pendingWork += work;
      if (this.pending.length >= MAX_REQUESTS_PER_TASK || this.pendingWork >= MAX_WORK_BYTES_PER_TASK) this.flush();
      else this.schedule();
    });
  }

  /** Dispatches what is waiting, held or not; the caller closes the worker pool afterwards. */
  close(): void {
    this.closing = true;
    this.flush();
  }

  /** Starts what waited for admission (call when `admission()` may have risen). */
  resume(): void {
    if (this.pending.length > 0) this.flush();
  }

  private slots(): number {
    if (this.closing || this.opts.admission === undefined) return this.capacity;
    return Math.min(this.capacity, this.opts.admission());
  }

  /** Small requests that arrived in this turn are handled together once it ends, as one block. */
  private scheduleInline(): void {
    if (this.inlineScheduled) return;
    this.inlineScheduled = true;
    setImmediate(() => {
      this.inlineScheduled = false;
      this.runInline();
    });
  }

  private runInline(): void {
    while (this.inline.length > 0) {
      const group = this.inline.splice(0, MAX_REQUESTS_PER_TASK);
      let result: CaptureTaskResult;
      try {
        result = runCaptureGroup(
          group.map((p) => p.req),
          this.opts.auth,
          this.opts.maxDecompressedBytes,
        );
      } catch (err) {
        // A bug must not take the process down from a timer callback: answer 503 (SDKs retry).
        const failure = outcomeOf(catalogueError('HR_CAPTURE_GROUP_FAILED', { reason: thrownText(err) }));
        for (const p of group) p.resolve(failure);
        continue;
      }
      this.settleSafely(group, result);
    }
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    const fire = () => {
      this.scheduled = false;
      this.flush();
    };
    if (this.opts.batchWindowMs > 0) setTimeout(fire, this.opts.batchWindowMs);
    else setImmediate(fire);
  }

  private flush(): void {
    // Admission only changes as commits and processor reports arrive, never within this loop.
    const slots = this.slots();
    while (this.pending.length > 0 && this.inFlightTasks < slots) {
      const group = this.takeGroup();
      this.dispatch(group);
    }
    if (this.pending.length > 0 && slots < this.capacity && this.inFlightTasks >= slots) this.opts.onHeld?.();
  }

  private takeGroup(): Pending[] {
    let work = 0;
    let n = 0;
    while (n < this.pending.length && n < MAX_REQUESTS_PER_TASK && (n === 0 || work < MAX_WORK_BYTES_PER_TASK)) {
      work += (this.pending[n] as Pending).work;
      n++;
    }
    const group = this.pending.splice(0, n);
    this.pendingWork -= work;
    return group;
  }

  private dispatch(group: Pending[]): void {
    this.inFlightTasks++;
    const requests = group.map((p) => p.req);
    const transferList = requests.map((r) => r.body.buffer).filter(ownsWholeBuffer(requests));
    this.pool.run<CaptureTaskResult>({ kind: 'capture', requests }, transferList).then(
      (result) => {
        this.release();
        this.settleSafely(group, result);
      },
      (err: unknown) => {
        this.release();
        const error = outcomeOf(catalogueError('HR_CAPTURE_WORKER_FAILED', { reason: thrownText(err) }));
        for (const p of group) p.resolve(error);
      },
    );
  }

  /** Frees the slot as soon as the worker is done, so CPU work goes on while the commit is in flight. */
  private release(): void {
    this.inFlightTasks--;
    if (this.pending.length > 0) this.flush();
  }

  /**
   * `settle`, with a bug in it (a malformed task result, a throwing callback) answered as a 500
   * for whatever it left unanswered (SDKs retry it) instead of an unhandled rejection, which
   * ends the process.
   */
  private settleSafely(group: Pending[], r: CaptureTaskResult): void {
    this.settle(group, r).catch((err: unknown) => {
      const failure = outcomeOf(catalogueError('HR_CAPTURE_SETTLE_FAILED', { reason: thrownText(err) }));
      for (const p of group) p.resolve(failure);
    });
  }

  private async settle(group: Pending[], r: CaptureTaskResult): Promise<void> {
    let failure: CaptureOutcome | undefined;
    if (r.block) {
      const started = performance.now();
      try {
        await this.opts.commit(r.block, r.stats.accepted);
      } catch (err) {
        failure = outcomeOf(isHedgerowError(err) ? err : catalogueError('HR_STORE_FAILED', { reason: thrownText(err) }));
      }
      r.stats.commitSeconds = (performance.now() - started) / 1000;
    }
    if (failure) r.stats.accepted = 0;
    this.opts.onStats(r.stats);
    group.forEach((p, i) => {
      const outcome = r.outcomes[i] as CaptureOutcome;
      p.resolve(failure && outcome.ok ? failure : outcome);
    });
  }
}

/** What was thrown, in words: its message, or itself as a string. */
function thrownText(err: unknown): string {
  return (err as Error)?.message ?? String(err);
}

function failed(code: FixedCode): CaptureOutcome {
  return outcomeOf(new HedgerowError(code));
}

function outcomeOf(e: HedgerowError): CaptureOutcome {
  return { ok: false, error: { hedgerowCode: e.hedgerowCode, detail: e.message, attr: e.attr } };
}

/**
 * Decoded size of the body: for gzip, the size its trailer records (ISIZE, exact for the single-member
 * bodies SDKs send, capped at 20x so a lying trailer cannot distort grouping); else the body size.
 */
function estimatedWork(req: CaptureRequest): number {
  const b = req.body;
  const n = b.byteLength;
  if (n < 18 || b[0] !== 0x1f || b[1] !== 0x8b) return n + req.query.length;
  const isize = (b[n - 4] as number) | ((b[n - 3] as number) << 8) | ((b[n - 2] as number) << 16) | ((b[n - 1] as number) * 2 ** 24);
  return Math.min(isize, n * 20);
}

/**
 * Only a small body of plain JSON runs on the main thread: one that starts with `{` or `[` (after
 * JSON's whitespace) cannot be gzip, base64 or a form, which the pipeline would expand, unless it
 * also has a form's `&data=` within its first 128 bytes (with a form content type it is read as
 * one); and no query that could ask for a decompression or carry its own payload (`data`, which
 * wins over the body), however it is spelled (`%63ompression=lz64` is `compression`), so any `%`
 * sends the request to a worker too.
 */
export function runsInline(req: CaptureRequest): boolean {
  const body = req.body;
  if (body.byteLength > INLINE_MAX_BYTES || req.query.length > INLINE_MAX_BYTES || req.contentEncoding !== '') return false;
  if (req.query.includes('compression') || req.query.includes('data') || req.query.includes('%')) return false;
  let i = 0;
  while (i < body.byteLength && (body[i] === 0x20 || body[i] === 0x0a || body[i] === 0x0d || body[i] === 0x09)) i++;
  return (body[i] === 0x7b /* { */ || body[i] === 0x5b) /* [ */ && !looksLikeForm(body);
}

/** Only buffers a body owns entirely can be moved to the worker; the rest are copied. */
function ownsWholeBuffer(requests: CaptureRequest[]) {
  const seen = new Set<ArrayBufferLike>();
  return (buf: ArrayBufferLike, i: number): buf is ArrayBuffer => {
    const body = (requests[i] as CaptureRequest).body;
    if (seen.has(buf) || !(buf instanceof ArrayBuffer)) return false;
    if (body.byteOffset !== 0 || body.byteLength !== buf.byteLength || buf.byteLength === 0) return false;
    seen.add(buf);
    return true;
  };
}

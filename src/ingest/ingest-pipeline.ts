/**
 * Capture from decoded request to applied person, on the main thread: the capture side of the
 * worker pool (pool/ingest-pool.ts), the durable commit of each block to the event log (after a
 * look at the free-space reserve), the hand-off of each block to the person processor thread,
 * and admission: how many capture tasks may run while the processor is behind
 * (HEDGEROW_MAX_PERSON_BACKLOG) and how many bytes may wait for an answer
 * (HEDGEROW_MAX_CAPTURE_BYTES_IN_FLIGHT). docs/architecture.md, "Capture" and "Durability
 * contract", tells the whole path.
 */
import type { Config } from '../config/schema.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { IngestPool } from '../pool/ingest-pool.js';
import type { WorkerPool } from '../pool/worker-pool.js';
import { PersonProcessorThread } from '../processing/person-processor-thread.js';
import type { AuthStore } from '../store/auth-store.js';
import type { DiskReserve } from '../store/disk-reserve.js';
import { EventWriter } from '../store/event-log.js';
import type { StreamBlock, StreamEventLog } from '../store/stream-event-log.js';
import type { StoreDatabases } from '../store/open-store.js';
import { commitFailureReason, storeUnavailableError } from '../store/store-errors.js';
import type { WriteAvailability } from '../store/write-availability.js';

export interface IngestPipelineOptions {
  readonly config: Pick<
    Readonly<Config>,
    'dataDir' | 'sync' | 'batchWindowMs' | 'maxCaptureBytesInFlight' | 'maxPersonBacklog' | 'retentionDays'
  >;
  readonly dbs: StoreDatabases;
  readonly auth: AuthStore;
  readonly workerPool: WorkerPool;
  readonly maxDecompressedBytes: number;
  readonly storeWrites: WriteAvailability;
  readonly reserve: DiskReserve;
  readonly metrics: Metrics;
  readonly log: Logger;
  /**
   * Cluster mode: capture's commit is this publish to the events stream (it throws a
   * HedgerowError when the cluster does not hold the block), and the node's event log is
   * written only from the stream (`appendFromStream`).
   */
  readonly cluster?: {
    readonly publish: (block: Uint8Array, events: number) => Promise<void>;
    readonly streamLog: StreamEventLog;
  };
}

/** How old a look at the disk's free space an event-log commit goes by (at most 100 statfs a second). */
const COMMIT_LOOK_MS = 10;

export class IngestPipeline {
  /** Capture requests go in here. */
  readonly capture: IngestPool;
  private readonly writer: EventWriter;
  private processorThread: PersonProcessorThread | undefined;
  private processorCrashed = false;
  /** The processor is waiting to retry a batch the store refused for now: capture is not held for it. */
  private processorRetrying = false;
  private acceptedSinceStart = 0;

  /** Makes the capture side, then starts the person processor thread. */
  static async start(opts: IngestPipelineOptions): Promise<IngestPipeline> {
    const pipeline = new IngestPipeline(opts);
    await pipeline.startProcessor();
    return pipeline;
  }

  private constructor(private readonly opts: IngestPipelineOptions) {
    const { config, metrics, log } = opts;
    this.writer = new EventWriter(opts.dbs);
    this.capture = new IngestPool({
      pool: opts.workerPool,
      maxDecompressedBytes: opts.maxDecompressedBytes,
      batchWindowMs: config.batchWindowMs,
      maxBytesInFlight: config.maxCaptureBytesInFlight,
      auth: opts.auth,
      commit: (block, events) => this.commit(block, events),
      refusal: () => {
        const down = opts.storeWrites.check();
        return down ? storeUnavailableError(down.reason) : undefined;
      },
      admission: () => this.admission(),
      onHeld: () => metrics.captureHeldForPersons.inc(),
      onStats: (s) => {
        metrics.recordIngest(s);
        // In cluster mode the processor's backlog grows as the stream's blocks are written.
        if (opts.cluster === undefined) this.acceptedSinceStart += s.accepted;
        if (s.dropped.no_event_name || s.dropped.no_distinct_id || s.dropped.performance_event) {
          log.debug({ dropped: s.dropped }, 'dropped events without a name or distinct_id (acknowledged, as PostHog does)');
        }
      },
    });
  }

  /** Cluster mode: the node's event log as written from the events stream. */
  get streamLog(): StreamEventLog {
    const log = this.opts.cluster?.streamLog;
    if (log === undefined) throw new Error('streamLog is for cluster mode');
    return log;
  }

  /** True once the person processor crashed (it is not started again). */
  get processorFailed(): boolean {
    return this.processorCrashed;
  }

  /** The person processor, once started and until `stop()`. */
  get processor(): PersonProcessorThread | undefined {
    return this.processorThread;
  }

  /** Events the processor has not applied yet: those it found at start and those ingested since. */
  get personBacklog(): number {
    const p = this.processorThread;
    return p === undefined ? 0 : Math.max(0, p.backlogAtStart + this.acceptedSinceStart - p.processed);
  }

  /** Dispatches the capture requests still waiting; call before closing the worker pool. */
  closeCapture(): void {
    this.capture.close();
  }

  /** Stops the processor once it has applied what it was handed (after the worker pool is closed). */
  async stop(): Promise<void> {
    const p = this.processorThread;
    this.processorThread = undefined;
    await p?.stop();
  }

  /**
   * Cluster mode: writes blocks of the events stream (after the last one written, in its order)
   * into the node's event log with their stream cursor, in one commit, and hands them to the
   * processor as capture's own commits are handed in the embedded mode.
   */
  async appendFromStream(blocks: readonly StreamBlock[], events: number): Promise<void> {
    const { metrics, storeWrites, cluster } = this.opts;
    if (cluster === undefined) throw new Error('appendFromStream is for cluster mode');
    this.checkReserve();
    const { streamLog } = cluster;
    const entries = blocks.map((b) => ({ key: streamLog.place(b), block: b.block }));
    for (const e of entries) this.processorThread?.handOff(e.key, e.block);
    try {
      await streamLog.commit(entries);
    } catch (err) {
      streamLog.rewind();
      metrics.storeWriteFailures.inc();
      const reason = await commitFailureReason(err);
      storeWrites.failed(reason);
      throw storeUnavailableError(reason);
    }
    storeWrites.succeeded();
    this.acceptedSinceStart += events;
    this.processorThread?.notify();
  }

  /** The store's growth stops while the disk still has room, before LMDB's own writes could fail for lack of it (store/disk-reserve.ts). */
  private checkReserve(): void {
    const { metrics, storeWrites, reserve } = this.opts;
    const short = reserve.shortfall('capture', COMMIT_LOOK_MS);
    if (short !== undefined) {
      metrics.storeWriteFailures.inc();
      storeWrites.failed(short);
      throw storeUnavailableError(short);
    }
  }

  private async commit(block: Uint8Array, events: number): Promise<void> {
    const { metrics, storeWrites } = this.opts;
    this.checkReserve();
    // The cluster holds it once acknowledged; this node writes it when its tail reads it back.
    if (this.opts.cluster) return this.opts.cluster.publish(block, events);
    // Handed to the processor before the commit, so that it is there before the commit is
    // visible: a busy processor would otherwise often read it back first.
    try {
      await this.writer.append(block, (key) => this.processorThread?.handOff(key, block));
    } catch (err) {
      metrics.storeWriteFailures.inc();
      const reason = await commitFailureReason(err);
      storeWrites.failed(reason);
      throw storeUnavailableError(reason);
    }
    storeWrites.succeeded();
    this.processorThread?.notify();
  }

  /**
   * Bounded processing lag: from a quarter of the backlog limit capture runs one task at a time
   * (about one worker's pace, which the processor matches, so no core idles), past the limit
   * none, until the processor catches up (it reports every batch).
   */
  private admission(): number {
    const limit = this.opts.config.maxPersonBacklog;
    const p = this.processorThread;
    if (limit === 0 || p === undefined || this.processorCrashed || this.processorRetrying) return Infinity;
    const backlog = p.backlogAtStart + this.acceptedSinceStart - p.processed;
    return backlog > limit ? 0 : backlog > limit / 4 ? 1 : Infinity;
  }

  private async startProcessor(): Promise<void> {
    const { config, metrics, log } = this.opts;
    this.processorThread = await PersonProcessorThread.start(
      { dataDir: config.dataDir, sync: config.sync, retentionDays: config.retentionDays },
      {
        onBatch: (r) => {
          this.processorRetrying = false;
          for (const [outcome, n] of Object.entries(r.outcomes)) metrics.personEventsProcessed.inc({ outcome }, n);
          for (const s of r.lagSeconds) metrics.personProcessingLag.observe(s);
          metrics.personBlocksRead.inc({ source: 'hand-off' }, r.blocksRead.handOff);
          metrics.personBlocksRead.inc({ source: 'store' }, r.blocksRead.store);
          metrics.personBatches.inc();
          for (const f of r.failures) log.error({ event_uuid: f.uuid, error: f.error }, 'person processing failed for an event; skipped');
          for (const b of r.unreadable)
            log.error({ block: b.key, error: b.error }, 'person processing could not read a block of the event log; skipped');
          this.capture.resume();
        },
        onRetry: (error, delayMs) => {
          log.error({ error, retry_in_ms: delayMs }, 'person processor: the store refused a batch; trying it again');
          // Capture goes on meanwhile (its events are in the log, and will be processed): held
          // for a processor that cannot write, requests would wait as long as the disk stays full.
          this.processorRetrying = true;
          this.capture.resume();
        },
        onPruned: (blocks) => metrics.eventBlocksPruned.inc(blocks),
        onPruneFailed: (error) => log.warn({ error }, 'removing expired events failed; trying again in a minute'),
        onCrash: (error) => {
          log.error({ error }, 'person processor crashed');
          // Capture never waits for a processor that is gone.
          this.processorCrashed = true;
          this.capture.resume();
        },
      },
    );
  }
}

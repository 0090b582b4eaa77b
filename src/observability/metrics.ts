/**
 * Prometheus metrics on a private registry (never prom-client's global one), all named
 * `hedgerow_*`, with Node's default process metrics under their standard names. Workers do not touch prom-client: they
 * return plain IngestStats with their results and the main thread records them here.
 */

import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, exponentialBuckets } from 'prom-client';
import { packageVersion } from '../config/package-version.js';
import { registerRequestDurations } from './request-duration-metric.js';
import { DurationTally } from './request-durations.js';
import type { ThreadHeap, ThreadSample } from './thread-cpu.js';

const DROP_REASONS = ['no_event_name', 'no_distinct_id', 'performance_event'] as const;
export type DropReason = (typeof DROP_REASONS)[number];

/** What one worker task reports about the events it handled (plain data, crosses threads). */
export interface IngestStats {
  accepted: number;
  dropped: Partial<Record<DropReason, number>>;
  /** Seconds the task waited for its commit; absent when nothing was written. */
  commitSeconds?: number;
  /** Events in each request the task carried. */
  batchSizes: readonly number[];
}

/** The data file, sampled at scrape time (src/store/store-usage.ts). */
interface StoreSample {
  fileBytes: number;
  usedBytes: number;
  /** Ingest time of the oldest event in the log (µs since the epoch); undefined when it is empty. */
  oldestEventMicros: number | undefined;
}

/** Sampled at scrape time, so the pool is not touched per task. */
interface PoolSample {
  queueDepth: number;
  /** 0..1, Piscina's `utilization`. */
  utilization: number;
}

export interface Metrics {
  readonly registry: Registry;
  /** Counts `n` (default 1) answered requests (kept in a plain map, added to the counter at each scrape). */
  countRequest(route: string, method: string, status: number, n?: number): void;
  /** Durations of answered requests by route and method (`hedgerow_http_request_duration_seconds`). */
  readonly requestDurations: DurationTally;
  readonly eventsAccepted: Counter;
  readonly eventsDropped: Counter<'reason'>;
  readonly batchSize: Histogram;
  readonly commitLatency: Histogram;
  readonly bodyBytes: Histogram;
  readonly poolQueueDepth: Gauge;
  readonly poolUtilization: Gauge;
  /** `/flags` and `/decide` answers that said errorsWhileComputingFlags, by endpoint. */
  readonly flagErrors: Counter<'endpoint'>;
  /** Record the numbers a worker returned with its result. */
  recordIngest(stats: IngestStats): void;
  /** Install the function the pool gauges read at each scrape. */
  setPoolProbe(probe: () => PoolSample): void;
  /** CPU time per named thread (src/observability/thread-cpu.ts), read at each scrape. */
  setThreadCpuProbe(probe: () => ThreadSample[]): void;
  /** V8 heap per named thread (src/observability/thread-cpu.ts), read at each scrape. */
  setThreadHeapProbe(probe: () => ThreadHeap[]): void;
  readonly personEventsProcessed: Counter<'outcome'>;
  readonly personBlocksRead: Counter<'source'>;
  /** The processor's batches, each one write transaction. */
  readonly personBatches: Counter;
  readonly personProcessingLag: Histogram;
  /** Times capture requests were left waiting because the person processor was behind. */
  readonly captureHeldForPersons: Counter;
  /** Install the function the processor's events-behind gauge reads at each scrape. */
  setPersonBacklogProbe(probe: () => number): void;
  /** Writes the store refused (event-log commits, probes, management writes). */
  readonly storeWriteFailures: Counter;
  /** 1 while the store takes writes, 0 while it refuses them. */
  readonly storeWritable: Gauge;
  /** Event-log blocks removed by retention. */
  readonly eventBlocksPruned: Counter;
  /** Install the function the store's size gauges read at each scrape. */
  setStoreProbe(probe: () => StoreSample): void;
  render(): Promise<{ contentType: string; body: string }>;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  const registers = [registry];
  // Under their standard names (process_*, nodejs_*), so stock Node.js dashboards work.
  collectDefaultMetrics({ register: registry });
  new Gauge({
    name: 'hedgerow_build_info',
    help: 'Always 1; the labels say which Hedgerow and which Node.js run',
    labelNames: ['version', 'node_version'] as const,
    registers,
  }).set({ version: packageVersion(), node_version: process.versions.node }, 1);
  let probe: (() => PoolSample) | undefined;
  let backlogProbe: (() => number) | undefined;
  let threadCpuProbe: (() => ThreadSample[]) | undefined;
  let threadHeapProbe: (() => ThreadHeap[]) | undefined;
  let storeProbe: (() => StoreSample) | undefined;
  // One sample per scrape for the three store gauges.
  let storeSample: { at: number; sample: StoreSample } | undefined;
  const sampleStore = (): StoreSample | undefined => {
    if (storeProbe === undefined) return undefined;
    const now = Date.now();
    if (storeSample === undefined || now - storeSample.at > 1000) storeSample = { at: now, sample: storeProbe() };
    return storeSample.sample;
  };

  // Labelled increments hash their labels on every call; per request that showed in profiles of
  // the main thread, so requests are tallied by a string key and handed over when scraped.
  // Nested maps (route → method → status): no key string is built per request.
  const requestTally = new Map<string, Map<string, Map<number, { n: number }>>>();
  new Counter({
    name: 'hedgerow_http_requests_total',
    help: 'HTTP requests answered, by route pattern, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers,
    collect() {
      for (const [route, byMethod] of requestTally) {
        for (const [method, byStatus] of byMethod) {
          for (const [status, t] of byStatus) {
            if (t.n > 0) this.inc({ route, method, status }, t.n);
            t.n = 0;
          }
        }
      }
    },
  });
  const requestDurations = new DurationTally();
  registerRequestDurations(registry, requestDurations);
  const eventsAccepted = new Counter({
    name: 'hedgerow_events_accepted_total',
    help: 'Events committed to the event log',
    registers,
  });
  const eventsDropped = new Counter({
    name: 'hedgerow_events_dropped_total',
    help: 'Events acknowledged but not stored, by reason',
    labelNames: ['reason'] as const,
    registers,
  });
  for (const reason of DROP_REASONS) eventsDropped.inc({ reason }, 0);
  const batchSize = new Histogram({
    name: 'hedgerow_batch_size_events',
    help: 'Events per ingest request',
    buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 5000],
    registers,
  });
  const commitLatency = new Histogram({
    name: 'hedgerow_commit_latency_seconds',
    help: 'Time from issuing an event-log write to its commit',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers,
  });
  const bodyBytes = new Histogram({
    name: 'hedgerow_request_body_bytes',
    help: 'Request body size on the wire, before decompression',
    buckets: exponentialBuckets(256, 4, 9), // 256 B .. 16 MiB
    registers,
  });
  const poolQueueDepth = new Gauge({
    name: 'hedgerow_pool_queue_depth',
    help: 'Tasks waiting for a worker',
    registers,
    collect() {
      if (probe) this.set(probe().queueDepth);
    },
  });
  const poolUtilization = new Gauge({
    name: 'hedgerow_pool_utilization_ratio',
    help: 'Share of time the workers were busy (0..1)',
    registers,
    collect() {
      if (probe) this.set(probe().utilization);
    },
  });

  const flagErrors = new Counter({
    name: 'hedgerow_flags_errors_total',
    help: 'POST /flags and /decide answers that said errorsWhileComputingFlags (a store read failed, a flag could not be evaluated, or the evaluation timed out), by endpoint',
    labelNames: ['endpoint'] as const,
    registers,
  });
  for (const endpoint of ['flags', 'decide']) flagErrors.inc({ endpoint }, 0);

  const personEventsProcessed = new Counter({
    name: 'hedgerow_person_events_processed_total',
    help: 'Events the person processor applied, by outcome (PostHog ingestion warnings by name)',
    labelNames: ['outcome'] as const,
    registers,
  });
  const personBlocksRead = new Counter({
    name: 'hedgerow_person_blocks_read_total',
    help: 'Event-log blocks the person processor applied, by where it read them: handed over by the daemon as it wrote them (hand-off), or read back from the store (after a restart, or while the hand-off ring was full)',
    labelNames: ['source'] as const,
    registers,
  });
  for (const source of ['hand-off', 'store']) personBlocksRead.inc({ source }, 0);
  const personBatches = new Counter({
    name: 'hedgerow_person_batches_total',
    help: 'Batches the person processor committed, each one write transaction with its cursor (fewer and larger under load)',
    registers,
  });
  const personProcessingLag = new Histogram({
    name: 'hedgerow_person_processing_lag_seconds',
    help: 'Time from an event block commit to the commit of the person changes it caused',
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  const captureHeldForPersons = new Counter({
    name: 'hedgerow_capture_held_for_persons_total',
    help: 'Times capture requests were left waiting because the person processor was past a quarter of its backlog limit',
    registers,
  });
  new Gauge({
    name: 'hedgerow_person_processor_events_behind',
    help: 'Committed events the person processor has not applied yet',
    registers,
    collect() {
      if (backlogProbe) this.set(backlogProbe());
    },
  });

  const storeWriteFailures = new Counter({
    name: 'hedgerow_store_write_failures_total',
    help: 'Writes the store refused (a full disk, an I/O error, a full map): event-log commits, the probes made while it refuses them, management writes',
    registers,
  });
  const storeWritable = new Gauge({
    name: 'hedgerow_store_writable',
    help: '1 while the store takes writes; 0 while it refuses them (capture answers 503 store_unavailable, /_readyz says why)',
    registers,
  });
  storeWritable.set(1);
  const eventBlocksPruned = new Counter({
    name: 'hedgerow_event_blocks_pruned_total',
    help: 'Event-log blocks removed because they were older than HEDGEROW_RETENTION_DAYS',
    registers,
  });
  new Gauge({
    name: 'hedgerow_store_file_bytes',
    help: 'Size of the data file (hedgerow.mdb); it grows and never shrinks, and freed pages are reused first',
    registers,
    collect() {
      const s = sampleStore();
      if (s) this.set(s.fileBytes);
    },
  });
  new Gauge({
    name: 'hedgerow_store_used_bytes',
    help: 'Bytes of the data file in pages that hold data (the rest are free pages LMDB reuses before growing the file)',
    registers,
    collect() {
      const s = sampleStore();
      if (s) this.set(s.usedBytes);
    },
  });
  new Gauge({
    name: 'hedgerow_oldest_event_age_seconds',
    help: 'Age of the oldest event in the event log, by the time it was received (0 when the log is empty)',
    registers,
    collect() {
      const s = sampleStore();
      if (s) this.set(s.oldestEventMicros === undefined ? 0 : Math.max(0, Date.now() / 1000 - s.oldestEventMicros / 1e6));
    },
  });

  new Counter({
    name: 'hedgerow_thread_cpu_seconds_total',
    help: "User and system CPU time of each of the daemon's threads (main, http-N, pool-N, person-processor-1) by OS thread id, and of the rest of the process (other: V8, libuv and lmdb-js helper threads, ended threads)",
    labelNames: ['thread', 'tid'] as const,
    registers,
    collect() {
      if (threadCpuProbe === undefined) return;
      this.reset();
      for (const t of threadCpuProbe()) this.inc({ thread: t.thread, tid: t.tid === undefined ? '' : String(t.tid) }, t.seconds);
    },
  });
  new Gauge({
    name: 'hedgerow_thread_heap_bytes',
    help: "Size of the V8 heap of each of the daemon's threads (main, http-N, pool-N, person-processor-1): the main thread's at the scrape, the others' as each last reported it (every 10 s); the rest of the process's anonymous memory is native (lmdb-js, uWS, buffers)",
    labelNames: ['thread'] as const,
    registers,
    collect() {
      if (threadHeapProbe === undefined) return;
      this.reset();
      for (const h of threadHeapProbe()) this.set({ thread: h.thread }, h.bytes);
    },
  });

  return {
    registry,
    personEventsProcessed,
    personBlocksRead,
    personBatches,
    personProcessingLag,
    captureHeldForPersons,
    storeWriteFailures,
    storeWritable,
    eventBlocksPruned,
    setStoreProbe(p) {
      storeProbe = p;
    },
    setPersonBacklogProbe(p) {
      backlogProbe = p;
    },
    countRequest(route, method, status, n = 1) {
      let byMethod = requestTally.get(route);
      if (byMethod === undefined) requestTally.set(route, (byMethod = new Map()));
      let byStatus = byMethod.get(method);
      if (byStatus === undefined) byMethod.set(method, (byStatus = new Map()));
      const t = byStatus.get(status);
      if (t !== undefined) t.n += n;
      else byStatus.set(status, { n });
    },
    requestDurations,
    eventsAccepted,
    eventsDropped,
    batchSize,
    commitLatency,
    bodyBytes,
    poolQueueDepth,
    poolUtilization,
    flagErrors,
    recordIngest(stats) {
      if (stats.accepted > 0) eventsAccepted.inc(stats.accepted);
      // Only known reasons: a label value from a worker must not grow the series count.
      for (const reason of DROP_REASONS) {
        const n = stats.dropped[reason];
        if (n !== undefined && n > 0) eventsDropped.inc({ reason }, n);
      }
      if (stats.commitSeconds !== undefined) commitLatency.observe(stats.commitSeconds);
      for (const n of stats.batchSizes) batchSize.observe(n);
    },
    setPoolProbe(p) {
      probe = p;
    },
    setThreadCpuProbe(p) {
      threadCpuProbe = p;
    },
    setThreadHeapProbe(p) {
      threadHeapProbe = p;
    },
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

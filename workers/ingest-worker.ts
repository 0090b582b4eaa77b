/**
 * Piscina task module. Runs the CPU side of capture for a group of requests (decode, parse, token,
 * project, validate, normalize, encode) and returns the accepted events as one encoded block. The
 * main thread's single writer commits the blocks of every task that finishes in the same turn in
 * one LMDB transaction, and answers the requests only after that commit.
 * A thin adapter: the logic lives in src/ingest (pure) and src/store.
 */
import { workerData } from 'node:worker_threads';
import { HedgerowError, isHedgerowError, serializeError } from '../src/errors.js';
import { resolveCaptureProject } from '../src/auth/resolve-capture-project.js';
import { normalizeCapture, prepareCapture } from '../src/ingest/capture-pipeline.js';
import type { CaptureRequest } from '../src/ingest/types.js';
import { MAX_EVENT_BYTES } from '../src/limits.js';
import type { DropReason, IngestStats } from '../src/observability/metrics.js';
import { AuthStore } from '../src/store/auth-store.js';
import { encodeBlock, encodeEvent } from '../src/store/event-log.js';
import { openStore } from '../src/store/open-store.js';
import type { CaptureOutcome, CaptureTask, CaptureTaskResult, PoolTask, WorkerSetup } from '../src/pool/tasks.js';

const setup = workerData as WorkerSetup;
const dbs = openStore({ dataDir: setup.dataDir, sync: setup.sync });
const auth = new AuthStore(dbs);

export default function run(task: PoolTask): CaptureTaskResult | 'pong' {
  if (task.kind === 'ping') return 'pong';
  return capture(task);
}

interface Prepared {
  index: number;
  encoded: Buffer[];
  beacon: boolean;
}

function capture(task: CaptureTask): CaptureTaskResult {
  const outcomes: CaptureOutcome[] = new Array(task.requests.length);
  const stats: IngestStats & { dropped: Record<DropReason, number> } = {
    accepted: 0,
    dropped: { no_event_name: 0, no_distinct_id: 0, performance_event: 0 },
    batchSizes: [],
  };
  const now = new Date();
  const toWrite: Prepared[] = [];
  for (let i = 0; i < task.requests.length; i++) {
    try {
      const p = prepareOne(task.requests[i] as CaptureRequest, now, stats);
      if (p.encoded.length === 0) outcomes[i] = { ok: true, status: p.beacon ? 204 : 200 };
      else toWrite.push({ ...p, index: i });
    } catch (err) {
      outcomes[i] = { ok: false, error: serializeError(asCatalogued(err)) };
    }
  }
  const block: Buffer[] = [];
  for (const p of toWrite) {
    for (const b of p.encoded) block.push(b);
    outcomes[p.index] = { ok: true, status: p.beacon ? 204 : 200 };
    stats.accepted += p.encoded.length;
  }
  return { outcomes, stats, block: block.length > 0 ? encodeBlock(block) : null };
}

function prepareOne(req: CaptureRequest, now: Date, stats: IngestStats & { dropped: Record<DropReason, number> }) {
  const prepared = prepareCapture(req, setup.maxDecompressedBytes);
  stats.dropped.performance_event += prepared.body.filteredPerformanceEvents;
  if (prepared.body.events.length === 0) return { encoded: [], beacon: prepared.beacon };
  const project = resolveCaptureProject(auth, prepared.token, prepared.projectIdHint);
  const { events, dropped } = normalizeCapture(prepared, project.id, now);
  stats.dropped.no_event_name += dropped.no_event_name;
  stats.dropped.no_distinct_id += dropped.no_distinct_id;
  (stats.batchSizes as number[]).push(prepared.body.events.length);
  const encoded: Buffer[] = new Array(events.length);
  for (let i = 0; i < events.length; i++) {
    const b = encodeEvent(events[i]!);
    if (b.length > MAX_EVENT_BYTES) {
      throw new HedgerowError(
        'HR_EVENT_TOO_LARGE',
        `maximum event size exceeded: event ${i} is ${b.length} bytes encoded, the limit is ${MAX_EVENT_BYTES}`,
      );
    }
    encoded[i] = b;
  }
  return { encoded, beacon: prepared.beacon };
}

function asCatalogued(err: unknown): HedgerowError {
  if (isHedgerowError(err)) return err;
  // Anything else is a bug: answer 500 (SDKs retry it) and let the main thread log what broke.
  return new HedgerowError('HR_INTERNAL', `Internal error: ${err instanceof Error ? err.message : String(err)}`);
}

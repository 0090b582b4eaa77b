/**
 * The CPU side of capture for a group of requests: decode, parse, find the token and project,
 * validate, normalize and encode. Returns each request's outcome and the accepted events as one
 * encoded event-log block, which the caller commits before answering. Runs in the workers for
 * most requests, and on the main thread for small plain ones (see ingest-pool.ts). Reads the
 * auth records; writes nothing.
 */
import { HedgerowError, isHedgerowError, serializeError } from '../errors.js';
import { resolveCaptureProject } from '../auth/resolve-capture-project.js';
import { normalizeCapture, prepareCapture } from '../ingest/capture-pipeline.js';
import type { CaptureRequest } from '../ingest/types.js';
import { MAX_EVENT_BYTES } from '../limits.js';
import type { DropReason, IngestStats } from '../observability/metrics.js';
import type { AuthStore } from '../store/auth-store.js';
import { encodeBlock, encodeEvent } from '../store/event-log.js';
import type { CaptureOutcome, CaptureTaskResult } from './tasks.js';

export function runCaptureGroup(
  requests: readonly CaptureRequest[],
  auth: AuthStore,
  maxDecompressedBytes: number,
): CaptureTaskResult {
  const outcomes: CaptureOutcome[] = new Array(requests.length);
  const stats: IngestStats & { dropped: Record<DropReason, number> } = {
    accepted: 0,
    dropped: { no_event_name: 0, no_distinct_id: 0, performance_event: 0 },
    batchSizes: [],
  };
  const now = new Date();
  const block: Buffer[] = [];
  for (let i = 0; i < requests.length; i++) {
    try {
      // A request's events join the block only once all of them are valid.
      const p = prepareOne(requests[i] as CaptureRequest, now, stats, auth, maxDecompressedBytes);
      for (const b of p.encoded) block.push(b);
      stats.accepted += p.encoded.length;
      outcomes[i] = { ok: true, status: p.beacon ? 204 : 200 };
    } catch (err) {
      outcomes[i] = { ok: false, error: serializeError(asCatalogued(err)) };
    }
  }
  return { outcomes, stats, block: block.length > 0 ? encodeBlock(block) : null };
}

function prepareOne(
  req: CaptureRequest,
  now: Date,
  stats: IngestStats & { dropped: Record<DropReason, number> },
  auth: AuthStore,
  maxDecompressedBytes: number,
) {
  const prepared = prepareCapture(req, maxDecompressedBytes);
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

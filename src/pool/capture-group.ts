/**
 * The CPU side of capture for a group of requests: decode, parse, find the token and project,
 * validate, normalize and encode. Returns each request's outcome and the accepted events as one
 * encoded event-log block, which the caller commits before answering. Runs in the workers for
 * most requests, and on the main thread for small plain ones (see ingest-pool.ts). Reads the
 * auth records; writes nothing.
 */
import { catalogueError, type HedgerowError, isHedgerowError, serializeError } from '../errors.js';
import { resolveCaptureProject } from '../auth/resolve-capture-project.js';
import { normalizeCapture, prepareCapture } from '../ingest/capture-pipeline.js';
import type { CaptureRequest, StoredEvent } from '../ingest/types.js';
import { MAX_EVENT_BYTES } from '../limits.js';
import type { DropReason, IngestStats } from '../observability/metrics.js';
import type { AuthStore } from '../store/auth-store.js';
import { encodeBlock, encodedEventSize } from '../store/event-log.js';
import type { CaptureOutcome, CaptureTaskResult } from './tasks.js';

export function runCaptureGroup(requests: readonly CaptureRequest[], auth: AuthStore, maxDecompressedBytes: number): CaptureTaskResult {
  const outcomes: CaptureOutcome[] = new Array(requests.length);
  const stats: IngestStats & { dropped: Record<DropReason, number> } = {
    accepted: 0,
    dropped: { no_event_name: 0, no_distinct_id: 0, performance_event: 0 },
    batchSizes: [],
  };
  const now = new Date();
  const accepted: AcceptedRequest[] = [];
  for (let i = 0; i < requests.length; i++) {
    try {
      const p = prepareOne(requests[i] as CaptureRequest, now, stats, auth, maxDecompressedBytes);
      if (p.events.length > 0) accepted.push({ index: i, events: p.events });
      outcomes[i] =
        p.projectId === undefined
          ? { ok: true, status: p.beacon ? 204 : 200 }
          : { ok: true, status: p.beacon ? 204 : 200, projectId: p.projectId };
    } catch (err) {
      outcomes[i] = { ok: false, error: serializeError(asCatalogued(err)) };
    }
  }
  const { block, kept } = encodeAccepted(accepted, outcomes);
  for (const a of kept) stats.accepted += a.events.length;
  return { outcomes, stats, block };
}

interface AcceptedRequest {
  index: number;
  events: StoredEvent[];
}

/**
 * The accepted requests' events as one block, and the requests it holds. A request's events join
 * it only if none is over the per-event limit (each event's own encoding); only a block over the
 * limit can hold such an event, so the events are measured one by one only then, and a request
 * with one is refused (its outcome replaced) and left out.
 */
function encodeAccepted(
  accepted: readonly AcceptedRequest[],
  outcomes: CaptureOutcome[],
): { block: Uint8Array | null; kept: readonly AcceptedRequest[] } {
  const encode = (list: readonly AcceptedRequest[]) => (list.length === 0 ? null : encodeBlock(list.flatMap((a) => a.events)));
  const block = encode(accepted);
  if (block === null || block.length <= MAX_EVENT_BYTES) return { block, kept: accepted };
  const kept = accepted.filter((a) => {
    for (let i = 0; i < a.events.length; i++) {
      const size = encodedEventSize(a.events[i]!);
      if (size <= MAX_EVENT_BYTES) continue;
      const error = catalogueError('HR_EVENT_TOO_LARGE', { index: i, size, max_bytes: MAX_EVENT_BYTES });
      outcomes[a.index] = { ok: false, error: serializeError(error) };
      return false;
    }
    return true;
  });
  return kept.length === accepted.length ? { block, kept } : { block: encode(kept), kept };
}

/** One request's events, normalized; throws its error (which the group answers for it alone). */
function prepareOne(
  req: CaptureRequest,
  now: Date,
  stats: IngestStats & { dropped: Record<DropReason, number> },
  auth: AuthStore,
  maxDecompressedBytes: number,
): { events: StoredEvent[]; beacon: boolean; projectId?: number } {
  const prepared = prepareCapture(req, maxDecompressedBytes);
  stats.dropped.performance_event += prepared.body.filteredPerformanceEvents;
  if (prepared.body.events.length === 0) return { events: [], beacon: prepared.beacon };
  const project = resolveCaptureProject(auth, prepared.token, prepared.projectIdHint);
  const { events, dropped } = normalizeCapture(prepared, project.id, now);
  stats.dropped.no_event_name += dropped.no_event_name;
  stats.dropped.no_distinct_id += dropped.no_distinct_id;
  (stats.batchSizes as number[]).push(prepared.body.events.length);
  return { events, beacon: prepared.beacon, projectId: project.id };
}

function asCatalogued(err: unknown): HedgerowError {
  if (isHedgerowError(err)) return err;
  // Anything else is a bug: answer 500 (SDKs retry it) and let the main thread log what broke.
  return catalogueError('HR_INTERNAL_ERROR', { reason: err instanceof Error ? err.message : String(err) });
}

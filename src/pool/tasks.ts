/** The messages between the main thread and the worker pool (plain, structured-cloneable data). */
import type { HashKeyWrite } from '../store/hash-key-override-store.js';
import type { CursorPage } from '../compat/drf-cursor-pagination.js';
import type { SerializedError } from '../errors.js';
import type { FlagsHttpRequest, FlagsOutcome } from '../flag-requests/run-flags-request.js';
import type { CaptureRequest } from '../ingest/types.js';
import type { IngestStats } from '../observability/metrics.js';
import type { EventsPageQuery } from '../persons/person-events-query.js';
import type { GroupsPageQuery } from '../persons/scan-groups.js';
import type { PersonsNamed, PersonsNamedQuery, PersonsPage, PersonsPageQuery } from '../persons/scan-persons.js';
import type { GroupRecord } from '../store/group-store.js';
import type { PersonRecord } from '../store/person-store.js';
import type { EventsApiPage } from '../store/list-events.js';

import type { NiceResult } from '../util/thread-priority.js';

export interface WorkerSetup {
  dataDir: string;
  sync: 'durable' | 'async' | 'none';
  maxDecompressedBytes: number;
  /** Added to each worker thread's nice value at start (src/util/thread-priority.ts). */
  nice: number;
  /** Cluster mode: experience-continuity hash keys come back with the flags task's result, not into the store. */
  replicateHashKeys?: boolean;
}

interface CaptureTask {
  kind: 'capture';
  requests: CaptureRequest[];
}

interface FlagsTask {
  kind: 'flags';
  requests: FlagsHttpRequest[];
}

/** A page of the events API, read in slices of `sliceMs` for at most `budgetMs` (src/store/list-events.ts). */
interface EventsPageTask {
  kind: 'events-page';
  query: EventsPageQuery;
  sliceMs: number;
  budgetMs: number;
}

/** A page of the persons list, read in slices of `sliceMs` (src/persons/scan-persons.ts). */
interface PersonsPageTask {
  kind: 'persons-page';
  query: PersonsPageQuery;
  sliceMs: number;
}

/** The person with a UUID, read in slices of `sliceMs`. */
interface PersonByUuidTask {
  kind: 'person-by-uuid';
  projectId: number;
  uuid: string;
  sliceMs: number;
}

/** The distinct ids of the persons a static cohort's members name, read in slices of `sliceMs`. */
interface PersonsNamedTask {
  kind: 'persons-named';
  query: PersonsNamedQuery;
  sliceMs: number;
}

/** A page of the groups list, read in slices of `sliceMs` (src/persons/scan-groups.ts). */
interface GroupsPageTask {
  kind: 'groups-page';
  query: GroupsPageQuery;
  sliceMs: number;
}

interface PingTask {
  kind: 'ping';
}

export type PoolTask =
  | CaptureTask
  | FlagsTask
  | EventsPageTask
  | PersonsPageTask
  | PersonByUuidTask
  | PersonsNamedTask
  | GroupsPageTask
  | PingTask;

/**
 * The outcome of one capture request: accepted (with the success status, and the project its key
 * named when it carried events: for the access log) or a catalogued error.
 */
export type CaptureOutcome = { ok: true; status: 200 | 204; projectId?: number } | { ok: false; error: SerializedError };

export interface CaptureTaskResult {
  /** Per request; an `ok` outcome holds only once `block` is committed. */
  outcomes: CaptureOutcome[];
  stats: IngestStats;
  /** The accepted events of every request, encoded as one event-log block; null when none. */
  block: Uint8Array | null;
}

export interface FlagsTaskResult {
  /** Per request, in order. */
  outcomes: FlagsOutcome[];
  /** Cluster mode: the hash keys the requests wrote, for the cluster. */
  hashKeys?: HashKeyWrite[];
}

/** A worker's answer to `ping`: it has started, opened the store and tried to lower its priority. */
export interface PongResult {
  nice: NiceResult;
}

export interface PersonByUuidResult {
  person: PersonRecord | undefined;
}

export type PoolTaskResult =
  | CaptureTaskResult
  | FlagsTaskResult
  | EventsApiPage
  | PersonsPage
  | PersonByUuidResult
  | PersonsNamed
  | CursorPage<GroupRecord>
  | PongResult;

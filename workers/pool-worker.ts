/**
 * Piscina task module: a thin adapter that opens the store once per worker and runs capture
 * groups (src/pool/capture-group.ts), flag evaluations (src/flag-requests/) and the API reads that
 * go through a whole table (src/pool/scan-pool.ts) for the main thread.
 */
import type { HashKeyWrite } from '../src/store/hash-key-override-store.js';
import { workerData } from 'node:worker_threads';
import { flagsRequestDeps } from '../src/flag-requests/flags-deps.js';
import { runFlagsRequest } from '../src/flag-requests/run-flags-request.js';
import { resolvePersonFilter } from '../src/persons/person-events-query.js';
import { scanGroupsPage } from '../src/persons/scan-groups.js';
import { scanPersonByUuid, scanPersonsNamed, scanPersonsPage } from '../src/persons/scan-persons.js';
import { runCaptureGroup } from '../src/pool/capture-group.js';
import type { PoolTask, PoolTaskResult, WorkerSetup } from '../src/pool/tasks.js';
import { AuthStore } from '../src/store/auth-store.js';
import { listEventsPaced } from '../src/store/list-events.js';
import { openStore } from '../src/store/open-store.js';
import type { ScanPacing } from '../src/store/scan-in-slices.js';
import { GroupReader } from '../src/store/group-store.js';
import { PersonReader } from '../src/store/person-store.js';
import { collectWhenQuiet, heapRelease, QUIET_COLLECTION } from '../src/util/heap-release.js';
import { lowerThreadPriority } from '../src/util/thread-priority.js';
import { announceThread } from '../src/observability/thread-cpu.js';

announceThread('pool');
const setup = workerData as WorkerSetup;
// Best effort: where threads cannot be reniced the pool runs at the daemon's priority (the
// daemon logs the reason from the ping answers).
const nice = lowerThreadPriority(setup.nice);
const dbs = openStore({ dataDir: setup.dataDir, sync: setup.sync });
const auth = new AuthStore(dbs);
/** Cluster mode: the hash keys a flags task's requests wrote, returned with its result. */
let hashKeys: HashKeyWrite[] = [];
const flagsDeps = flagsRequestDeps(dbs, auth, setup.maxDecompressedBytes, setup.replicateHashKeys ? (w) => hashKeys.push(w) : undefined);
const persons = new PersonReader(dbs);
const groups = new GroupReader(dbs);
/**
 * A capture or flags task may decode and parse up to the decompressed limit (100 MiB by default);
 * once one has grown the heap by this much, a full collection gives it back (src/util/heap-release.ts).
 */
const release = heapRelease({ growthBytes: 64 * 1024 * 1024, idleMs: 100, minIntervalMs: 1000 });
collectWhenQuiet(QUIET_COLLECTION);
/**
 * Starts a read of a whole table: from a fresh snapshot, so that it sees every commit made before
 * the request (an acknowledged event is listed at once; this thread's read transaction can
 * otherwise lag behind the main thread's commits), and with this worker's other tasks run
 * between its slices.
 */
function pacing(sliceMs: number): ScanPacing {
  dbs.root.resetReadTxn();
  return { sliceMs, pause: () => new Promise((resume) => setImmediate(resume)) };
}

export default function run(task: PoolTask): PoolTaskResult | Promise<PoolTaskResult> {
  switch (task.kind) {
    case 'ping':
      return { nice };
    case 'capture': {
      const result = runCaptureGroup(task.requests, auth, setup.maxDecompressedBytes);
      release.afterTask();
      return result;
    }
    case 'events-page': {
      const paced = pacing(task.sliceMs);
      return resolvePersonFilter(persons, task.query, paced).then((q) => listEventsPaced(dbs, q, paced, task.budgetMs));
    }
    case 'persons-page':
      return scanPersonsPage(persons, task.query, pacing(task.sliceMs));
    case 'person-by-uuid':
      return scanPersonByUuid(persons, task.projectId, task.uuid, pacing(task.sliceMs)).then((person) => ({ person }));
    case 'persons-named':
      return scanPersonsNamed(persons, task.query, pacing(task.sliceMs));
    case 'groups-page':
      return scanGroupsPage(groups, task.query, pacing(task.sliceMs));
    case 'flags': {
      const now = new Date();
      const outcomes = task.requests.map((r) => runFlagsRequest(r, flagsDeps, now));
      release.afterTask();
      if (hashKeys.length === 0) return { outcomes };
      const written = hashKeys;
      hashKeys = [];
      return { outcomes, hashKeys: written };
    }
  }
}

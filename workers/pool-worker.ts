/**
 * Piscina task module: a thin adapter that opens the store once per worker and runs capture
 * groups (src/pool/capture-group.ts) and flag evaluations (src/evaluation/) for the main thread.
 */
import { workerData } from 'node:worker_threads';
import { runFlagsRequest, type FlagsRequestDeps } from '../src/evaluation/run-flags-request.js';
import { ProjectFlagsCache } from '../src/evaluation/project-flags-cache.js';
import { runCaptureGroup } from '../src/pool/capture-group.js';
import type { PoolTask, PoolTaskResult, WorkerSetup } from '../src/pool/tasks.js';
import { AuthStore } from '../src/store/auth-store.js';
import { CohortStore } from '../src/store/cohort-store.js';
import { FlagReader } from '../src/store/flag-store.js';
import { GroupReader } from '../src/store/group-store.js';
import { HashKeyOverrideStore } from '../src/store/hash-key-override-store.js';
import { openStore } from '../src/store/open-store.js';
import { PersonReader } from '../src/store/person-store.js';
import { lowerThreadPriority } from '../src/util/thread-priority.js';

const setup = workerData as WorkerSetup;
// Best effort: where threads cannot be reniced the pool runs at the daemon's priority (the
// daemon logs the reason from the ping answers).
const nice = lowerThreadPriority(setup.nice);
const dbs = openStore({ dataDir: setup.dataDir, sync: setup.sync });
const auth = new AuthStore(dbs);
const cohorts = new CohortStore(dbs);
const groups = new GroupReader(dbs);
const flagsDeps: FlagsRequestDeps = {
  auth,
  projects: new ProjectFlagsCache({ flags: new FlagReader(dbs), cohorts, groups }),
  persons: new PersonReader(dbs),
  groups,
  overrides: new HashKeyOverrideStore(dbs),
  cohorts,
  maxDecompressedBytes: setup.maxDecompressedBytes,
};

export default function run(task: PoolTask): PoolTaskResult {
  switch (task.kind) {
    case 'ping':
      return { nice };
    case 'capture':
      return runCaptureGroup(task.requests, auth, setup.maxDecompressedBytes);
    case 'flags': {
      const now = new Date();
      return { outcomes: task.requests.map((r) => runFlagsRequest(r, flagsDeps, now)) };
    }
  }
}

/** What evaluating `/flags` needs from the store, for a thread that has its own handle on it. */
import type { AuthStore } from '../store/auth-store.js';
import { CohortStore } from '../store/cohort-store.js';
import { FlagReader } from '../store/flag-store.js';
import { GroupReader } from '../store/group-store.js';
import { HashKeyOverrideStore, type HashKeyWrite } from '../store/hash-key-override-store.js';
import type { StoreDatabases } from '../store/open-store.js';
import { PersonReader } from '../store/person-store.js';
import { ProjectFlagsCache } from './project-flags-cache.js';
import type { FlagsRequestDeps } from './run-flags-request.js';

/** `replicateHashKeys` (cluster mode): experience-continuity hash keys go there instead of into the store. */
export function flagsRequestDeps(
  dbs: StoreDatabases,
  auth: AuthStore,
  maxDecompressedBytes: number,
  replicateHashKeys?: (w: HashKeyWrite) => void,
): FlagsRequestDeps {
  const cohorts = new CohortStore(dbs);
  const groups = new GroupReader(dbs);
  return {
    auth,
    projects: new ProjectFlagsCache({ flags: new FlagReader(dbs), cohorts, groups }),
    persons: new PersonReader(dbs),
    groups,
    overrides: new HashKeyOverrideStore(dbs, replicateHashKeys),
    cohorts,
    maxDecompressedBytes,
  };
}

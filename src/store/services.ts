/**
 * The store's readers and writers, made once per daemon from its one LMDB environment and shared
 * by every route (they hold no state of their own beyond the databases). Making them writes
 * nothing: the dashboard link secret, made on first use, stays with its route.
 */
import { ActivityLog } from './activity-log.js';
import { AuthStore } from './auth-store.js';
import { CohortStore } from './cohort-store.js';
import { DashboardStore } from './dashboard-store.js';
import { FlagStore } from './flag-store.js';
import { GroupReader } from './group-store.js';
import { HashKeyOverrideStore } from './hash-key-override-store.js';
import type { StoreDatabases } from './open-store.js';
import { PersonReader } from './person-store.js';
import { RbacStore } from './rbac-store.js';
import { UsageRollupReader } from './usage-rollups.js';

export interface StoreServices {
  readonly dbs: StoreDatabases;
  readonly auth: AuthStore;
  readonly persons: PersonReader;
  readonly groups: GroupReader;
  readonly overrides: HashKeyOverrideStore;
  readonly cohorts: CohortStore;
  readonly activity: ActivityLog;
  readonly dashboards: DashboardStore;
  readonly flags: FlagStore;
  readonly rbac: RbacStore;
  readonly rollups: UsageRollupReader;
}

export function createStoreServices(dbs: StoreDatabases): StoreServices {
  const activity = new ActivityLog(dbs);
  const dashboards = new DashboardStore(dbs);
  return Object.freeze({
    dbs,
    auth: new AuthStore(dbs),
    persons: new PersonReader(dbs),
    groups: new GroupReader(dbs),
    overrides: new HashKeyOverrideStore(dbs),
    cohorts: new CohortStore(dbs),
    activity,
    dashboards,
    flags: new FlagStore(dbs, activity, dashboards),
    rbac: new RbacStore(dbs),
    rollups: new UsageRollupReader(dbs),
  });
}

/**
 * Every route of PostHog's project-scoped management API (docs/api.md), added in one call from
 * the store's services. Register them after the flag definitions routes: fixed segments after
 * `/feature_flags/` must be known before the `:id` routes.
 */
import type { BlastRadiusQuery } from '../blast-radius/blast-radius-index.js';
import { ProjectFlagsCache } from '../flag-requests/project-flags-cache.js';
import type { Router } from '../http/router.js';
import type { ScanPool } from '../pool/scan-pool.js';
import type { BlastRadiusReply } from '../processing/processor-messages.js';
import type { StoreServices } from '../store/services.js';
import { addCohortsApiRoutes } from './cohorts-api.js';
import { addDashboardsApiRoutes } from './dashboards-api.js';
import { addEventsApiRoutes } from './events-api.js';
import { addFeatureFlagsApiRoutes } from './feature-flags-api.js';
import { addFlagActivityRoutes } from './flag-activity-api.js';
import { addFlagBlastRadiusRoutes } from './flag-blast-radius-api.js';
import { flagEditPermission } from './flag-edit-permission.js';
import { addFlagEvaluationViewRoutes } from './flag-evaluation-views-api.js';
import { addFlagRoleAccessRoutes } from './flag-role-access-api.js';
import { addFlagUsageDashboardRoutes } from './flag-usage-dashboard-api.js';
import { addGroupsApiRoutes } from './groups-api.js';
import { addPersonsApiRoutes } from './persons-api.js';
import { addRolesApiRoutes } from './roles-api.js';

export interface ManagementApiDeps {
  readonly services: StoreServices;
  /** The pool's whole-table reads; throws HR_NOT_READY before the workers are up. */
  readonly scans: () => ScanPool;
  /** Asks the person processor's tables; undefined while it is not running. */
  readonly blastRadius: (query: BlastRadiusQuery) => Promise<BlastRadiusReply> | undefined;
  /** Drops the read snapshot so that a read sees every commit so far. */
  readonly freshReads: () => void;
  readonly maxPropertyValues: number;
}

export function addManagementApiRoutes(router: Router, deps: ManagementApiDeps): void {
  const { services, scans } = deps;
  const { auth, flags, cohorts, persons, groups, rbac, dashboards } = services;
  const editPermission = flagEditPermission(rbac);
  addEventsApiRoutes(router, { auth, scans, groups, persons });
  addCohortsApiRoutes(router, { auth, cohorts, flags, scans });
  addPersonsApiRoutes(router, { auth, persons, scans });
  addGroupsApiRoutes(router, { auth, groups, scans });
  addRolesApiRoutes(router, { auth, rbac, flagKey: (projectId, id) => flags.get(projectId, id)?.key });
  addFlagActivityRoutes(router, { auth, flags, activity: services.activity });
  addFlagEvaluationViewRoutes(router, {
    auth,
    flags,
    projects: new ProjectFlagsCache({ flags, cohorts, groups }),
    sources: { persons, groups, overrides: services.overrides, cohorts },
  });
  addFlagRoleAccessRoutes(router, { auth, flags, rbac, editPermission });
  addFlagUsageDashboardRoutes(router, { auth, flags, editPermission });
  addFlagBlastRadiusRoutes(router, { auth, blastRadius: deps.blastRadius });
  addDashboardsApiRoutes(router, {
    auth,
    dashboards,
    rollups: services.rollups,
    linkSecret: services.linkSecret,
    freshReads: deps.freshReads,
  });
  addFeatureFlagsApiRoutes(router, {
    auth,
    flags,
    editPermission,
    dashboardExists: (projectId, id) => dashboards.get(projectId, id) !== undefined,
    cohort: (projectId, id) => cohorts.get(projectId, id),
    maxPropertyValues: deps.maxPropertyValues,
  });
}

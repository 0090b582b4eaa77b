/**
 * Where imported records came from: the Hedgerow cohort made from each PostHog cohort id, per
 * project (`meta`: `posthog_cohort:<project>:<posthog id>` → cohort id). Running an import again
 * updates those cohorts instead of making new ones. (Flags need no record: they are matched by key.)
 */
import type { StoreDatabases } from './open-store.js';

const cohortKey = (projectId: number, posthogId: number): string => `posthog_cohort:${projectId}:${posthogId}`;

export class ImportOrigins {
  constructor(private readonly dbs: StoreDatabases) {}

  /** The cohort imported from PostHog's cohort `posthogId`, if any was. */
  cohortFromPostHog(projectId: number, posthogId: number): number | undefined {
    return this.dbs.meta.get(cohortKey(projectId, posthogId)) as number | undefined;
  }

  recordCohortFromPostHog(projectId: number, posthogId: number, cohortId: number): void {
    this.dbs.meta.putSync(cohortKey(projectId, posthogId), cohortId);
  }
}

/**
 * Feature flags in the `flags` database. Every change runs in one synchronous LMDB transaction
 * that re-reads the flag, validates (the caller's `prepare`, which sees the transaction's view, so
 * key uniqueness holds across processes), writes the record and its key index, bumps the project's
 * flag version (evaluation snapshots rebuild when it moves) and appends the activity entry.
 * Concurrent writers are serialized by LMDB's write lock, so no update is lost.
 */
import { HedgerowError } from '../errors.js';
import { flagChanges } from '../flags/activity-changes.js';
import { applyFlagWrite, type FeatureFlagRecord, type FlagWrite } from '../flags/feature-flag.js';
import { isoMicros } from '../compat/iso-micros.js';
import type { ActivityChange, ActivityLog, ActivityUser, ActivityVerb } from './activity-log.js';
import type { User } from './auth-store.js';
import { hasEnrichedInsights } from '../dashboards/usage-insights.js';
import type { DashboardStore } from './dashboard-store.js';
import { nextId, type StoreDatabases } from './open-store.js';

const K = {
  flag: (project: number, id: number) => ['flag', project, id],
  key: (project: number, key: string) => ['flag_key', project, key],
  version: (project: number) => ['flags_version', project],
};

export const FLAG_ACTIVITY_SCOPE = 'FeatureFlag';

export type EnrichOutcome = 'enriched' | 'no_usage_dashboard' | 'already_enriched' | 'no_enriched_analytics';

/** Reads of the project's flags: all a worker needs to build evaluation snapshots. */
export class FlagReader {
  constructor(protected readonly dbs: StoreDatabases) {}

  get(projectId: number, id: number): FeatureFlagRecord | undefined {
    return this.dbs.flags.get(K.flag(projectId, id)) as FeatureFlagRecord | undefined;
  }

  /** Every flag of the project, deleted ones included, in id order. */
  list(projectId: number): FeatureFlagRecord[] {
    const out: FeatureFlagRecord[] = [];
    for (const { value } of this.dbs.flags.getRange({
      start: ['flag', projectId, 0],
      end: ['flag', projectId, Number.MAX_SAFE_INTEGER],
    })) {
      out.push(value as FeatureFlagRecord);
    }
    return out;
  }

  /** The id of the project's live (not deleted) flag with this key. */
  liveIdByKey(projectId: number, key: string): number | undefined {
    return this.dbs.flags.get(K.key(projectId, key)) as number | undefined;
  }

  /** Moves on every change to the project's flags or cohorts; evaluation snapshots compare it. */
  flagsVersion(projectId: number): number {
    return (this.dbs.flags.get(K.version(projectId)) as number | undefined) ?? 0;
  }
}

export class FlagStore extends FlagReader {
  constructor(
    dbs: StoreDatabases,
    private readonly activity: ActivityLog,
    private readonly dashboards: DashboardStore,
  ) {
    super(dbs);
  }

  /**
   * Creates a flag. `prepare` runs inside the transaction and returns the validated fields (or
   * throws); the flag gets its usage dashboard and a `created` activity entry in the same commit.
   */
  create(projectId: number, actor: User, prepare: () => FlagWrite): FeatureFlagRecord {
    return this.dbs.root.transactionSync(() => {
      const write = prepare();
      const now = isoMicros();
      const id = nextId(this.dbs, 'feature_flag');
      const key = write.key;
      if (key === undefined) throw new HedgerowError('HR_FIELD_REQUIRED', undefined, 'key');
      const dashboard = this.dashboards.createUsageDashboardInTransaction({
        projectId,
        flagKey: key,
        createdBy: actor.id,
        createdAt: now,
      });
      const flag: FeatureFlagRecord = {
        id,
        project_id: projectId,
        key,
        name: write.name ?? '',
        filters: write.filters ?? {},
        deleted: write.deleted ?? false,
        active: write.active ?? true,
        created_by: actor.id,
        created_at: write.created_at ?? now,
        updated_at: now,
        last_modified_by: actor.id,
        version: 1,
        ensure_experience_continuity: write.ensure_experience_continuity ?? false,
        rollback_conditions: write.rollback_conditions ?? null,
        // PostHog resets it whenever the flag is created active.
        performed_rollback: (write.active ?? true) ? false : (write.performed_rollback ?? false),
        tags: write.tags ?? [],
        evaluation_tags: write.evaluation_tags ?? [],
        usage_dashboard: dashboard.id,
        analytics_dashboards: write.analytics_dashboards ?? [],
        has_enriched_analytics: write.has_enriched_analytics ?? false,
        evaluation_runtime: write.evaluation_runtime ?? 'all',
        // The model default; null and '' are stored as sent, as PostHog does.
        bucketing_identifier: write.bucketing_identifier === undefined ? 'distinct_id' : write.bucketing_identifier,
        is_remote_configuration: write.is_remote_configuration ?? false,
        has_encrypted_payloads: write.has_encrypted_payloads ?? false,
        last_called_at: null,
      };
      this.dbs.flags.putSync(K.flag(projectId, id), flag);
      if (!flag.deleted) this.dbs.flags.putSync(K.key(projectId, key), id);
      this.bumpVersion(projectId);
      this.log(flag, actor, 'created', [], now);
      return flag;
    });
  }

  /**
   * Updates a flag. `prepare` gets the current record inside the transaction and returns the
   * validated fields to change (or throws). The version always moves by one, as in PostHog.
   * Throws HR_NOT_FOUND when the flag is not in the project.
   */
  update(projectId: number, id: number, actor: User, prepare: (current: FeatureFlagRecord) => FlagWrite): FeatureFlagRecord {
    return this.dbs.root.transactionSync(() => {
      const current = this.get(projectId, id);
      if (!current) throw new HedgerowError('HR_NOT_FOUND');
      const write = prepare(current);
      const now = isoMicros();
      const next: FeatureFlagRecord = {
        ...applyFlagWrite(current, write),
        version: (current.version ?? 0) + 1,
        updated_at: now,
        last_modified_by: actor.id,
      };
      this.dbs.flags.putSync(K.flag(projectId, id), next);
      this.reindexKey(current, next);
      if (next.key !== current.key && next.usage_dashboard !== null) {
        this.dashboards.renameFlagKeyInTransaction(projectId, next.usage_dashboard, current.key, next.key);
      }
      this.bumpVersion(projectId);
      const verb: ActivityVerb = next.deleted && !current.deleted ? 'deleted' : !next.deleted && current.deleted ? 'restored' : 'updated';
      this.log(next, actor, verb, flagChanges(current, next), now);
      return next;
    });
  }

  /**
   * The flag's `dashboard` action: a new usage dashboard (even if one exists), enriched when the
   * flag has enriched analytics, and the flag re-pointed to it. Like PostHog's model save, this
   * moves neither the flag's version nor the activity log.
   */
  regenerateUsageDashboard(projectId: number, id: number, actor: User): FeatureFlagRecord {
    return this.dbs.root.transactionSync(() => {
      const current = this.get(projectId, id);
      if (!current) throw new HedgerowError('HR_NOT_FOUND');
      let dashboard = this.dashboards.createUsageDashboardInTransaction({
        projectId,
        flagKey: current.key,
        createdBy: actor.id,
        createdAt: isoMicros(),
      });
      if (current.has_enriched_analytics) dashboard = this.dashboards.enrichInTransaction(dashboard, current.key);
      const next = { ...current, usage_dashboard: dashboard.id };
      this.dbs.flags.putSync(K.flag(projectId, id), next);
      return next;
    });
  }

  /** The flag's `enrich_usage_dashboard` action, with PostHog's checks in its order. */
  enrichUsageDashboard(projectId: number, id: number): EnrichOutcome {
    return this.dbs.root.transactionSync(() => {
      const flag = this.get(projectId, id);
      if (!flag) throw new HedgerowError('HR_NOT_FOUND');
      const dashboard = flag.usage_dashboard === null ? undefined : this.dashboards.get(projectId, flag.usage_dashboard);
      if (!dashboard) return 'no_usage_dashboard';
      if (hasEnrichedInsights(dashboard.tiles)) return 'already_enriched';
      if (!flag.has_enriched_analytics) return 'no_enriched_analytics';
      this.dashboards.enrichInTransaction(dashboard, flag.key);
      return 'enriched';
    });
  }

  private reindexKey(before: FeatureFlagRecord, after: FeatureFlagRecord): void {
    const p = after.project_id;
    if (!before.deleted && this.liveIdByKey(p, before.key) === before.id) this.dbs.flags.removeSync(K.key(p, before.key));
    if (!after.deleted) this.dbs.flags.putSync(K.key(p, after.key), after.id);
  }

  private bumpVersion(projectId: number): void {
    bumpFlagsVersion(this.dbs, projectId);
  }

  private log(flag: FeatureFlagRecord, actor: User, verb: ActivityVerb, changes: ActivityChange[], now: string): void {
    const user: ActivityUser = { first_name: actor.first_name, email: actor.email };
    this.activity.appendInTransaction({
      project_id: flag.project_id,
      user,
      activity: verb,
      scope: FLAG_ACTIVITY_SCOPE,
      item_id: String(flag.id),
      detail: { changes, trigger: null, type: null, name: flag.key, short_id: null },
      created_at: now,
    });
  }
}

/**
 * Moves the project's flag version (what evaluation snapshots compare). Call inside the write
 * transaction of anything evaluation reads: flags, and the cohorts their conditions reference.
 */
export function bumpFlagsVersion(dbs: StoreDatabases, projectId: number): void {
  const current = (dbs.flags.get(K.version(projectId)) as number | undefined) ?? 0;
  dbs.flags.putSync(K.version(projectId), current + 1);
}

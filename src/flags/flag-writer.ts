/**
 * Creating and updating a flag under every rule PostHog's API applies (docs/compatibility.md#flag-validation,
 * #updates-and-deletion): field validation, flag dependencies, version conflicts, and the soft
 * delete, restore, enable and disable rules. The management API and the PostHog import both write
 * through it, so an imported flag is checked exactly as one created through the API.
 */
import { catalogueError, HedgerowError } from '../errors.js';
import type { User } from '../store/auth-store.js';
import type { FlagStore } from '../store/flag-store.js';
import { applyFlagWrite, type FeatureFlagRecord, type FlagWrite } from './feature-flag.js';
import { activeDependents, checkFlagDependencies, dependencyIds, describeFlags } from './flag-dependencies.js';
import { type CohortInfo, type FlagValidationContext, validateFlagWrite } from './validate-flag-write.js';
import { findVersionConflict, versionConflictError } from './version-conflict.js';

export interface FlagWriterDeps {
  flags: FlagStore;
  /** The project's cohorts, for cohort references in filters. */
  cohort(projectId: number, id: number): CohortInfo | undefined;
  /** Whether the project has this dashboard (for `analytics_dashboards`). */
  dashboardExists(projectId: number, id: number): boolean;
  /** The email of a user, for the version conflict message. */
  userEmail(id: number): string | undefined;
  maxPropertyValues: number;
}

type Body = Readonly<Record<string, unknown>>;

export class FlagWriter {
  constructor(private readonly deps: FlagWriterDeps) {}

  /** Creates a flag from an API body (POST); throws catalogued errors. */
  create(projectId: number, actor: User, body: Body): FeatureFlagRecord {
    return this.deps.flags.create(projectId, actor, () => {
      const write = validateFlagWrite(body, this.validationContext(projectId, 'create'));
      if (write.filters) {
        checkFlagDependencies({ id: undefined, key: write.key ?? '', filters: write.filters }, this.flagMap(projectId));
      }
      return write;
    });
  }

  /** Updates a flag from an API body (PATCH or PUT); throws catalogued errors. */
  update(projectId: number, id: number, actor: User, body: Body, mode: 'patch' | 'put'): FeatureFlagRecord {
    return this.deps.flags.update(projectId, id, actor, (current) => this.prepareUpdate(current, body, mode));
  }

  /**
   * The validated change an update would make, without writing it (the import compares it with
   * the stored flag first). Throws what `update` would throw.
   */
  prepareUpdate(current: FeatureFlagRecord, body: Body, mode: 'patch' | 'put'): FlagWrite {
    const write = validateFlagWrite(body, { ...this.validationContext(current.project_id, mode), current });
    if (findVersionConflict(body, current, write)) {
      const by = current.last_modified_by === null ? undefined : this.deps.userEmail(current.last_modified_by);
      throw versionConflictError(by);
    }
    this.checkStateChange(current, write);
    return write;
  }

  /**
   * The soft delete, restore, enable/disable and dependency rules of an update
   * (docs/compatibility.md#updates-and-deletion).
   */
  private checkStateChange(current: FeatureFlagRecord, write: FlagWrite): void {
    const flags = this.flagMap(current.project_id);
    const next = applyFlagWrite(current, write);
    if (next.deleted && !current.deleted) {
      const dependents = activeDependents(current.id, flags.values());
      if (dependents.length > 0) {
        throw catalogueError('HR_FLAG_DELETE_HAS_DEPENDENTS', { flags: describeFlags(dependents) });
      }
    }
    // A restore takes the key back (a key sent in the body was already checked by validation).
    if (current.deleted && !next.deleted) {
      const holder = this.deps.flags.liveIdByKey(current.project_id, next.key);
      if (holder !== undefined && holder !== current.id) {
        throw new HedgerowError('HR_FLAG_KEY_TAKEN');
      }
    }
    if (current.active && !next.active && !next.deleted) {
      const dependents = activeDependents(current.id, flags.values());
      if (dependents.length > 0) {
        throw catalogueError('HR_FLAG_DISABLE_HAS_DEPENDENTS', { flags: describeFlags(dependents) });
      }
    }
    if (!current.active && next.active) {
      const disabled = dependencyIds(next.filters)
        .map((id) => flags.get(id))
        .filter((f): f is FeatureFlagRecord => f !== undefined && (!f.active || f.deleted));
      if (disabled.length > 0) {
        throw catalogueError('HR_FLAG_ENABLE_DEPENDS_ON_DISABLED', { flags: describeFlags(disabled) });
      }
    }
    if (write.filters) checkFlagDependencies({ id: current.id, key: next.key, filters: write.filters }, flags);
  }

  private validationContext(projectId: number, mode: 'create' | 'patch' | 'put'): FlagValidationContext {
    return {
      mode,
      liveFlagIdByKey: (key: string) => this.deps.flags.liveIdByKey(projectId, key),
      cohort: (id: number) => this.deps.cohort(projectId, id),
      dashboardExists: (id: number) => this.deps.dashboardExists(projectId, id),
      maxPropertyValues: this.deps.maxPropertyValues,
    };
  }

  private flagMap(projectId: number): Map<number, FeatureFlagRecord> {
    return new Map(this.deps.flags.list(projectId).map((f) => [f.id, f]));
  }
}

/**
 * A feature flag as the management API returns it (docs/compatibility.md#flag-fields): the stored
 * fields plus the read-only ones computed per request (`filters` normalised, `is_simple_flag`,
 * `rollout_percentage`, `can_edit` for the caller, `created_by` as a user object, `status`).
 * Hedgerow has no experiments, surveys or early access features, so those lists are empty.
 */
import { apiDateTime, apiDateTimeOrNull } from '../compat/iso-micros.js';
import { bucketingIdentifierOf, type FeatureFlagRecord } from '../flags/feature-flag.js';
import { flagStatus, isSimpleFlag, normalizedFilters, simpleRolloutPercentage } from '../flags/flag-view.js';
import type { AuthStore, User } from '../store/auth-store.js';
import { basicUserOrNull } from './serialize-user.js';

export interface FlagRenderContext {
  user(id: number): User | undefined;
  /** Whether the requesting user may edit this flag. */
  canEdit(flag: FeatureFlagRecord): boolean;
  now: Date;
}

export function renderFlag(flag: FeatureFlagRecord, ctx: FlagRenderContext): Record<string, unknown> {
  const userObject = (id: number | null) => basicUserOrNull((u) => ctx.user(u), id);
  const canEdit = ctx.canEdit(flag);
  return {
    id: flag.id,
    name: flag.name,
    key: flag.key,
    filters: normalizedFilters(flag),
    deleted: flag.deleted,
    active: flag.active,
    created_by: userObject(flag.created_by),
    created_at: apiDateTime(flag.created_at),
    updated_at: apiDateTime(flag.updated_at),
    version: flag.version,
    last_modified_by: userObject(flag.last_modified_by),
    is_simple_flag: isSimpleFlag(flag),
    rollout_percentage: simpleRolloutPercentage(flag),
    ensure_experience_continuity: flag.ensure_experience_continuity,
    experiment_set: [],
    surveys: [],
    features: [],
    rollback_conditions: flag.rollback_conditions,
    performed_rollback: flag.performed_rollback,
    can_edit: canEdit,
    tags: flag.tags,
    evaluation_tags: flag.evaluation_tags,
    usage_dashboard: flag.usage_dashboard,
    analytics_dashboards: flag.analytics_dashboards,
    has_enriched_analytics: flag.has_enriched_analytics,
    user_access_level: canEdit ? 'editor' : 'viewer',
    is_remote_configuration: flag.is_remote_configuration,
    has_encrypted_payloads: flag.has_encrypted_payloads,
    status: flagStatus(flag, ctx.now),
    evaluation_runtime: flag.evaluation_runtime,
    bucketing_identifier: bucketingIdentifierOf(flag),
    last_called_at: apiDateTimeOrNull(flag.last_called_at),
  };
}

/** The render context of one request: users looked up once each, `can_edit` for the caller. */
export function flagRenderContextFor(
  auth: AuthStore,
  canEdit: (flag: FeatureFlagRecord) => boolean,
  now: Date = new Date(),
): FlagRenderContext {
  const users = new Map<number, User | undefined>();
  return {
    user: (id) => {
      if (!users.has(id)) users.set(id, auth.user(id));
      return users.get(id);
    },
    canEdit,
    now,
  };
}

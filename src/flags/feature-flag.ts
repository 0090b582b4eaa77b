/**
 * The feature flag as Hedgerow stores it, and the writable fields a management request may set.
 * One format for every reader: the management API, the activity log and (later) the evaluation
 * snapshot all read `FeatureFlagRecord`s from the `flags` database.
 */

export type EvaluationRuntime = 'server' | 'client' | 'all';
export const EVALUATION_RUNTIMES: readonly EvaluationRuntime[] = ['server', 'client', 'all'];

/** What a flag's rollouts and variants hash (docs/compatibility.md#hashing-and-bucketing). */
export type BucketingIdentifier = 'distinct_id' | 'device_id';
export const BUCKETING_IDENTIFIERS: readonly BucketingIdentifier[] = ['distinct_id', 'device_id'];
/** As PostHog's nullable, blank-allowed model field stores it; null and '' bucket by distinct id. */
export type StoredBucketingIdentifier = BucketingIdentifier | '' | null;

/** `filters` as PostHog stores them: a free-form object; the checked shape is in flag-filters.ts. */
export type FlagFilters = Record<string, unknown>;

export interface FeatureFlagRecord {
  id: number;
  project_id: number;
  key: string;
  /** The flag's description (PostHog keeps the old field name). */
  name: string;
  /** As stored: `{}` for a flag created without filters (read back as one default group). */
  filters: FlagFilters;
  deleted: boolean;
  active: boolean;
  /** User id, null when unknown. */
  created_by: number | null;
  /** ISO 8601 with microseconds and `Z`, as PostHog prints it. */
  created_at: string;
  updated_at: string;
  last_modified_by: number | null;
  version: number;
  ensure_experience_continuity: boolean;
  rollback_conditions: unknown;
  performed_rollback: boolean;
  /** Tagified (trimmed, lower-cased, de-duplicated), in the order first given. */
  tags: string[];
  evaluation_tags: string[];
  usage_dashboard: number | null;
  analytics_dashboards: number[];
  has_enriched_analytics: boolean;
  evaluation_runtime: EvaluationRuntime;
  /**
   * Absent on flags stored before Hedgerow kept the field: read those with
   * `bucketingIdentifierOf` (docs/compatibility.md#flag-fields).
   */
  bucketing_identifier?: StoredBucketingIdentifier;
  is_remote_configuration: boolean;
  has_encrypted_payloads: boolean;
  /** When an evaluation last returned this flag (null: never); feeds `active=STALE`. */
  last_called_at: string | null;
}

/**
 * Fields a request may write, after validation and coercion. Absent means "not sent" (PATCH keeps
 * the stored value; create and PUT use the model default).
 */
export interface FlagWrite {
  key?: string;
  name?: string;
  filters?: FlagFilters;
  deleted?: boolean;
  active?: boolean;
  created_at?: string;
  ensure_experience_continuity?: boolean;
  rollback_conditions?: unknown;
  performed_rollback?: boolean;
  tags?: string[];
  evaluation_tags?: string[];
  analytics_dashboards?: number[];
  has_enriched_analytics?: boolean;
  evaluation_runtime?: EvaluationRuntime;
  bucketing_identifier?: StoredBucketingIdentifier;
  is_remote_configuration?: boolean;
  has_encrypted_payloads?: boolean;
}

/**
 * The flag's stored bucketing identifier. A flag stored before Hedgerow kept the field reads as
 * the model default `distinct_id`, the value Django's added column gives rows that predate it
 * (docs/compatibility.md#flag-fields).
 */
export function bucketingIdentifierOf(flag: FeatureFlagRecord): StoredBucketingIdentifier {
  return flag.bucketing_identifier === undefined ? 'distinct_id' : flag.bucketing_identifier;
}

/** The flag with the fields a write sets (absent or undefined fields keep their value). */
export function applyFlagWrite(flag: FeatureFlagRecord, write: FlagWrite): FeatureFlagRecord {
  const next: Record<string, unknown> = { ...flag };
  for (const [k, v] of Object.entries(write)) if (v !== undefined) next[k] = v;
  return next as unknown as FeatureFlagRecord;
}

/** The model fields in PostHog's model order: the order activity changes are listed in. */
export const LOGGED_FIELDS = [
  'key',
  'name',
  'filters',
  'deleted',
  'active',
  'rollback_conditions',
  'performed_rollback',
  'ensure_experience_continuity',
  'usage_dashboard',
  'analytics_dashboards',
  'has_enriched_analytics',
  'is_remote_configuration',
  'has_encrypted_payloads',
  'evaluation_runtime',
  'bucketing_identifier',
  'tags',
  'evaluation_tags',
  'version',
] as const satisfies readonly (keyof FeatureFlagRecord)[];

/**
 * A create/PATCH/PUT body of the flag management API checked and coerced into a `FlagWrite`
 * (docs/compatibility.md#flag-fields, #flag-validation). Throws the one error PostHog reports
 * (#errors): field errors in the serializer's field order (the first failing field wins), then the
 * non-field `validate()` rule (attr null), then on create the dry-run check of `create()` (attr
 * null). Unknown and read-only body fields (`id`, `created_by`, `is_simple_flag`, …) are ignored.
 */
import { writeTime } from '../util/write-context.js';

import { catalogueError, HedgerowError } from '../errors.js';
import type { CohortInfo } from './cohort-checks.js';
import { FLAG_KEY_FORMAT, FLAG_KEY_MAX_LENGTH } from './flag-key.js';
import {
  readBooleanField,
  readCharField,
  readChoiceField,
  readDateTimeField,
  readDictField,
  readIntegerField,
  readListField,
  readPrimaryKeyList,
  readStringItem,
} from '../compat/drf-fields.js';
import {
  BUCKETING_IDENTIFIERS,
  bucketingIdentifierOf,
  EVALUATION_RUNTIMES,
  type FeatureFlagRecord,
  type FlagWrite,
} from './feature-flag.js';
import { regexPatterns, validateFlagFilters } from './flag-filters.js';
import { compileFlagRegex } from './flag-regex.js';
import { tagifyAll } from './tagify.js';
import { hasOwn } from '../util/plain-object.js';

export type { CohortInfo } from './cohort-checks.js';

export interface FlagValidationContext {
  mode: 'create' | 'patch' | 'put';
  /** The stored flag, for PATCH and PUT. */
  current?: FeatureFlagRecord;
  /** Id of the project's non-deleted flag with that key. */
  liveFlagIdByKey(key: string): number | undefined;
  /** The project's cohorts (deleted ones included). */
  cohort(id: number): CohortInfo | undefined;
  /** MAX_PROPERTY_VALUES: 1000 in production, 10 in PostHog's tests. */
  maxPropertyValues: number;
  /** Whether a dashboard id exists, for `analytics_dashboards`; absent: any integer is accepted. */
  dashboardExists?(id: number): boolean;
  /** For relative dates in conditions; defaults to the current time. */
  now?: Date;
}

const CREATION_CONTEXTS = ['feature_flags', 'experiments', 'surveys', 'early_access_features', 'web_experiments'];

type FieldRule = (value: unknown, out: FlagWrite, ctx: FlagValidationContext) => void;

function checkKey(key: string, ctx: FlagValidationContext): string {
  const holder = ctx.liveFlagIdByKey(key);
  if (holder !== undefined && holder !== ctx.current?.id) {
    throw new HedgerowError('HR_FLAG_KEY_TAKEN');
  }
  if (!FLAG_KEY_FORMAT.test(key)) throw new HedgerowError('HR_INVALID_FLAG_KEY');
  return key;
}

function readTags(value: unknown, attr: string): string[] {
  return tagifyAll(readListField(value, attr).map((t) => readStringItem(t, attr)));
}

/** A nullable model boolean: PostHog would store null; Hedgerow stores the model default false. */
function nullableBoolean(value: unknown, attr: string): boolean {
  return readBooleanField(value, attr, true) ?? false;
}

/** The writable fields in the order of PostHog's `FeatureFlagSerializer.Meta.fields`. */
const FIELD_RULES: readonly (readonly [string, FieldRule])[] = [
  ['name', (v, out) => (out.name = readCharField(v, 'name', { allowBlank: true }))],
  ['key', (v, out, ctx) => (out.key = checkKey(readCharField(v, 'key', { allowBlank: false, maxLength: FLAG_KEY_MAX_LENGTH }), ctx))],
  [
    'filters',
    (v, out, ctx) => {
      const filters = validateFlagFilters(readDictField(v, 'filters'), {
        mode: ctx.mode,
        cohort: (id) => ctx.cohort(id),
        maxPropertyValues: ctx.maxPropertyValues,
        now: ctx.now ?? writeTime(),
      });
      if (filters !== undefined) out.filters = filters;
    },
  ],
  ['deleted', (v, out) => (out.deleted = readBooleanField(v, 'deleted', false) as boolean)],
  ['active', (v, out) => (out.active = readBooleanField(v, 'active', false) as boolean)],
  ['created_at', (v, out) => (out.created_at = readDateTimeField(v, 'created_at'))],
  ['version', (v) => readIntegerField(v, 'version')],
  ['ensure_experience_continuity', (v, out) => (out.ensure_experience_continuity = nullableBoolean(v, 'ensure_experience_continuity'))],
  ['rollback_conditions', (v, out) => (out.rollback_conditions = v)],
  ['performed_rollback', (v, out) => (out.performed_rollback = nullableBoolean(v, 'performed_rollback'))],
  ['tags', (v, out) => (out.tags = readTags(v, 'tags'))],
  ['evaluation_tags', (v, out) => (out.evaluation_tags = readTags(v, 'evaluation_tags'))],
  [
    'analytics_dashboards',
    (v, out, ctx) =>
      (out.analytics_dashboards = readPrimaryKeyList(
        v,
        'analytics_dashboards',
        ctx.dashboardExists === undefined ? undefined : (id) => ctx.dashboardExists?.(id) ?? true,
      )),
  ],
  ['has_enriched_analytics', (v, out) => (out.has_enriched_analytics = nullableBoolean(v, 'has_enriched_analytics'))],
  ['creation_context', (v) => readChoiceField(v, 'creation_context', CREATION_CONTEXTS, { allowBlank: false, allowNull: false })],
  ['is_remote_configuration', (v, out) => (out.is_remote_configuration = nullableBoolean(v, 'is_remote_configuration'))],
  ['has_encrypted_payloads', (v, out) => (out.has_encrypted_payloads = nullableBoolean(v, 'has_encrypted_payloads'))],
  [
    'evaluation_runtime',
    (v, out) => {
      const runtime = readChoiceField(v, 'evaluation_runtime', EVALUATION_RUNTIMES, { allowBlank: true, allowNull: true });
      // PostHog stores null/'' as given; both mean "evaluate everywhere", the model default.
      out.evaluation_runtime = runtime === null || runtime === '' ? 'all' : runtime;
    },
  ],
  [
    'bucketing_identifier',
    // The model's nullable, blank-allowed choice field, stored as sent (docs/compatibility.md#flag-fields).
    (v, out) =>
      (out.bucketing_identifier = readChoiceField(v, 'bucketing_identifier', BUCKETING_IDENTIFIERS, { allowBlank: true, allowNull: true })),
  ],
  ['_create_in_folder', (v) => readCharField(v, '_create_in_folder', { allowBlank: true })],
  ['_should_create_usage_dashboard', (v) => readBooleanField(v, '_should_create_usage_dashboard', false)],
];

function sent(body: Readonly<Record<string, unknown>>, field: string): boolean {
  return hasOwn(body, field) && body[field] !== undefined;
}

/** `validate()`: evaluation tags must be a subset of the flag's tags (attr null). */
function checkEvaluationTags(out: FlagWrite, ctx: FlagValidationContext): void {
  if (out.evaluation_tags === undefined || out.evaluation_tags.length === 0) return;
  const tags = new Set(out.tags ?? ctx.current?.tags ?? []);
  const invalid = out.evaluation_tags.filter((t) => !tags.has(t)).sort();
  if (invalid.length > 0) {
    throw catalogueError('HR_EVALUATION_TAGS_NOT_IN_TAGS', { tags: invalid.join(', ') });
  }
}

/**
 * `validate()`: device bucketing and experience continuity may not be newly combined; a flag that
 * already has both may be saved as it is (attr null). Django `posthog/api/feature_flag.py`
 * (`_validate_device_bucketing_with_persist_auth`).
 */
function checkDeviceBucketing(out: FlagWrite, ctx: FlagValidationContext): void {
  const current = ctx.current;
  const stored = current === undefined ? undefined : bucketingIdentifierOf(current);
  const bucketing = out.bucketing_identifier !== undefined ? out.bucketing_identifier : stored;
  const continuity = out.ensure_experience_continuity ?? current?.ensure_experience_continuity;
  if (bucketing !== 'device_id' || continuity !== true) return;
  if (stored === 'device_id' && current?.ensure_experience_continuity === true) return;
  throw new HedgerowError('HR_DEVICE_BUCKETING_WITH_CONTINUITY');
}

/** `create()`'s dry run: every regex in the conditions must compile (attr null). */
function dryRun(out: FlagWrite): void {
  if (out.filters === undefined) return;
  for (const pattern of regexPatterns(out.filters)) {
    if (compileFlagRegex(pattern) === undefined) throw new HedgerowError('HR_FLAG_DRY_RUN_FAILED');
  }
}

export function validateFlagWrite(body: Readonly<Record<string, unknown>>, ctx: FlagValidationContext): FlagWrite {
  const out: FlagWrite = {};
  for (const [field, rule] of FIELD_RULES) {
    if (sent(body, field)) rule(body[field], out, ctx);
    else if (field === 'key' && ctx.mode !== 'patch') throw new HedgerowError('HR_FIELD_REQUIRED', undefined, 'key');
  }
  checkEvaluationTags(out, ctx);
  checkDeviceBucketing(out, ctx);
  if (ctx.mode === 'create') dryRun(out);
  // PostHog's _update_filters: turning a flag on clears a performed rollback.
  if (out.active === true) out.performed_rollback = false;
  return out;
}

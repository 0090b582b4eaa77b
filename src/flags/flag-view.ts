/**
 * The read-only values the management API computes from a stored flag: `filters` normalised on
 * read, `is_simple_flag` and `rollout_percentage` (docs/compatibility.md#flag-fields), the flag
 * type and the stale status the list filters use (#lists-and-pages), and the `status` field.
 */

import type { FeatureFlagRecord, FlagFilters } from './feature-flag.js';
import { isPlainObject } from '../util/plain-object.js';

const STALE_AFTER_MS = 30 * 24 * 3_600_000;

/**
 * `filters` as returned: as stored when they have `groups`, else the legacy shape as one group of
 * `filters.properties` with rollout null (a flag created without filters matches everyone).
 */
export function normalizedFilters(flag: Pick<FeatureFlagRecord, 'filters'>): FlagFilters {
  const f = flag.filters;
  if ('groups' in f) return f;
  return { groups: [{ properties: f.properties ?? [], rollout_percentage: null }] };
}

function conditions(flag: Pick<FeatureFlagRecord, 'filters'>): unknown[] {
  const groups = normalizedFilters(flag).groups;
  return Array.isArray(groups) ? groups : [];
}

function propertyCount(condition: unknown): number {
  const props = isPlainObject(condition) ? condition.properties : undefined;
  return Array.isArray(props) ? props.length : 0;
}

/** One condition, no properties anywhere, and not aggregated by groups. */
export function isSimpleFlag(flag: Pick<FeatureFlagRecord, 'filters'>): boolean {
  const groups = conditions(flag);
  const aggregation = flag.filters.aggregation_group_type_index;
  return groups.length === 1 && groups.every((g) => propertyCount(g) === 0) && (aggregation ?? null) === null;
}

/** The single condition's rollout (as stored, null when absent) for a simple flag, else null. */
export function simpleRolloutPercentage(flag: Pick<FeatureFlagRecord, 'filters'>): unknown {
  if (!isSimpleFlag(flag)) return null;
  const only = conditions(flag)[0];
  return isPlainObject(only) ? (only.rollout_percentage ?? null) : null;
}

function variantsOf(filters: FlagFilters): unknown[] {
  const mv = filters.multivariate;
  return isPlainObject(mv) && Array.isArray(mv.variants) ? mv.variants : [];
}

/** `multivariant` when `multivariate.variants` is a non-empty list, else `boolean`. */
export function flagType(flag: Pick<FeatureFlagRecord, 'filters'>): 'boolean' | 'multivariant' {
  return variantsOf(flag.filters).length > 0 ? 'multivariant' : 'boolean';
}

function isFullRollout(v: unknown): boolean {
  return isPlainObject(v) && v.rollout_percentage === 100;
}

/**
 * Everyone gets the flag: empty filters; or a 100% condition without properties, when the flag
 * has no variants, has a 100% variant, or that condition overrides the variant.
 */
export function isFullyRolledOut(flag: Pick<FeatureFlagRecord, 'filters'>): boolean {
  const f = flag.filters;
  if (Object.keys(f).length === 0) return true;
  const groups = Array.isArray(f.groups) ? f.groups : [];
  const open = groups.filter((g) => isFullRollout(g) && propertyCount(g) === 0);
  if (open.length === 0) return false;
  const variants = variantsOf(f);
  if (variants.length === 0) return true;
  if (variants.some(isFullRollout)) return true;
  return open.some((g) => isPlainObject(g) && typeof g.variant === 'string');
}

function olderThan(iso: string, now: Date, ms: number): boolean {
  const t = Date.parse(iso);
  return Number.isFinite(t) && now.getTime() - t > ms;
}

/**
 * `active=STALE` (docs/compatibility.md#lists-and-pages): an active flag last called more than 30
 * days ago, or never called, created more than 30 days ago and fully rolled out.
 */
export function isStale(flag: FeatureFlagRecord, now: Date): boolean {
  if (!flag.active || flag.deleted) return false;
  if (flag.last_called_at !== null) return olderThan(flag.last_called_at, now, STALE_AFTER_MS);
  return olderThan(flag.created_at, now, STALE_AFTER_MS) && isFullyRolledOut(flag);
}

export type FlagStatus = 'ACTIVE' | 'STALE' | 'DELETED';

export function flagStatus(flag: FeatureFlagRecord, now: Date): FlagStatus {
  if (flag.deleted) return 'DELETED';
  return isStale(flag, now) ? 'STALE' : 'ACTIVE';
}

/**
 * Compiles one active flag record (docs/compatibility.md#evaluation-order): its release conditions
 * with their aggregation, rollout and filters, the variant table, payloads, early-access gate
 * (`feature_enrollment` / legacy `super_groups`), holdout, and every result object an evaluation of
 * it can return. Also reports which flags and cohorts it references.
 */

import type { FeatureFlagRecord } from '../feature-flag.js';
import { normalizedFilters } from '../flag-view.js';
import { reason, groupsNotEvaluatedReason } from './reasons.js';
import { compileFilter, type FilterEnv } from './snapshot-filters.js';
import { payloadText, result } from './snapshot-results.js';
import {
  FILTER_COHORT,
  FILTER_FLAG,
  type CompiledCohort,
  type CompiledCondition,
  type CompiledFilter,
  type CompiledFlag,
  type CompiledHoldout,
} from './snapshot-types.js';
import { compileVariantTable, type VariantTable } from './variant-table.js';
import { isPlainObject } from '../../util/plain-object.js';

type Obj = Record<string, unknown>;

/** What a flag's filters reference, for the dependency graph. */
export interface FlagRefs {
  /** Slots of flags referenced by flag filters (duplicates possible). */
  slots: number[];
  /** A flag filter references no existing flag. */
  missingFlag: boolean;
  /** Cohorts referenced by cohort filters (found ones). */
  cohorts: CompiledCohort[];
}

interface FlagParts {
  keyDot: string;
  variants: VariantTable | null;
  payloads: Obj;
  payloadTrue: string | undefined;
  refs: FlagRefs;
  env: FilterEnv;
}

function payloadOf(parts: FlagParts, key: string): string | undefined {
  return Object.hasOwn(parts.payloads, key) ? payloadText(parts.payloads[key]) : undefined;
}

function groupIndex(v: unknown): number | null {
  return typeof v === 'number' && Number.isInteger(v) ? v : null;
}

function compileCondition(raw: unknown, index: number, inherited: number | null, personOnly: boolean, parts: FlagParts): CompiledCondition {
  const cond: Obj = isPlainObject(raw) ? raw : {};
  let aggregation: number | null = inherited;
  if (personOnly) aggregation = null;
  else if ('aggregation_group_type_index' in cond) aggregation = groupIndex(cond.aggregation_group_type_index);
  const groupType = aggregation === null ? undefined : parts.env.groupTypeName(aggregation);

  const pct = typeof cond.rollout_percentage === 'number' ? cond.rollout_percentage : 100;

  const ordinary: CompiledFilter[] = [];
  const cohortFilters: CompiledFilter[] = [];
  for (const rawFilter of Array.isArray(cond.properties) ? cond.properties : []) {
    const f = compileFilter(rawFilter, aggregation, false, parts.env);
    if (f.kind === FILTER_COHORT) {
      cohortFilters.push(f);
      if (f.cohort) parts.refs.cohorts.push(f.cohort);
    } else {
      ordinary.push(f);
      if (f.kind === FILTER_FLAG) {
        if (f.flagSlot >= 0) parts.refs.slots.push(f.flagSlot);
        else parts.refs.missingFlag = true;
      }
    }
  }

  const variants = parts.variants;
  const variantOverride = variants && typeof cond.variant === 'string' ? variants.keys.indexOf(cond.variant) : -1;
  const matchReason = reason('condition_match', index);
  const matched = (variants?.keys ?? []).map((key) => result(true, key, matchReason, payloadOf(parts, key)));
  matched.push(result(true, null, matchReason, parts.payloadTrue));

  return {
    index,
    aggregation,
    groupType,
    rolloutAll: pct >= 100,
    rolloutFraction: pct / 100,
    filters: [...ordinary, ...cohortFilters],
    variantOverride,
    matched,
    outOfRollout: result(false, null, reason('out_of_rollout_bound', index), undefined),
    noMatch: result(false, null, reason('no_condition_match', index), undefined),
    noGroupType: result(false, null, reason('no_group_type', index), undefined),
    groupsNotEvaluated: result(false, null, groupsNotEvaluatedReason(index), undefined),
  };
}

function compileHoldout(raw: unknown, parts: FlagParts): CompiledHoldout | null {
  if (!isPlainObject(raw) || typeof raw.exclusion_percentage !== 'number') return null;
  if (typeof raw.id !== 'number' && typeof raw.id !== 'string') return null;
  const pct = Math.min(100, Math.max(0, raw.exclusion_percentage));
  const variant = `holdout-${raw.id}`;
  return {
    all: pct >= 100,
    fraction: pct / 100,
    result: result(true, variant, reason('holdout_condition_value', null), payloadOf(parts, variant)),
  };
}

/** Compiles `record` (active, not deleted) into value slot `slot`. */
export function compileFlag(record: FeatureFlagRecord, slot: number, env: FilterEnv): { flag: CompiledFlag; refs: FlagRefs } {
  const filters = normalizedFilters(record);
  const refs: FlagRefs = { slots: [], missingFlag: false, cohorts: [] };
  const payloads = isPlainObject(filters.payloads) ? filters.payloads : {};
  const parts: FlagParts = {
    keyDot: `${record.key}.`,
    variants: compileVariantTable(filters.multivariate),
    payloads,
    payloadTrue: Object.hasOwn(payloads, 'true') ? payloadText(payloads.true) : undefined,
    refs,
    env,
  };

  const aggregation = groupIndex(filters.aggregation_group_type_index);
  const groups = Array.isArray(filters.groups) ? filters.groups : [];
  const conditions = groups.map((g, i) => compileCondition(g, i, aggregation, false, parts));

  const enrollmentKey = filters.feature_enrollment === true ? `$feature_enrollment/${record.key}` : null;
  let superCondition: CompiledCondition | null = null;
  const superKeys: string[] = [];
  const firstSuper: unknown = Array.isArray(filters.super_groups) ? filters.super_groups[0] : undefined;
  if (enrollmentKey === null && isPlainObject(firstSuper) && Array.isArray(firstSuper.properties) && firstSuper.properties.length > 0) {
    superCondition = compileCondition(firstSuper, 0, null, true, parts);
    for (const p of firstSuper.properties) {
      if (isPlainObject(p) && typeof p.key === 'string') superKeys.push(p.key);
    }
  }

  const superReason = reason('super_condition_value', 0);
  const flag: CompiledFlag = {
    id: record.id,
    key: record.key,
    keyDot: parts.keyDot,
    slot,
    record,
    aggregation,
    groupType: aggregation === null ? undefined : env.groupTypeName(aggregation),
    // The flag-level field; `filters.bucketing_identifier` is not read (flags service
    // `FeatureFlag::get_bucketing_identifier`, docs/compatibility.md#hashing-and-bucketing).
    bucketByDevice: record.bucketing_identifier === 'device_id',
    continuity: record.ensure_experience_continuity === true,
    conditions,
    variants: parts.variants,
    enrollmentKey,
    superCondition,
    superKeys,
    superTrue: result(true, null, superReason, parts.payloadTrue),
    superFalse: result(false, null, superReason, parts.payloadTrue),
    holdout: compileHoldout(filters.holdout, parts),
    earlyExit: filters.early_exit === true,
    noConditions: result(false, null, reason('no_group_type', null), undefined),
    deps: [],
    broken: null,
  };
  return { flag, refs };
}

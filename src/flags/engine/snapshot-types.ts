/**
 * The compiled, immutable form of a project's flags and cohorts that evaluations run against.
 * Everything a request would otherwise recompute is here: parsed filters, compiled property
 * matchers, variant bounds, group type names, dependency order, and the (frozen) result objects
 * each outcome returns, so that evaluating allocates little beyond the hash inputs.
 */

import type { FeatureFlagRecord } from '../feature-flag.js';
import type { FlagResult } from './evaluate-types.js';
import type { PropertyMatcher } from './property-matcher.js';
import type { EvaluationErrorCode } from './reasons.js';
import type { VariantTable } from './variant-table.js';

/** A cohort as stored: `filters` is `{properties: {type: 'AND'|'OR', values: [...]}}`. */
export interface CohortDefinition {
  id: number;
  is_static: boolean;
  deleted?: boolean;
  filters: unknown;
}

/** Filter kinds (numbers keep the dispatch a cheap switch). */
export const FILTER_PERSON = 0;
export const FILTER_GROUP = 1;
export const FILTER_FLAG = 2;
export const FILTER_COHORT = 3;
export const FILTER_NEVER = 4;

/** One property filter, compiled. Every instance has every field, so call sites stay monomorphic. */
export interface CompiledFilter {
  readonly kind: number;
  /** Property key (person/group filters). */
  readonly key: string;
  /** Person/group filters: the compiled matcher (other kinds: one that never matches). */
  readonly match: PropertyMatcher;
  /** Person filter on `distinct_id`: falls back to the request's distinct id. */
  readonly isDistinctId: boolean;
  /** Group filters: the group type name whose properties are read (undefined: none). */
  readonly groupType: string | undefined;
  /** Flag filters: slot of the flag depended on (-1: no such flag). */
  readonly flagSlot: number;
  /** Flag filters: the value to compare with; null never matches. */
  readonly expected: boolean | string | null;
  /** Cohort filters: the cohort (null: not found). */
  readonly cohort: CompiledCohort | null;
  /** Cohort filters: `not_in` (and, inside cohorts, `negation`). */
  readonly negate: boolean;
}

export interface CohortNode {
  /** A group (AND/OR over children) or a leaf (one filter). */
  readonly isGroup: boolean;
  readonly and: boolean;
  readonly children: readonly CohortNode[];
  readonly filter: CompiledFilter | null;
  /** Leaf `negation: true`. */
  readonly negation: boolean;
}

export interface CompiledCohort {
  readonly id: number;
  /** Index of this cohort's cell in the per-request membership cache. */
  readonly index: number;
  readonly isStatic: boolean;
  /** Null: no filters, everyone matches. */
  root: CohortNode | null;
  /** Set when evaluating it must fail (a referenced cohort is missing, or they form a cycle). */
  error: EvaluationErrorCode | null;
  /** Cohorts its filters reference (found ones). */
  cohortRefs: CompiledCohort[];
  /** Flag slots its filters reference. */
  flagSlots: number[];
  /** Whether a filter references a cohort that does not exist. */
  missingRef: boolean;
  /** The longest chain of cohort references below it (0: it references none, or it has an error). */
  chainDepth: number;
}

export interface CompiledCondition {
  readonly index: number;
  /** Group type index this condition aggregates by; null: person. */
  readonly aggregation: number | null;
  /** Name of that group type (undefined: person, or an index the mapping does not know). */
  readonly groupType: string | undefined;
  /** Rollout of 100 % or more (or none): no hashing needed. */
  readonly rolloutAll: boolean;
  readonly rolloutFraction: number;
  /** Flag and property filters in stored order, then cohort filters (the Rust order). */
  readonly filters: readonly CompiledFilter[];
  /** Index of a valid `variant` override, or -1. */
  readonly variantOverride: number;
  /** Result when matched, by variant index; the last entry is "matched, no variant". */
  readonly matched: readonly FlagResult[];
  readonly outOfRollout: FlagResult;
  readonly noMatch: FlagResult;
  readonly noGroupType: FlagResult;
  readonly groupsNotEvaluated: FlagResult;
}

export interface CompiledHoldout {
  /** Exclusion of 100 % or more: everyone is held out. */
  readonly all: boolean;
  readonly fraction: number;
  readonly result: FlagResult;
}

export interface CompiledFlag {
  readonly id: number;
  readonly key: string;
  /** `key + "."`, the hash prefix. */
  readonly keyDot: string;
  /** Index into the per-request value array (every non-deleted flag has one). */
  readonly slot: number;
  readonly record: FeatureFlagRecord;
  /** Flag-level aggregation (group type index) and its name. */
  readonly aggregation: number | null;
  readonly groupType: string | undefined;
  readonly bucketByDevice: boolean;
  readonly continuity: boolean;
  readonly conditions: readonly CompiledCondition[];
  readonly variants: VariantTable | null;
  /** `feature_enrollment: true`: the person property gating the flag. */
  readonly enrollmentKey: string | null;
  /** Legacy `super_groups[0]` (with properties), and the property keys that trigger it. */
  readonly superCondition: CompiledCondition | null;
  readonly superKeys: readonly string[];
  readonly superTrue: FlagResult;
  readonly superFalse: FlagResult;
  readonly holdout: CompiledHoldout | null;
  /**
   * `filters.early_exit`: a condition whose properties match but whose rollout excludes the
   * identifier ends the evaluation (out of rollout, that condition's index) instead of going on.
   */
  readonly earlyExit: boolean;
  /** Result when no condition produced a reason (no conditions at all). */
  readonly noConditions: FlagResult;
  /** Slots of active flags this one depends on (directly, or through its cohorts). */
  deps: number[];
  /** Set when the flag cannot be evaluated (missing or cyclic dependency). */
  broken: FlagResult | null;
}

export interface FlagSnapshot {
  readonly version: number;
  /** Active, non-deleted flags in the order given. */
  readonly flags: readonly CompiledFlag[];
  /** The same flags, each after the flags it depends on. */
  readonly evaluationOrder: readonly CompiledFlag[];
  /** Active flags by key. */
  readonly byKey: ReadonlyMap<string, CompiledFlag>;
  /** Active flags by value slot (undefined for inactive slots). */
  readonly flagBySlot: readonly (CompiledFlag | undefined)[];
  /** Inactive, non-deleted flags (for `disabled` reasons); they evaluate to false as dependencies. */
  readonly inactive: readonly FeatureFlagRecord[];
  /** Number of value slots (non-deleted flags). */
  readonly slotCount: number;
  /** Per-slot starting value: false for inactive flags, undefined for flags still to evaluate. */
  readonly initialValues: readonly (boolean | string | undefined)[];
  readonly cohortCount: number;
  /** Whether some flags form a dependency cycle. */
  readonly hasFlagCycles: boolean;
}

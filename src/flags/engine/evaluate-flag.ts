/**
 * Evaluates one compiled flag for one request, in the Rust service's order
 * (docs/compatibility.md#evaluation-order): broken dependencies → early-access gate → holdout →
 * release conditions in stored order, the first match winning (or, with `early_exit`, the first
 * condition that matches but is out of rollout ending it); otherwise the highest-priority reason
 * seen (#reasons, later condition on a tie). Identifiers (#hashing-and-bucketing): a group
 * condition hashes its group key; a person condition the device id (device bucketing), else the
 * stored continuity hash key, else (continuity flags) the request's anonymous id, else the distinct
 * id.
 */

import { EvaluationFailure, allFiltersMatch } from './evaluate-filters.js';
import { hasOwn } from '../../util/plain-object.js';
import type { EvaluationState } from './evaluate-state.js';
import type { FlagResult } from './evaluate-types.js';
import { ROLLOUT_SALT, VARIANT_SALT, bucketHash, holdoutHash } from './hash.js';
import { REASON_PRIORITY } from './reasons.js';
import { FAILED } from './snapshot-results.js';
import type { CompiledCondition, CompiledFlag } from './snapshot-types.js';
import { variantIndex } from './variant-table.js';

const PRIORITY_OUT_OF_ROLLOUT = REASON_PRIORITY.out_of_rollout_bound;
const PRIORITY_NO_MATCH = REASON_PRIORITY.no_condition_match;
const PRIORITY_NO_GROUP_TYPE = REASON_PRIORITY.no_group_type;

/** The person identifier a flag hashes (device bucketing applied only when a device id exists). */
function personIdentifier(flag: CompiledFlag, state: EvaluationState, useStoredOverride: boolean): string {
  if (flag.bucketByDevice && state.deviceId !== '') return state.deviceId;
  const overrides = state.ctx.hashKeyOverrides;
  if (useStoredOverride && overrides !== undefined && hasOwn(overrides, flag.key)) {
    const stored = overrides[flag.key];
    if (typeof stored === 'string') return stored;
  }
  if (flag.continuity && state.ctx.anonDistinctId !== undefined) return state.ctx.anonDistinctId;
  return state.distinctId;
}

/** The caller's key for a group type; undefined when not given (or empty). */
function groupKey(groupType: string | undefined, state: EvaluationState): string | undefined {
  if (groupType === undefined) return undefined;
  const groups = state.ctx.groups;
  if (!hasOwn(groups, groupType)) return undefined;
  const key: unknown = groups[groupType];
  if (typeof key === 'string') return key === '' ? undefined : key;
  return typeof key === 'number' ? String(key) : undefined;
}

function personProperty(state: EvaluationState, key: string): { present: boolean; value: unknown } {
  if (hasOwn(state.person, key)) return { present: true, value: state.person[key] };
  if (key === 'distinct_id') return { present: true, value: state.distinctId };
  return { present: false, value: undefined };
}

const NO_MATCH = 0;
const OUT_OF_ROLLOUT = 1;
const MATCH = 2;

// The last rollout hash: conditions of one flag sharing an identifier hash it once.
let memoKeyDot = '';
let memoIdentifier = '';
let memoHash = 0;

function rolloutHash(flag: CompiledFlag, identifier: string): number {
  if (memoKeyDot !== flag.keyDot || memoIdentifier !== identifier) {
    memoHash = bucketHash(flag.keyDot, identifier, ROLLOUT_SALT);
    memoKeyDot = flag.keyDot;
    memoIdentifier = identifier;
  }
  return memoHash;
}

/** Properties, then rollout, of one condition hashed on `identifier`. */
function conditionPasses(cond: CompiledCondition, flag: CompiledFlag, identifier: string, state: EvaluationState): 0 | 1 | 2 {
  if (!allFiltersMatch(cond.filters, state)) return NO_MATCH;
  if (cond.rolloutAll) return MATCH;
  return rolloutHash(flag, identifier) <= cond.rolloutFraction ? MATCH : OUT_OF_ROLLOUT;
}

function matchedResult(cond: CompiledCondition, flag: CompiledFlag, identifier: string): FlagResult {
  const variants = flag.variants;
  if (variants === null) return cond.matched[0] as FlagResult;
  let index = cond.variantOverride;
  if (index < 0) {
    index = variantIndex(variants, bucketHash(flag.keyDot, identifier, VARIANT_SALT));
    if (index < 0) index = variants.keys.length;
  }
  return cond.matched[index] as FlagResult;
}

function earlyAccess(flag: CompiledFlag, state: EvaluationState): FlagResult | undefined {
  if (flag.enrollmentKey !== null) {
    const { present, value } = personProperty(state, flag.enrollmentKey);
    if (!present) return undefined;
    return value === 'true' || value === true ? flag.superTrue : flag.superFalse;
  }
  const cond = flag.superCondition;
  if (cond === null || !flag.superKeys.some((k) => personProperty(state, k).present)) return undefined;
  const outcome = conditionPasses(cond, flag, personIdentifier(flag, state, true), state);
  return outcome === MATCH ? flag.superTrue : flag.superFalse;
}

function holdoutResult(flag: CompiledFlag, state: EvaluationState): FlagResult | undefined {
  const holdout = flag.holdout;
  if (holdout === null) return undefined;
  if (holdout.all) return holdout.result;
  const identifier = flag.aggregation === null ? personIdentifier(flag, state, false) : (groupKey(flag.groupType, state) ?? '');
  return holdoutHash(identifier) <= holdout.fraction ? holdout.result : undefined;
}

function evaluateConditions(flag: CompiledFlag, state: EvaluationState): FlagResult {
  let best = flag.noConditions;
  let bestPriority = PRIORITY_NO_GROUP_TYPE;
  let skippedGroups = false;
  let person: string | undefined;
  const conditions = flag.conditions;
  for (let i = 0; i < conditions.length; i++) {
    const cond = conditions[i] as CompiledCondition;
    let identifier: string | undefined;
    if (cond.aggregation === null) {
      if (flag.bucketByDevice && state.deviceId === '') {
        if (PRIORITY_OUT_OF_ROLLOUT >= bestPriority) {
          best = cond.outOfRollout;
          bestPriority = PRIORITY_OUT_OF_ROLLOUT;
        }
        continue;
      }
      identifier = person ??= personIdentifier(flag, state, true);
    } else {
      identifier = groupKey(cond.groupType, state);
      if (identifier === undefined) {
        skippedGroups = true;
        if (PRIORITY_NO_GROUP_TYPE >= bestPriority) {
          best = cond.noGroupType;
          bestPriority = PRIORITY_NO_GROUP_TYPE;
        }
        continue;
      }
    }
    const outcome = conditionPasses(cond, flag, identifier, state);
    if (outcome === MATCH) return matchedResult(cond, flag, identifier);
    // Early exit (PostHog#57321): only the rollout excluding a matching condition ends it.
    if (outcome === OUT_OF_ROLLOUT && flag.earlyExit) return cond.outOfRollout;
    const priority = outcome === OUT_OF_ROLLOUT ? PRIORITY_OUT_OF_ROLLOUT : PRIORITY_NO_MATCH;
    if (priority >= bestPriority) {
      best = outcome === OUT_OF_ROLLOUT ? cond.outOfRollout : cond.noMatch;
      bestPriority = priority;
    }
  }
  if (skippedGroups && bestPriority === PRIORITY_NO_MATCH) {
    const index = best.reason.condition_index;
    const cond = index === null ? undefined : conditions[index];
    if (cond !== undefined) return cond.groupsNotEvaluated;
  }
  return best;
}

/** The result of one active flag; dependencies must already hold their values in `state`. */
export function evaluateFlag(flag: CompiledFlag, state: EvaluationState): FlagResult {
  if (flag.broken !== null) return flag.broken;
  try {
    return earlyAccess(flag, state) ?? holdoutResult(flag, state) ?? evaluateConditions(flag, state);
  } catch (e) {
    if (e instanceof EvaluationFailure) return FAILED[e.code];
    throw e;
  }
}

/**
 * Matching compiled filters against one request (docs/compatibility.md#property-matching): person
 * and group filters through their property matchers, flag filters against the values of flags
 * already evaluated, cohort filters through memoised cohort membership
 * (#cohorts-and-flag-dependencies). A cohort that cannot be evaluated throws an
 * `EvaluationFailure`, which fails the whole flag; an evaluation over its time budget throws
 * OUT_OF_TIME, and a regex search past the evaluation's allowance REGEX_ALLOWANCE_SPENT
 * (regex-allowance.ts), which end the evaluation.
 */

import type { EvaluationErrorCode } from './reasons.js';
import { hasOwn } from '../../util/plain-object.js';
import { FILTERS_PER_BUDGET_CHECK, OUT_OF_TIME, type EvaluationState } from './evaluate-state.js';
import {
  FILTER_COHORT,
  FILTER_FLAG,
  FILTER_GROUP,
  FILTER_PERSON,
  type CohortNode,
  type CompiledCohort,
  type CompiledFilter,
} from './snapshot-types.js';

/** Thrown (preallocated, no stack) when a flag's evaluation must fail. */
export class EvaluationFailure {
  constructor(readonly code: EvaluationErrorCode) {}
}

const COHORT_NOT_FOUND = new EvaluationFailure('dependency_not_found_cohort');
const COHORT_CYCLE = new EvaluationFailure('dependency_cycle_cohort');

/**
 * `flag_evaluates_to`: `true` matches true or any non-empty variant, `false` only false, a
 * string exactly that variant. A flag not evaluated (failed) matches nothing.
 */
function flagValueMatches(value: boolean | string | undefined, expected: boolean | string | null): boolean {
  if (expected === null || value === undefined) return false;
  if (expected === true) return value === true || (typeof value === 'string' && value !== '');
  if (expected === false) return value === false;
  return value === expected;
}

function groupProperties(state: EvaluationState, groupType: string): Record<string, unknown> | undefined {
  const all = state.ctx.groupProperties;
  return hasOwn(all, groupType) ? all[groupType] : undefined;
}

/** Throws OUT_OF_TIME once the evaluation is over its time budget. */
function checkBudget(state: EvaluationState): void {
  state.filtersUntilBudgetCheck = FILTERS_PER_BUDGET_CHECK;
  if (state.ctx.overBudget?.() === true) throw OUT_OF_TIME;
}

/**
 * Whether one filter matches (cohort `not_in` applied; cohort-leaf `negation` is the caller's).
 * Every few filters it checks the time budget (OUT_OF_TIME).
 */
function filterMatches(f: CompiledFilter, state: EvaluationState): boolean {
  if (--state.filtersUntilBudgetCheck === 0) checkBudget(state);
  switch (f.kind) {
    case FILTER_PERSON: {
      const props = state.person;
      if (hasOwn(props, f.key)) return f.match(props[f.key], true, state.now);
      if (f.isDistinctId) return f.match(state.distinctId, true, state.now);
      return f.match(undefined, false, state.now);
    }
    case FILTER_GROUP: {
      const props = f.groupType === undefined ? undefined : groupProperties(state, f.groupType);
      const present = props !== undefined && hasOwn(props, f.key);
      return f.match(present ? props[f.key] : undefined, present, state.now);
    }
    case FILTER_FLAG:
      return flagValueMatches(state.values[f.flagSlot], f.expected);
    case FILTER_COHORT: {
      if (f.cohort === null) throw COHORT_NOT_FOUND;
      const member = isCohortMember(f.cohort, state);
      return f.negate ? !member : member;
    }
    default:
      return false;
  }
}

/** Whether every filter of a condition matches (in order, stopping at the first miss). */
export function allFiltersMatch(filters: readonly CompiledFilter[], state: EvaluationState): boolean {
  for (let i = 0; i < filters.length; i++) {
    if (!filterMatches(filters[i] as CompiledFilter, state)) return false;
  }
  return true;
}

function isCohortMember(cohort: CompiledCohort, state: EvaluationState): boolean {
  const cached = state.cohorts[cohort.index];
  if (cached === 2) return true;
  if (cached === 1) return false;
  let member: boolean;
  if (cohort.isStatic) {
    member = state.ctx.isInStaticCohort?.(cohort.id) ?? false;
  } else {
    if (cohort.error === 'dependency_not_found_cohort') throw COHORT_NOT_FOUND;
    if (cohort.error !== null) throw COHORT_CYCLE;
    if (cohort.chainDepth > RECURSIVE_CHAIN_DEPTH) evaluateBelow(cohort, state);
    member = cohort.root === null || nodeMatches(cohort.root, state);
  }
  state.cohorts[cohort.index] = member ? 2 : 1;
  return member;
}

/**
 * Chains of cohort references up to this long are evaluated by recursion as they are met (a few
 * stack frames per link); a longer one (which could take the recursion past the stack) first
 * through `evaluateBelow`.
 */
const RECURSIVE_CHAIN_DEPTH = 32;

/**
 * Evaluates every cohort `top` reaches and that is not known yet, each after the ones it
 * references, without recursion: each is then evaluated with its references known. Cohorts
 * without an error reach no cycle.
 */
function evaluateBelow(top: CompiledCohort, state: EvaluationState): void {
  const path: { cohort: CompiledCohort; next: number }[] = [{ cohort: top, next: 0 }];
  while (path.length > 0) {
    const last = path[path.length - 1]!;
    const ref = last.cohort.cohortRefs[last.next++];
    if (ref === undefined) {
      path.pop();
      if (last.cohort !== top) isCohortMember(last.cohort, state);
    } else if (state.cohorts[ref.index] === 0) {
      path.push({ cohort: ref, next: 0 });
    }
  }
}

function nodeMatches(node: CohortNode, state: EvaluationState): boolean {
  if (!node.isGroup) {
    const m = filterMatches(node.filter as CompiledFilter, state);
    return node.negation ? !m : m;
  }
  const children = node.children;
  if (children.length === 0) return true;
  if (node.and) {
    for (let i = 0; i < children.length; i++) if (!nodeMatches(children[i] as CohortNode, state)) return false;
    return true;
  }
  for (let i = 0; i < children.length; i++) if (nodeMatches(children[i] as CohortNode, state)) return true;
  return false;
}

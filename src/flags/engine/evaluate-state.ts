/**
 * Per-request evaluation state: the context, the values of flags evaluated so far (read by flag
 * dependencies), memoised cohort memberships, the identifiers resolved once per request, and
 * when to look at the clock next.
 */

import type { EvaluationContext } from './evaluate-types.js';
import type { FlagSnapshot } from './snapshot-types.js';

export interface EvaluationState {
  readonly ctx: EvaluationContext;
  readonly person: Record<string, unknown>;
  readonly distinctId: string;
  readonly now: Date;
  /** Device id for device-bucketed flags ('' when none). */
  readonly deviceId: string;
  /** Flag value by slot: false, true, a variant, or undefined (not evaluated or failed). */
  readonly values: (boolean | string | undefined)[];
  /** Cohort membership by cohort index: 0 unknown, 1 not a member, 2 member. */
  readonly cohorts: Uint8Array;
  /** Filters to match before the next `ctx.overBudget()` check (evaluate-filters.ts). */
  filtersUntilBudgetCheck: number;
}

/**
 * Filters matched between two checks of the time budget within a flag: a flag may hold a
 * thousand conditions, and a filter matching a long value costs up to a millisecond (a regex
 * over 60 KB), while a clock read costs about as much as a cheap filter.
 */
export const FILTERS_PER_BUDGET_CHECK = 16;

/**
 * Thrown (preallocated, no stack) when the time budget runs out in the middle of a flag: the
 * evaluation ends there, without that flag (evaluate-flags.ts).
 */
export class OutOfTime {}
export const OUT_OF_TIME = new OutOfTime();

const NO_COHORTS = new Uint8Array(0);

export function createState(snapshot: FlagSnapshot, ctx: EvaluationContext): EvaluationState {
  const person = ctx.personProperties;
  return {
    ctx,
    person,
    distinctId: ctx.distinctId,
    now: ctx.now,
    deviceId: ctx.deviceId ?? '',
    values: snapshot.initialValues.slice(),
    cohorts: snapshot.cohortCount === 0 ? NO_COHORTS : new Uint8Array(snapshot.cohortCount),
    filtersUntilBudgetCheck: FILTERS_PER_BUDGET_CHECK,
  };
}

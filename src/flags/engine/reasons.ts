/**
 * Evaluation reasons (docs/compatibility.md#reasons): codes, the descriptions the Rust service
 * prints, their priority when no condition matched, and the frozen reason objects the engine hands
 * out (built once per snapshot so an evaluation allocates none).
 */

export type ReasonCode =
  | 'condition_match'
  | 'no_condition_match'
  | 'out_of_rollout_bound'
  | 'no_group_type'
  | 'super_condition_value'
  | 'holdout_condition_value'
  | 'flag_disabled'
  | 'missing_dependency';

/** Error codes of failed evaluations (`failed: true`), as the Rust service names them. */
export type EvaluationErrorCode = 'dependency_not_found_cohort' | 'dependency_cycle_cohort' | 'dependency_cycle_flag';

export interface FlagReason {
  readonly code: ReasonCode | EvaluationErrorCode;
  readonly condition_index: number | null;
  readonly description: string;
}

/** Higher wins; a later condition replaces the running best on a tie (`>=`). */
export const REASON_PRIORITY: Readonly<Record<ReasonCode, number>> = {
  super_condition_value: 6,
  holdout_condition_value: 5,
  condition_match: 4,
  out_of_rollout_bound: 3,
  no_condition_match: 2,
  no_group_type: 1,
  flag_disabled: 0,
  missing_dependency: -1,
};

const DESCRIPTIONS: Readonly<Record<Exclude<ReasonCode, 'condition_match'>, string>> = {
  no_condition_match: 'No matching condition set',
  out_of_rollout_bound: 'Out of rollout bound',
  no_group_type: 'No group type',
  super_condition_value: 'Super condition value',
  holdout_condition_value: 'Holdout condition value',
  flag_disabled: 'Feature flag is disabled',
  missing_dependency: 'Flag cannot be evaluated due to missing dependency',
};

/** `no_condition_match` when group conditions were skipped for want of the group. */
const GROUPS_NOT_EVALUATED_DESCRIPTION =
  'No matching condition set (group conditions were not evaluated because no group type was provided)';

const ERROR_DESCRIPTIONS: Readonly<Record<EvaluationErrorCode, string>> = {
  dependency_not_found_cohort: 'Cohort dependency not found',
  dependency_cycle_cohort: 'Cohort dependency cycle detected',
  dependency_cycle_flag: 'Flag dependency cycle detected',
};

export function reason(code: ReasonCode, conditionIndex: number | null): FlagReason {
  const description = code === 'condition_match' ? `Matched condition set ${(conditionIndex ?? 0) + 1}` : DESCRIPTIONS[code];
  return Object.freeze({ code, condition_index: conditionIndex, description });
}

export function groupsNotEvaluatedReason(conditionIndex: number | null): FlagReason {
  return Object.freeze({
    code: 'no_condition_match' as const,
    condition_index: conditionIndex,
    description: GROUPS_NOT_EVALUATED_DESCRIPTION,
  });
}

export function errorReason(code: EvaluationErrorCode): FlagReason {
  return Object.freeze({ code, condition_index: null, description: ERROR_DESCRIPTIONS[code] });
}

/**
 * Result objects. Each possible outcome of a flag (a condition matched with a given variant, a
 * reason for not matching, the holdout, the super condition, an error) is built once, frozen,
 * and returned by every evaluation that ends there.
 */

import type { FlagResult } from './evaluate-types.js';
import { errorReason, reason, type EvaluationErrorCode, type FlagReason } from './reasons.js';

export function result(enabled: boolean, variant: string | null, why: FlagReason, payload: string | undefined): FlagResult {
  return Object.freeze({ enabled, variant, reason: why, payload });
}

/** A failed evaluation (`failed: true`), reason = the error. */
function failedResult(code: EvaluationErrorCode): FlagResult {
  return Object.freeze({
    enabled: false,
    variant: null,
    reason: errorReason(code),
    payload: undefined,
    failed: true as const,
    error: code,
  });
}

export const FAILED: Readonly<Record<EvaluationErrorCode, FlagResult>> = {
  dependency_not_found_cohort: failedResult('dependency_not_found_cohort'),
  dependency_cycle_cohort: failedResult('dependency_cycle_cohort'),
  dependency_cycle_flag: failedResult('dependency_cycle_flag'),
};

/** A flag whose dependencies are missing (or depend on a cycle). */
export const MISSING_DEPENDENCY: FlagResult = result(false, null, reason('missing_dependency', null), undefined);

/** A flag inside a dependency cycle: `missing_dependency`, and the request reports errors. */
export const IN_DEPENDENCY_CYCLE: FlagResult = Object.freeze({
  enabled: false,
  variant: null,
  reason: reason('missing_dependency', null),
  payload: undefined,
  error: 'dependency_cycle_flag' as const,
});

/** Stored payloads are JSON strings; anything else already parsed is re-encoded. */
export function payloadText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

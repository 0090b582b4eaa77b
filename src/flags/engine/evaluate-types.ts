/**
 * What an evaluation takes and gives: the request context (properties, groups, continuity hash
 * keys, static cohort lookups, the clock) and the per-flag result the `/flags` and `/decide`
 * encoders read.
 */

import type { EvaluationErrorCode, FlagReason } from './reasons.js';

export interface EvaluationContext {
  distinctId: string;
  /** Merged person properties (stored, then request overrides). `distinct_id` is implied. */
  personProperties: Record<string, unknown>;
  /** Group type name → group key. */
  groups: Record<string, string>;
  /** Group type name → that group's properties. */
  groupProperties: Record<string, Record<string, unknown>>;
  /** Flag key → stored continuity hash key (docs/compatibility.md#experience-continuity). */
  hashKeyOverrides?: Record<string, string>;
  /**
   * The request's `$anon_distinct_id`: the newest Rust service hashes a continuity flag on it
   * when no stored override exists (docs/compatibility.md#hashing-and-bucketing).
   */
  anonDistinctId?: string;
  /**
   * The request's device id, hashed by flags bucketed by device: the body's `$device_id`, else
   * the request's `person_properties.$device_id` (docs/compatibility.md#hashing-and-bucketing).
   * Stored person properties are not read for it.
   */
  deviceId?: string;
  /** Membership of a static cohort (absent: nobody is in any static cohort). */
  isInStaticCohort?(cohortId: number): boolean;
  now: Date;
  /** Evaluate only these keys (and the flags they depend on). */
  flagKeys?: string[];
  /**
   * One byte per slot, 1 for the flags the request may see (flag-requests/flag-visibility.ts); the others
   * are neither evaluated nor answered, and a flag depending on one finds no value. Absent: all.
   */
  visible?: Uint8Array;
  /**
   * Asked every few flags, and every few filters within a flag: true once the request's time is
   * up. The flags not evaluated by then are left out of the results, which say so
   * (`FlagResults.complete`).
   */
  overBudget?(): boolean;
  /**
   * The time (ms) this evaluation may spend in V8-engine regex searches (regex-allowance.ts);
   * once spent, it stops as over budget. Absent: no limit beyond each search's own.
   */
  regexAllowanceMs?: number;
}

/**
 * One flag's answer. Objects are shared between evaluations and frozen: do not mutate them.
 *
 * `failed` marks a flag whose evaluation failed (Rust `FlagDetails.failed`); `reason.code` is
 * then the error code. `error` is set whenever the request should report
 * `errorsWhileComputingFlags: true`: on failed flags, and on flags in a dependency cycle (those
 * answer `false` with reason `missing_dependency`, not failed, as the Rust service does).
 */
export interface FlagResult {
  readonly enabled: boolean;
  readonly variant: string | null;
  readonly reason: FlagReason;
  /** The stored payload (a JSON string) for `"true"` or the variant; undefined when none. */
  readonly payload: string | undefined;
  readonly failed?: true;
  readonly error?: EvaluationErrorCode;
}

/**
 * The time one flag evaluation may spend in V8-engine regex searches (bounded-backtracking.ts).
 * Each search is bounded on its own (about a millisecond at worst), but a flag can hold a
 * thousand such conditions, and a `/flags` caller needs only the public project key to send the
 * long value that makes every one of them cost that much. The evaluation sets an allowance; each
 * search spends its measured time from it, and a search asked for once it is spent throws
 * `REGEX_ALLOWANCE_SPENT` instead of running, which the engine answers as a time budget run out
 * (the flags done by then, with errorsWhileComputingFlags).
 *
 * Searches run synchronously on the thread that evaluates, so one allowance per thread, set for
 * the duration of an evaluation, is the evaluation's own. Outside one (the blast-radius counts,
 * tests) it is unlimited.
 */

/** Thrown (preallocated, no stack) by a search once the evaluation's allowance is spent. */
export class RegexAllowanceSpent {}
export const REGEX_ALLOWANCE_SPENT = new RegexAllowanceSpent();

let remainingMs = Infinity;

/** Runs `evaluate` with `ms` of V8-engine search time to spend, then restores the previous allowance. */
export function withRegexAllowance<T>(ms: number, evaluate: () => T): T {
  const outer = remainingMs;
  remainingMs = ms;
  try {
    return evaluate();
  } finally {
    remainingMs = outer;
  }
}

/** Throws REGEX_ALLOWANCE_SPENT when nothing is left for another search. */
export function checkRegexAllowance(): void {
  if (remainingMs <= 0) throw REGEX_ALLOWANCE_SPENT;
}

/** Takes a search's time from the allowance. */
export function spendRegexTime(ms: number): void {
  remainingMs -= ms;
}

/**
 * The time one flag evaluation may spend in V8-engine regex searches (bounded-backtracking.ts).
 * Each search is bounded on its own (about a millisecond at worst), but a flag can hold a
 * thousand such conditions, and a `/flags` caller needs only the public project key to send the
 * long value that makes every one of them cost that much. The evaluation sets an allowance; each
 * search spends its measured time from it, and a search asked for once it is spent throws
 * `REGEX_ALLOWANCE_SPENT` instead of running, which the engine answers as a time budget run out
 * (the flags done by then, with errorsWhileComputingFlags).
 *
 * Compiling a pattern's RegExp for a backtrack limit (0.05-0.5 ms for patterns of a few hundred
 * characters, tens of milliseconds for some of a thousand) happens once per thread, by the first
 * search that needs it: the first request after a start compiles every such pattern it meets,
 * which is no search's cost, and a pattern's first compile is not charged at all. But a caller
 * choosing the value's length chooses the limit, and could make each request compile every
 * pattern again for another one; so compiles for further limits have an allowance of their own,
 * COMPILE_ALLOWANCE_MS per evaluation.
 *
 * Searches run synchronously on the thread that evaluates, so one allowance per thread, set for
 * the duration of an evaluation, is the evaluation's own. Outside one (the blast-radius counts,
 * tests) it is unlimited.
 */

/** Thrown (preallocated, no stack) by a search once the evaluation's allowance is spent. */
export class RegexAllowanceSpent {}
export const REGEX_ALLOWANCE_SPENT = new RegexAllowanceSpent();

/** The time an evaluation may spend compiling patterns for limits other than their first. */
export const COMPILE_ALLOWANCE_MS = 10;

/**
 * The most one search is charged. Searches are bounded to ~1 ms; a longer one is the thread
 * paused meanwhile (a garbage collection, the OS running something else on a busy machine),
 * which would otherwise spend an ordinary request's allowance on one short search.
 */
export const MAX_CHARGE_MS = 1;

let remainingMs = Infinity;
let compileRemainingMs = Infinity;

/** Runs `evaluate` with `ms` of V8-engine search time to spend, then restores the previous allowance. */
export function withRegexAllowance<T>(ms: number, evaluate: () => T): T {
  const outerMs = remainingMs;
  const outerCompileMs = compileRemainingMs;
  remainingMs = ms;
  compileRemainingMs = COMPILE_ALLOWANCE_MS;
  try {
    return evaluate();
  } finally {
    remainingMs = outerMs;
    compileRemainingMs = outerCompileMs;
  }
}

/** Throws REGEX_ALLOWANCE_SPENT when nothing is left for another search. */
export function checkRegexAllowance(): void {
  if (remainingMs <= 0) throw REGEX_ALLOWANCE_SPENT;
}

/** Throws REGEX_ALLOWANCE_SPENT when nothing is left for another compile. */
export function checkCompileAllowance(): void {
  if (compileRemainingMs <= 0) throw REGEX_ALLOWANCE_SPENT;
}

/** Takes a search's time (at most MAX_CHARGE_MS) from the allowance. */
export function spendRegexTime(ms: number): void {
  remainingMs -= Math.min(ms, MAX_CHARGE_MS);
}

/** Takes a compile's time from the compile allowance. */
export function spendRegexCompileTime(ms: number): void {
  compileRemainingMs -= ms;
}

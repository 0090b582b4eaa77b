/**
 * Evaluates a snapshot's flags for one request. Flags run in dependency order so a flag
 * dependency reads its target's value (docs/compatibility.md#cohorts-and-flag-dependencies); with
 * `flagKeys`, only those flags and the flags they depend on are evaluated, and all of them are
 * returned (the Rust service evaluates and reports dependencies too). Inactive and unknown keys are
 * never in the result (remote evaluation omits inactive flags:
 * docs/compatibility.md#flags-requests), nor are flags the request may not see (`ctx.visible`). The
 * results follow the snapshot's order. Over the request's time budget the evaluation stops, and the
 * results hold the flags done by then (the Rust service answers the flags it could compute, with
 * the error flag set). The budget is checked between flags and, within a flag, between filters
 * (evaluate-filters.ts); V8-engine regex searches also spend from the evaluation's allowance
 * (`ctx.regexAllowanceMs`, regex-allowance.ts), and once it is spent the evaluation stops the same
 * way. A flag cut off in the middle is left out.
 */

import { RegexAllowanceSpent, withRegexAllowance } from '../regex-allowance.js';
import { evaluateFlag } from './evaluate-flag.js';
import { createState, OutOfTime } from './evaluate-state.js';
import { FlagResults } from './flag-results.js';
import type { EvaluationContext, FlagResult } from './evaluate-types.js';
import type { CompiledFlag, FlagSnapshot } from './snapshot-types.js';

/** Slots of the requested active flags and everything they depend on, among the visible ones. */
function selectedSlots(snapshot: FlagSnapshot, keys: readonly string[], visible: Uint8Array | undefined): Uint8Array {
  const selected = new Uint8Array(snapshot.slotCount);
  const stack: CompiledFlag[] = [];
  for (const key of keys) {
    const flag = snapshot.byKey.get(key);
    if (flag !== undefined) stack.push(flag);
  }
  while (stack.length > 0) {
    const flag = stack.pop() as CompiledFlag;
    if (selected[flag.slot] === 1 || (visible !== undefined && visible[flag.slot] !== 1)) continue;
    selected[flag.slot] = 1;
    for (const slot of flag.deps) {
      const dep = snapshot.flagBySlot[slot];
      if (dep !== undefined && selected[slot] !== 1) stack.push(dep);
    }
  }
  return selected;
}

/** How many flags are evaluated between two `overBudget` checks (a clock read is ~30 ns). */
const FLAGS_PER_BUDGET_CHECK = 8;

export function evaluateFlags(snapshot: FlagSnapshot, ctx: EvaluationContext): FlagResults {
  const allowance = ctx.regexAllowanceMs;
  if (allowance === undefined) return evaluateInOrder(snapshot, ctx);
  return withRegexAllowance(allowance, () => evaluateInOrder(snapshot, ctx));
}

function evaluateInOrder(snapshot: FlagSnapshot, ctx: EvaluationContext): FlagResults {
  const state = createState(snapshot, ctx);
  const selected = ctx.flagKeys === undefined ? (ctx.visible ?? null) : selectedSlots(snapshot, ctx.flagKeys, ctx.visible);
  const results = new Array<FlagResult | undefined>(snapshot.slotCount);
  const overBudget = ctx.overBudget;
  let count = 0;
  try {
    for (const flag of snapshot.evaluationOrder) {
      if (selected !== null && selected[flag.slot] !== 1) continue;
      // Flags run in dependency order, so stopping here never leaves a flag without its dependencies.
      if (overBudget !== undefined && count % FLAGS_PER_BUDGET_CHECK === 0 && overBudget()) {
        return new FlagResults(snapshot, results, count, false);
      }
      const r = evaluateFlag(flag, state);
      results[flag.slot] = r;
      count++;
      state.values[flag.slot] = r.failed === true ? undefined : r.enabled ? (r.variant ?? true) : false;
    }
  } catch (e) {
    if (!(e instanceof OutOfTime || e instanceof RegexAllowanceSpent)) throw e;
    return new FlagResults(snapshot, results, count, false);
  }
  return new FlagResults(snapshot, results, count, true);
}

/** The value the SDKs see: the variant, else whether the flag is enabled. */
export function flagValue(result: FlagResult): boolean | string {
  return result.variant ?? result.enabled;
}

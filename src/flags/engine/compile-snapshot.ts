/**
 * Builds the immutable `FlagSnapshot` a project's evaluations run against
 * (docs/compatibility.md#flag-evaluation): every non-deleted flag gets a value slot (inactive ones
 * are kept, answer `false` to flags that depend on them, and are listed for `disabled` reasons);
 * active flags are compiled; cohorts are compiled; and the active flags are put in dependency
 * order. A flag that depends on a missing flag, sits in a dependency cycle, or depends on such a
 * flag is marked broken and answers `missing_dependency` (docs/compatibility.md#evaluation-order).
 */

import type { FeatureFlagRecord } from '../feature-flag.js';
import { cohortShells, compileCohorts, reachableCohorts } from './cohorts-compile.js';
import type { FilterEnv } from './snapshot-filters.js';
import { compileFlag, type FlagRefs } from './snapshot-flag.js';
import { dependencyOrder } from './snapshot-graph.js';
import { IN_DEPENDENCY_CYCLE, MISSING_DEPENDENCY } from './snapshot-results.js';
import type { CohortDefinition, CompiledCohort, CompiledFlag, FlagSnapshot } from './snapshot-types.js';

export interface SnapshotInput {
  flags: FeatureFlagRecord[];
  cohorts: CohortDefinition[];
  /** Group type index (as a string) → group type name. */
  groupTypeMapping: Record<string, string>;
  version: number;
  /** The team's IANA time zone, for date filters without an offset (default UTC). */
  timezone?: string;
}

export function compileSnapshot(input: SnapshotInput): FlagSnapshot {
  const live = input.flags.filter((f) => !f.deleted);
  const slotById = new Map<number, number>();
  live.forEach((f, slot) => {
    if (!slotById.has(f.id)) slotById.set(f.id, slot);
  });

  const cohortsById = cohortShells(input.cohorts);
  const mapping = input.groupTypeMapping;
  const env: FilterEnv = {
    flagSlotById: (id) => slotById.get(id) ?? -1,
    cohortById: (id) => cohortsById.get(id) ?? null,
    groupTypeName: (index) => {
      const name = Object.hasOwn(mapping, String(index)) ? mapping[String(index)] : undefined;
      return typeof name === 'string' ? name : undefined;
    },
    matcherOptions: input.timezone === undefined ? {} : { timezone: input.timezone },
  };
  compileCohorts(input.cohorts, cohortsById, env);

  const flags: CompiledFlag[] = [];
  const refs: FlagRefs[] = [];
  live.forEach((record, slot) => {
    if (!record.active) return;
    const compiled = compileFlag(record, slot, env);
    flags.push(compiled.flag);
    refs.push(compiled.refs);
  });

  const { evaluationOrder, hasFlagCycles } = orderAndMark(flags, refs, live.length);
  const byKey = new Map<string, CompiledFlag>();
  const flagBySlot = new Array<CompiledFlag | undefined>(live.length).fill(undefined);
  for (const f of flags) {
    byKey.set(f.key, f);
    flagBySlot[f.slot] = f;
  }

  return Object.freeze({
    version: input.version,
    flags,
    evaluationOrder,
    byKey,
    flagBySlot,
    inactive: live.filter((f) => !f.active),
    slotCount: live.length,
    initialValues: live.map((f) => (f.active ? undefined : false)),
    cohortCount: cohortsById.size,
    hasFlagCycles,
  });
}

/** Flag slots reachable through the cohorts a flag references (flag filters inside cohorts). */
function cohortFlagSlots(cohorts: readonly CompiledCohort[]): number[] {
  const slots: number[] = [];
  const seen = new Set<CompiledCohort>();
  for (const start of cohorts) {
    for (const c of reachableCohorts(start)) {
      if (seen.has(c)) continue;
      seen.add(c);
      slots.push(...c.flagSlots);
    }
  }
  return slots;
}

/**
 * Sets `deps` (active dependencies) and `broken` on every flag; returns the flags in evaluation
 * order and whether a cycle exists.
 */
function orderAndMark(
  flags: CompiledFlag[],
  refs: FlagRefs[],
  slotCount: number,
): { evaluationOrder: CompiledFlag[]; hasFlagCycles: boolean } {
  const nodeOfSlot = new Int32Array(slotCount).fill(-1);
  flags.forEach((f, node) => {
    nodeOfSlot[f.slot] = node;
  });
  const nodeDeps = flags.map((f, node) => {
    const r = refs[node] as FlagRefs;
    const depNodes = new Set<number>();
    for (const slot of [...r.slots, ...cohortFlagSlots(r.cohorts)]) {
      const dep = nodeOfSlot[slot] ?? -1;
      if (dep >= 0) depNodes.add(dep);
    }
    f.deps = [...depNodes].map((n) => (flags[n] as CompiledFlag).slot);
    return [...depNodes];
  });

  const { order, inCycle } = dependencyOrder(nodeDeps);
  const broken = new Uint8Array(flags.length);
  let hasCycle = false;
  for (const node of order) {
    const flag = flags[node] as CompiledFlag;
    if (inCycle[node]) {
      hasCycle = true;
      broken[node] = 1;
      flag.broken = IN_DEPENDENCY_CYCLE;
    } else if ((refs[node] as FlagRefs).missingFlag || (nodeDeps[node] ?? []).some((d) => broken[d] === 1)) {
      broken[node] = 1;
      flag.broken = MISSING_DEPENDENCY;
    }
  }
  return { evaluationOrder: order.map((n) => flags[n] as CompiledFlag), hasFlagCycles: hasCycle };
}

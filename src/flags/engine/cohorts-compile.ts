/**
 * Cohorts for evaluation (spec flags.md §3.6). Property cohorts compile their nested AND/OR
 * tree (`{type, values}`, leaves optionally `negation: true`) once; static cohorts keep only
 * their id and are answered per request by the membership callback. A cohort whose evaluation
 * would reach a missing cohort, or a cycle of cohorts, is marked with the error the Rust
 * service returns for it (a missing one wins, as the Rust graph walk finds it first).
 */

import { compileFilter, type FilterEnv } from './snapshot-filters.js';
import { FILTER_COHORT, FILTER_FLAG, type CohortDefinition, type CohortNode, type CompiledCohort } from './snapshot-types.js';

type Obj = Record<string, unknown>;

function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Shells for every non-deleted cohort, so filters can reference each other before compiling. */
export function cohortShells(definitions: readonly CohortDefinition[]): Map<number, CompiledCohort> {
  const byId = new Map<number, CompiledCohort>();
  for (const def of definitions) {
    if (def.deleted === true || byId.has(def.id)) continue;
    byId.set(def.id, {
      id: def.id,
      index: byId.size,
      isStatic: def.is_static,
      root: null,
      error: null,
      cohortRefs: [],
      flagSlots: [],
      missingRef: false,
    });
  }
  return byId;
}

/** Compiles the filters of each property cohort into its shell, then marks the failing ones. */
export function compileCohorts(
  definitions: readonly CohortDefinition[],
  byId: ReadonlyMap<number, CompiledCohort>,
  env: FilterEnv,
): void {
  for (const def of definitions) {
    const cohort = byId.get(def.id);
    if (!cohort || cohort.isStatic || def.deleted === true) continue;
    const properties = isObject(def.filters) ? def.filters.properties : undefined;
    cohort.root = isObject(properties) ? compileNode(properties, cohort, env) : null;
  }
  for (const cohort of byId.values()) cohort.error = cohortError(cohort);
}

function compileNode(raw: Obj, owner: CompiledCohort, env: FilterEnv): CohortNode | null {
  const values = Array.isArray(raw.values) ? raw.values : [];
  if (values.length === 0) return null;
  const children: CohortNode[] = [];
  for (const value of values) {
    if (isObject(value) && Array.isArray(value.values)) {
      const child = compileNode(value, owner, env);
      children.push(child ?? EMPTY_GROUP);
      continue;
    }
    const filter = compileFilter(value, null, true, env);
    if (filter.kind === FILTER_COHORT) {
      if (filter.cohort) owner.cohortRefs.push(filter.cohort);
      else owner.missingRef = true;
    } else if (filter.kind === FILTER_FLAG && filter.flagSlot >= 0) {
      owner.flagSlots.push(filter.flagSlot);
    }
    const negation = isObject(value) && value.negation === true;
    children.push({ isGroup: false, and: false, children: [], filter, negation });
  }
  return { isGroup: true, and: raw.type !== 'OR', children, filter: null, negation: false };
}

/** An empty nested group matches. */
const EMPTY_GROUP: CohortNode = Object.freeze({ isGroup: true, and: true, children: [], filter: null, negation: false });

/** Every cohort reachable from `start` through cohort references (itself included). */
export function reachableCohorts(start: CompiledCohort): CompiledCohort[] {
  const seen = new Set<CompiledCohort>([start]);
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    for (const next of (queue[i] as CompiledCohort).cohortRefs) {
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  return queue;
}

function cohortError(cohort: CompiledCohort): CompiledCohort['error'] {
  if (cohort.isStatic) return null;
  const reachable = reachableCohorts(cohort);
  if (reachable.some((c) => c.missingRef)) return 'dependency_not_found_cohort';
  return hasCycle(reachable) ? 'dependency_cycle_cohort' : null;
}

function hasCycle(nodes: readonly CompiledCohort[]): boolean {
  const state = new Map<CompiledCohort, 1 | 2>();
  const visit = (c: CompiledCohort): boolean => {
    const s = state.get(c);
    if (s === 1) return true;
    if (s === 2) return false;
    state.set(c, 1);
    for (const next of c.cohortRefs) if (visit(next)) return true;
    state.set(c, 2);
    return false;
  };
  return nodes.some(visit);
}

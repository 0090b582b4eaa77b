/**
 * Cohorts for evaluation (docs/compatibility.md#cohorts-and-flag-dependencies). Property cohorts
 * compile their nested AND/OR tree (`{type, values}`, leaves optionally `negation: true`) once;
 * static cohorts keep only their id and are answered per request by the membership callback. A
 * cohort whose evaluation would reach a missing cohort, or a cycle of cohorts, is marked with the
 * error the Rust service returns for it (a missing one wins, as the Rust graph walk finds it
 * first).
 */

import { compileFilter, type FilterEnv } from './snapshot-filters.js';
import { FILTER_COHORT, FILTER_FLAG, type CohortDefinition, type CohortNode, type CompiledCohort } from './snapshot-types.js';
import { isPlainObject } from '../../util/plain-object.js';

type Obj = Record<string, unknown>;

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
      chainDepth: 0,
    });
  }
  return byId;
}

/** Compiles the filters of each property cohort into its shell, then marks the failing ones. */
export function compileCohorts(definitions: readonly CohortDefinition[], byId: ReadonlyMap<number, CompiledCohort>, env: FilterEnv): void {
  for (const def of definitions) {
    const cohort = byId.get(def.id);
    if (!cohort || cohort.isStatic || def.deleted === true) continue;
    const properties = isPlainObject(def.filters) ? def.filters.properties : undefined;
    cohort.root = isPlainObject(properties) ? compileNode(properties, cohort, env) : null;
  }
  markErrorsAndDepths([...byId.values()]);
}

function compileNode(raw: Obj, owner: CompiledCohort, env: FilterEnv): CohortNode | null {
  const values = Array.isArray(raw.values) ? raw.values : [];
  if (values.length === 0) return null;
  const children: CohortNode[] = [];
  for (const value of values) {
    if (isPlainObject(value) && Array.isArray(value.values)) {
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
    const negation = isPlainObject(value) && value.negation === true;
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

/** What a cohort reaches through its references, shared by the cohorts of one cycle. */
interface Component {
  /** A reached cohort references one that does not exist. */
  missing: boolean;
  /** A reached cohort is in a cycle. */
  cyclic: boolean;
  /** The longest chain of references below (meaningful when not cyclic). */
  depth: number;
}

/**
 * Sets `error` and `chainDepth` on every cohort, in one pass over the reference graph: Tarjan's
 * strongly connected components, walked without recursion (a chain of cohorts may be longer than
 * the stack), which finishes each component after every component it reaches.
 */
function markErrorsAndDepths(cohorts: readonly CompiledCohort[]): void {
  const order = new Map<CompiledCohort, number>();
  const low = new Map<CompiledCohort, number>();
  const open: CompiledCohort[] = [];
  const isOpen = new Set<CompiledCohort>();
  const componentOf = new Map<CompiledCohort, Component>();
  const enter = (c: CompiledCohort) => {
    order.set(c, order.size);
    low.set(c, order.size - 1);
    open.push(c);
    isOpen.add(c);
  };
  for (const root of cohorts) {
    if (order.has(root)) continue;
    enter(root);
    const path: { cohort: CompiledCohort; next: number }[] = [{ cohort: root, next: 0 }];
    while (path.length > 0) {
      const top = path[path.length - 1]!;
      const ref = top.cohort.cohortRefs[top.next++];
      if (ref !== undefined) {
        if (!order.has(ref)) {
          enter(ref);
          path.push({ cohort: ref, next: 0 });
        } else if (isOpen.has(ref)) {
          low.set(top.cohort, Math.min(low.get(top.cohort)!, order.get(ref)!));
        }
        continue;
      }
      path.pop();
      const parent = path[path.length - 1];
      if (parent !== undefined) low.set(parent.cohort, Math.min(low.get(parent.cohort)!, low.get(top.cohort)!));
      if (low.get(top.cohort) !== order.get(top.cohort)) continue;
      const members: CompiledCohort[] = [];
      let member: CompiledCohort;
      do {
        member = open.pop()!;
        isOpen.delete(member);
        members.push(member);
      } while (member !== top.cohort);
      const component: Component = {
        missing: members.some((m) => m.missingRef),
        cyclic: members.length > 1 || top.cohort.cohortRefs.includes(top.cohort),
        depth: 0,
      };
      for (const m of members) {
        for (const r of m.cohortRefs) {
          const below = componentOf.get(r);
          if (below === undefined) continue; // a member of this component
          component.missing ||= below.missing;
          component.cyclic ||= below.cyclic;
          component.depth = Math.max(component.depth, below.depth + 1);
        }
      }
      for (const m of members) componentOf.set(m, component);
    }
  }
  for (const cohort of cohorts) {
    const component = componentOf.get(cohort)!;
    // A missing cohort wins over a cycle, as the Rust graph walk finds it first.
    cohort.error = cohort.isStatic
      ? null
      : component.missing
        ? 'dependency_not_found_cohort'
        : component.cyclic
          ? 'dependency_cycle_cohort'
          : null;
    cohort.chainDepth = cohort.error === null ? component.depth : 0;
  }
}

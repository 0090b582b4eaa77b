/**
 * Re-pointing what a PostHog flag or cohort refers to by PostHog's numbers to Hedgerow's
 * (docs/compatibility.md#importing-from-posthog): cohort ids, flag dependencies (the answer names
 * them by flag key; Hedgerow stores the flag id, as PostHog stores it), and group type indexes.
 * The `dependency_chain` PostHog adds to flag dependencies for SDKs is dropped: it is computed
 * when definitions are served. Pure: the maps are given.
 */
import { cohortIdOf } from '../flags/cohort-checks.js';
import { isPlainObject } from '../util/plain-object.js';

type Obj = Record<string, unknown>;

export interface ReferenceMaps {
  /** Hedgerow's index for PostHog's group type index; undefined when that group type was not imported. */
  groupTypeIndex(posthogIndex: number): number | undefined;
  /** Hedgerow's id for a PostHog cohort id; undefined when that cohort was not imported. */
  cohortId(posthogId: number): number | undefined;
  /** The id of the project's live flag with this key, undefined when there is none. */
  flagId(key: string): number | undefined;
}

export type Rewritten = { ok: true; value: Obj } | { ok: false; reason: string };

/** Condition lists of a flag's filters whose `properties` may refer to cohorts, flags and groups. */
const CONDITION_LISTS = ['groups', 'super_groups', 'holdout_groups'] as const;

class Unresolved extends Error {}

export function rewriteFlagFilters(filters: Obj, maps: ReferenceMaps): Rewritten {
  const out = structuredClone(filters);
  try {
    if (typeof out.aggregation_group_type_index === 'number') {
      out.aggregation_group_type_index = groupIndex(out.aggregation_group_type_index, maps);
    }
    for (const list of CONDITION_LISTS) {
      const conditions = out[list];
      if (!Array.isArray(conditions)) continue;
      for (const condition of conditions) {
        if (!isPlainObject(condition) || !Array.isArray(condition.properties)) continue;
        for (const p of condition.properties) if (isPlainObject(p)) rewriteProperty(p, maps);
      }
    }
  } catch (err) {
    if (err instanceof Unresolved) return { ok: false, reason: err.message };
    throw err;
  }
  return { ok: true, value: out };
}

/** A cohort's property group (`{type, values}`, nested), with cohort references re-pointed. */
export function rewriteCohortGroup(group: Obj, maps: ReferenceMaps): Rewritten {
  const out = structuredClone(group);
  try {
    forEachLeaf(out, (leaf) => rewriteProperty(leaf, maps));
  } catch (err) {
    if (err instanceof Unresolved) return { ok: false, reason: err.message };
    throw err;
  }
  return { ok: true, value: out };
}

/** The flag keys a flag's conditions depend on (`type: "flag"` properties), in order, once each. */
export function flagDependencyKeys(filters: Obj): string[] {
  const keys = new Set<string>();
  for (const list of CONDITION_LISTS) {
    const conditions = filters[list];
    if (!Array.isArray(conditions)) continue;
    for (const condition of conditions) {
      if (!isPlainObject(condition) || !Array.isArray(condition.properties)) continue;
      for (const p of condition.properties) {
        if (isPlainObject(p) && p.type === 'flag' && p.key !== undefined) keys.add(String(p.key));
      }
    }
  }
  return [...keys];
}

/** The PostHog cohort ids a cohort's property group refers to. */
export function cohortGroupReferences(group: Obj): number[] {
  const ids = new Set<number>();
  forEachLeaf(group, (leaf) => {
    const id = leaf.type === 'cohort' ? cohortIdOf(leaf.value) : undefined;
    if (id !== undefined) ids.add(id);
  });
  return [...ids];
}

function rewriteProperty(p: Obj, maps: ReferenceMaps): void {
  if (p.type === 'cohort') {
    const posthogId = cohortIdOf(p.value);
    if (posthogId === undefined) return; // left for validation to refuse
    const id = maps.cohortId(posthogId);
    if (id === undefined) {
      throw new Unresolved(
        `refers to PostHog cohort ${posthogId}, which was not imported (the answer holds no such cohort, or it was skipped)`,
      );
    }
    p.value = id;
  } else if (p.type === 'flag') {
    const key = String(p.key ?? '');
    const id = maps.flagId(key);
    if (id === undefined) throw new Unresolved(`depends on flag "${key}", which is neither imported nor in the project`);
    p.key = String(id);
    delete p.dependency_chain;
  }
  if (typeof p.group_type_index === 'number') p.group_type_index = groupIndex(p.group_type_index, maps);
}

function groupIndex(posthogIndex: number, maps: ReferenceMaps): number {
  const index = maps.groupTypeIndex(posthogIndex);
  if (index === undefined) throw new Unresolved(`uses PostHog group type ${posthogIndex}, which was not imported`);
  return index;
}

/** Visits the leaves of a property group, however deeply nested, without recursion. */
function forEachLeaf(node: unknown, visit: (leaf: Obj) => void): void {
  const stack: unknown[] = [node];
  while (stack.length > 0) {
    const n = stack.pop();
    if (!isPlainObject(n)) continue;
    if (Array.isArray(n.values) && (n.type === 'AND' || n.type === 'OR')) {
      for (let i = n.values.length - 1; i >= 0; i--) stack.push(n.values[i]);
    } else {
      visit(n);
    }
  }
}

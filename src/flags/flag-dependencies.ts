/**
 * Flag dependencies: a condition property `{type: "flag", key: "<flag id>", operator:
 * "flag_evaluates_to", value}` makes one flag depend on another
 * (docs/compatibility.md#flag-validation). Pure checks over the project's flags: references must be
 * integer ids of active, non-deleted flags, never the flag itself, and never a cycle; a flag others
 * depend on cannot be deleted or disabled, and a flag cannot be enabled while a flag it depends on
 * is disabled.
 */
import { catalogueError } from '../errors.js';
import type { FeatureFlagRecord, FlagFilters } from './feature-flag.js';

/** The raw `key`s of every flag-type property in the filters' groups, in order. */
function flagPropertyKeys(filters: FlagFilters): unknown[] {
  const groups = Array.isArray(filters.groups) ? filters.groups : [];
  const keys: unknown[] = [];
  for (const group of groups) {
    const properties = (group as { properties?: unknown } | null)?.properties;
    if (!Array.isArray(properties)) continue;
    for (const p of properties) {
      if (p && typeof p === 'object' && (p as { type?: unknown }).type === 'flag') keys.push((p as { key?: unknown }).key);
    }
  }
  return keys;
}

/** The ids a flag depends on directly (references that are not integer ids are left out). */
export function dependencyIds(filters: FlagFilters): number[] {
  const ids = new Set<number>();
  for (const key of flagPropertyKeys(filters)) {
    const id = toFlagId(key);
    if (id !== undefined) ids.add(id);
  }
  return [...ids];
}

/**
 * Validates the dependencies of `flag` (its id is undefined on create) against the project's
 * flags. Throws the 400 PostHog gives, attr `filters`.
 */
export function checkFlagDependencies(
  flag: { id: number | undefined; key: string; filters: FlagFilters },
  projectFlags: ReadonlyMap<number, FeatureFlagRecord>,
): void {
  for (const ref of flagPropertyKeys(flag.filters)) {
    const id = toFlagId(ref);
    if (id === undefined) {
      throw catalogueError('HR_FLAG_DEPENDENCY_NOT_AN_ID', { reference: String(ref) });
    }
    if (id === flag.id) throw catalogueError('HR_FLAG_DEPENDS_ON_ITSELF', { key: flag.key });
    const target = projectFlags.get(id);
    if (!target || target.deleted) throw catalogueError('HR_FLAG_DEPENDENCY_NOT_FOUND', { id });
    if (!target.active) throw catalogueError('HR_FLAG_DEPENDENCY_DISABLED', { key: target.key, id });
  }
  if (flag.id !== undefined) {
    const cycle = findCycle(flag.id, dependencyIds(flag.filters), projectFlags);
    if (cycle) {
      const names = cycle.map((id) => (id === flag.id ? flag.key : (projectFlags.get(id)?.key ?? String(id))));
      throw catalogueError('HR_FLAG_DEPENDENCY_CYCLE', { path: names.join(' → ') });
    }
  }
}

/** Live, active flags of the project that depend on `id` directly. */
export function activeDependents(id: number, projectFlags: Iterable<FeatureFlagRecord>): FeatureFlagRecord[] {
  const out: FeatureFlagRecord[] = [];
  for (const f of projectFlags) {
    if (f.id !== id && !f.deleted && f.active && dependencyIds(f.filters).includes(id)) out.push(f);
  }
  return out;
}

export function describeFlags(flags: readonly FeatureFlagRecord[]): string {
  return flags.map((f) => `${f.key} (ID: ${f.id})`).join(', ');
}

/**
 * A path start → … → start through the dependency graph, if one exists. Depth first without
 * recursion (a chain of flags may be longer than the stack), each flag entered once.
 */
function findCycle(start: number, direct: number[], projectFlags: ReadonlyMap<number, FeatureFlagRecord>): number[] | undefined {
  const seen = new Set<number>();
  const path: { id: number; next: number[]; index: number }[] = [{ id: start, next: direct, index: 0 }];
  while (path.length > 0) {
    const top = path[path.length - 1]!;
    const id = top.next[top.index++];
    if (id === undefined) {
      path.pop();
      continue;
    }
    if (id === start) return [...path.map((step) => step.id), id];
    if (seen.has(id)) continue;
    seen.add(id);
    const flag = projectFlags.get(id);
    if (flag) path.push({ id, next: dependencyIds(flag.filters), index: 0 });
  }
  return undefined;
}

function toFlagId(ref: unknown): number | undefined {
  if (typeof ref === 'number' && Number.isSafeInteger(ref) && ref > 0) return ref;
  if (typeof ref === 'string' && /^\d{1,15}$/.test(ref)) return Number(ref);
  return undefined;
}

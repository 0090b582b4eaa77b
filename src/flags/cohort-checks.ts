/**
 * Cohort references in flag conditions (docs/compatibility.md#flag-validation): the cohort must
 * exist in the project, and neither it nor any cohort it references (directly or through other
 * cohorts) may hold behavioural (event) filters, which flags cannot evaluate.
 */

import { catalogueError, HedgerowError } from '../errors.js';
import { pythonStr } from '../compat/python-repr.js';
import { isPlainObject } from '../util/plain-object.js';

/** A cohort as the flag checks see it. */
export interface CohortInfo {
  id: number;
  name: string;
  deleted: boolean;
  is_static: boolean;
  /**
   * PostHog cohort filters: `{properties: {type: 'AND'|'OR', values: [...]}}`, groups nested in
   * `values`; leaves are properties (`type: 'behavioral'` for event filters, `type: 'cohort'` with
   * `value: <id>` for a reference to another cohort).
   */
  filters: unknown;
}

export type CohortLookup = (id: number) => CohortInfo | undefined;

/** A cohort property's value as a cohort id (an integer, or a string holding one). */
export function cohortIdOf(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (typeof value === 'string' && /^\s*[+-]?\d{1,15}\s*$/.test(value)) return Number(value);
  return undefined;
}

/** Visits the leaf properties of a cohort's filters, however deeply grouped. */
function forEachLeaf(node: unknown, visit: (leaf: Record<string, unknown>) => void): void {
  if (Array.isArray(node)) {
    for (const item of node) forEachLeaf(item, visit);
    return;
  }
  if (!isPlainObject(node)) return;
  if (Array.isArray(node.values)) {
    forEachLeaf(node.values, visit);
    return;
  }
  // A legacy cohort group: an action or event criterion is behavioural.
  if (node.action_id != null || node.event_id != null) visit({ type: 'behavioral' });
  if ('properties' in node || 'groups' in node) {
    forEachLeaf(node.properties, visit);
    forEachLeaf(node.groups, visit);
    return;
  }
  visit(node);
}

/**
 * The cohort and every cohort it depends on, each once, the cohort itself first, then depth first
 * in the order of the references. Walked without recursion: a chain of cohorts can be long.
 */
function withDependencies(first: CohortInfo, lookup: CohortLookup): CohortInfo[] {
  const seen = new Set<number>([first.id]);
  const out: CohortInfo[] = [];
  const stack: { refs: unknown[]; next: number }[] = [];
  const enter = (cohort: CohortInfo): void => {
    out.push(cohort);
    const refs: unknown[] = [];
    forEachLeaf(cohort.filters, (leaf) => {
      if (leaf.type === 'cohort') refs.push(leaf.value);
    });
    stack.push({ refs, next: 0 });
  };
  enter(first);
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.next === top.refs.length) {
      stack.pop();
      continue;
    }
    const id = cohortIdOf(top.refs[top.next++]);
    if (id === undefined || seen.has(id)) continue;
    seen.add(id);
    const dep = lookup(id);
    if (dep !== undefined) enter(dep);
  }
  return out;
}

function hasBehavioralFilter(cohort: CohortInfo): boolean {
  let found = false;
  forEachLeaf(cohort.filters, (leaf) => {
    if (leaf.type === 'behavioral') found = true;
  });
  return found;
}

/**
 * Checks the cohort named by a flag condition's cohort property `value`; throws
 * `cohort_does_not_exist` or `behavioral_cohort_found` (attr `filters`). Soft-deleted cohorts
 * still count as existing, as in PostHog.
 */
export function checkCohortReference(value: unknown, lookup: CohortLookup): void {
  const id = cohortIdOf(value);
  const cohort = id === undefined ? undefined : lookup(id);
  if (cohort === undefined) {
    throw catalogueError('HR_COHORT_DOES_NOT_EXIST', { id: pythonStr(value) });
  }
  for (const c of withDependencies(cohort, lookup)) {
    if (hasBehavioralFilter(c)) {
      throw catalogueError('HR_BEHAVIORAL_COHORT', { name: c.name });
    }
  }
}

/**
 * Whether flag filters use the cohort `cohortId`, through a cohort property of a condition or
 * through the cohorts such a cohort references (PostHog's `get_cohort_ids`; a static cohort's
 * references are not followed).
 */
export function filtersUseCohort(flagFilters: unknown, cohortId: number, lookup: CohortLookup): boolean {
  let uses = false;
  forEachLeaf(flagFilters, (leaf) => {
    if (uses || leaf.type !== 'cohort') return;
    const id = cohortIdOf(leaf.value);
    const cohort = id === undefined ? undefined : lookup(id);
    if (id === cohortId) uses = true;
    else if (cohort !== undefined && !cohort.is_static) uses = withDependencies(cohort, lookup).some((c) => c.id === cohortId);
  });
  return uses;
}

/**
 * PostHog's check of new filters for a cohort active flags use (`_validate_feature_flag_constraints`):
 * no behavioural filter in them, nor in any non-static cohort they reference. Throws
 * `behavioral_cohort_found` (attr `filters`).
 */
export function checkFiltersForFlagCohort(filters: unknown, lookup: CohortLookup): void {
  forEachLeaf(filters, (leaf) => {
    if (leaf.type === 'behavioral') {
      throw new HedgerowError('HR_BEHAVIORAL_FILTER_IN_FLAG_COHORT');
    }
    if (leaf.type !== 'cohort') return;
    const id = cohortIdOf(leaf.value);
    const nested = id === undefined ? undefined : lookup(id);
    if (nested === undefined) return;
    for (const c of withDependencies(nested, lookup)) {
      if (!c.is_static && hasBehavioralFilter(c)) {
        throw catalogueError('HR_BEHAVIORAL_COHORT_DEPENDENCY', { name: c.name });
      }
    }
  });
}

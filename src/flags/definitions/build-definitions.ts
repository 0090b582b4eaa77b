/**
 * The body of the local-evaluation definitions endpoints (docs/compatibility.md#flag-definitions):
 * every non-deleted flag that is not a remote configuration (inactive ones with `active: false`),
 * ordered by key, with flag dependencies rewritten; the group type mapping; and, with
 * `send_cohorts`, every non-static cohort the served flags reference, directly or through other
 * cohorts. Without `send_cohorts`, a flag whose conditions use exactly one cohort has it inlined as
 * person-property conditions where possible, as Django does
 * (`FeatureFlag.transform_cohort_filters_for_easy_evaluation`). Pure: no I/O.
 */

import type { FeatureFlagRecord, FlagFilters } from '../feature-flag.js';
import { normalizedFilters } from '../flag-view.js';
import type { CohortRecord } from '../../store/cohort-store.js';
import { applyDependencyChains } from './dependency-chain.js';
import { minimalFlag, type MinimalFlag } from './minimal-flag.js';
import { isPlainObject } from '../../util/plain-object.js';

export interface DefinitionsInput {
  /** All of the project's flags, any state. */
  flags: readonly FeatureFlagRecord[];
  /** All of the project's cohorts, any state. */
  cohorts: readonly CohortRecord[];
  /** Group type index (as a string) -> group type name. */
  groupTypeMapping: Readonly<Record<string, string>>;
  sendCohorts: boolean;
}

export interface FlagDefinitions {
  flags: unknown[];
  group_type_mapping: Record<string, string>;
  cohorts: Record<string, unknown>;
}

type Obj = Record<string, unknown>;

/** Key order, as the Rust definitions fallback sorts (`ORDER BY f.key`); id breaks ties. */
function byKey(a: FeatureFlagRecord, b: FeatureFlagRecord): number {
  if (a.key !== b.key) return a.key < b.key ? -1 : 1;
  return a.id - b.id;
}

export function buildDefinitions(input: DefinitionsInput): FlagDefinitions {
  const served = input.flags.filter((f) => !f.deleted && !f.is_remote_configuration).sort(byKey);
  const live = new Map(input.cohorts.filter((c) => !c.deleted).map((c) => [c.id, c]));
  const cohorts: Record<string, unknown> = {};
  const flags: MinimalFlag[] = served.map((flag) => {
    const filters = structuredClone(normalizedFilters(flag)) as FlagFilters;
    const ids = referencedCohortIds(filters, live);
    if (input.sendCohorts) {
      for (const id of ids ?? []) {
        const cohort = live.get(id);
        if (cohort && !cohort.is_static) cohorts[String(id)] = cohortPropertyGroup(cohort);
      }
    } else if (ids?.size === 1) {
      filters.groups = inlineSingleCohort(filters.groups, live);
    }
    return minimalFlag(flag, filters);
  });
  applyDependencyChains(flags, new Map(served.map((f) => [String(f.id), f.key])));
  return { flags, group_type_mapping: { ...input.groupTypeMapping }, cohorts };
}

/** A cohort's property tree as stored (`filters.properties`), `{}` when it has none. */
function cohortPropertyGroup(cohort: CohortRecord): unknown {
  const properties = cohort.filters.properties;
  return isPlainObject(properties) ? structuredClone(properties) : {};
}

// --- Cohort references -------------------------------------------------------------------------

/** Python's `int()` on a cohort reference, for the forms PostHog stores; undefined when it fails. */
function cohortId(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return Math.trunc(value);
  if (typeof value === 'string' && /^\s*[+-]?\d{1,15}\s*$/.test(value)) return Number(value);
  return undefined;
}

function conditions(groups: unknown): Obj[] {
  return Array.isArray(groups) ? groups.filter(isPlainObject) : [];
}

function propertiesOf(condition: Obj): Obj[] {
  return Array.isArray(condition.properties) ? condition.properties.filter(isPlainObject) : [];
}

function isPropertyGroup(v: unknown): v is { type: string; values: unknown[] } {
  return isPlainObject(v) && (v.type === 'AND' || v.type === 'OR') && Array.isArray(v.values);
}

/** The leaves of a property tree, depth first. */
function leaves(node: unknown): Obj[] {
  if (isPropertyGroup(node)) return node.values.flatMap(leaves);
  return isPlainObject(node) ? [node] : [];
}

function cohortTree(cohort: CohortRecord): unknown {
  return cohort.filters.properties;
}

/**
 * Ids of the live cohorts the flag's conditions reference, with the cohorts those reference in
 * turn (Django's `get_cohort_ids` with `get_all_cohort_dependencies`). References to unknown or
 * deleted cohorts are skipped. Undefined when a condition's cohort value is not an integer:
 * Django fails on that flag and collects nothing for it.
 */
function referencedCohortIds(filters: FlagFilters, live: ReadonlyMap<number, CohortRecord>): Set<number> | undefined {
  const found = new Set<number>();
  for (const condition of conditions(filters.groups)) {
    for (const p of propertiesOf(condition)) {
      if (p.type !== 'cohort') continue;
      const id = cohortId(p.value);
      if (id === undefined) return undefined;
      if (live.has(id)) addWithDependencies(id, live, found);
    }
  }
  return found;
}

function addWithDependencies(start: number, live: ReadonlyMap<number, CohortRecord>, found: Set<number>): void {
  const queue = [start];
  while (queue.length > 0) {
    const id = queue.pop() as number;
    const cohort = live.get(id);
    if (!cohort || found.has(id)) continue;
    found.add(id);
    for (const leaf of leaves(cohortTree(cohort))) {
      if (leaf.type !== 'cohort' || Array.isArray(leaf.value)) continue;
      const dep = cohortId(leaf.value);
      if (dep !== undefined) queue.push(dep);
    }
  }
}

// --- Inlining one cohort (no send_cohorts) -----------------------------------------------------

/** `Property.to_dict()`'s fields, in its order; null and absent ones are left out. */
const PROPERTY_FIELDS = [
  'key',
  'operator',
  'type',
  'group_type_index',
  'event_type',
  'operator_value',
  'time_value',
  'time_interval',
  'total_periods',
  'min_periods',
  'seq_event_type',
  'seq_event',
  'seq_time_value',
  'seq_time_interval',
  'negation',
  'value',
] as const;

/** A person property as Django re-serializes it; undefined when Django would reject it. */
function propertyDict(leaf: Obj): Obj | undefined {
  const out: Obj = {};
  for (const field of PROPERTY_FIELDS) {
    const v = leaf[field];
    if (v !== null && v !== undefined) out[field] = v;
  }
  if (out.value === undefined) {
    if (leaf.operator !== 'is_set' && leaf.operator !== 'is_not_set') return undefined;
    out.value = leaf.operator;
  }
  return out;
}

/** Django's `clear_excess_levels`: drop single-child groups at the top and below a wide group. */
function clearExcessLevels(node: unknown, skip = false): unknown {
  if (!isPropertyGroup(node)) return node;
  if (node.values.length === 1) {
    if (!skip) return clearExcessLevels(node.values[0]);
    return { type: node.type, values: node.values.map((v) => clearExcessLevels(v)) };
  }
  return { type: node.type, values: node.values.map((v) => clearExcessLevels(v, true)) };
}

/** Conditions of properties, each with the rollout; undefined when a property cannot be sent. */
function asConditions(propertySets: Obj[][], rollout: unknown): Obj[] | undefined {
  const out: Obj[] = [];
  for (const set of propertySets) {
    const properties: Obj[] = [];
    for (const leaf of set) {
      const dict = propertyDict(leaf);
      if (!dict) return undefined;
      properties.push(dict);
    }
    out.push({ properties, rollout_percentage: rollout });
  }
  return out;
}

/**
 * The flag's conditions with its one cohort condition replaced by person-property conditions,
 * appended after the other conditions; the conditions unchanged when that is not possible
 * (a variant override, the cohort beside other properties, a cohort that is missing, empty, or
 * has non-person, negated or nested-OR-of-OR properties). As in Django, the new conditions take
 * the rollout of the flag's last condition.
 */
function inlineSingleCohort(groups: unknown, live: ReadonlyMap<number, CohortRecord>): unknown {
  let cohort: CohortRecord | undefined;
  let rollout: unknown = null;
  const kept: Obj[] = [];
  for (const condition of conditions(groups)) {
    if (condition.variant) return groups;
    const props = propertiesOf(condition);
    rollout = condition.rollout_percentage ?? null;
    let usesCohort = false;
    for (const p of props) {
      if (p.type !== 'cohort') continue;
      usesCohort = true;
      const id = cohortId(p.value);
      if (!id) continue;
      if (props.length > 1) return groups;
      cohort = live.get(id);
      if (!cohort) return groups;
    }
    if (!usesCohort) kept.push(condition);
  }
  if (!cohort) return groups;
  const flat = leaves(cohortTree(cohort));
  if (flat.length === 0 || flat.some((p) => p.type !== 'person' || p.negation === true || p.negation === 'true')) {
    return groups;
  }
  const expanded = expandTree(clearExcessLevels(cohortTree(cohort)), rollout);
  return expanded ? [...kept, ...expanded] : groups;
}

/** One AND group -> one condition; OR of properties -> one condition each; OR of ANDs -> one each. */
function expandTree(tree: unknown, rollout: unknown): Obj[] | undefined {
  if (!isPropertyGroup(tree)) return isPlainObject(tree) ? asConditions([[tree]], rollout) : undefined;
  const values = tree.values;
  if (values.every((v) => !isPropertyGroup(v))) {
    const props = values.filter(isPlainObject);
    return tree.type === 'AND'
      ? asConditions([props], rollout)
      : asConditions(
          props.map((p) => [p]),
          rollout,
        );
  }
  if (tree.type === 'AND') return undefined;
  const sets: Obj[][] = [];
  for (const group of values) {
    if (!isPropertyGroup(group) || group.values.length === 0) return undefined;
    if (group.values.some(isPropertyGroup)) return undefined;
    if (group.type === 'OR' && group.values.length > 1) return undefined;
    sets.push(group.values.filter(isPlainObject));
  }
  return asConditions(sets, rollout);
}

/**
 * The checks a cohort write passes, as PostHog's cohort serializer makes them
 * (docs/compatibility.md#management-api): field rules in field order, the property tree's shape,
 * references to cohorts that exist and do not loop back, and, on PATCH, the constraints of the
 * active flags that use the cohort. The management API and the PostHog import both write cohorts
 * through it. Pure: the stores are read through the context.
 */
import { readBooleanField, readCharField, readDictField } from '../compat/drf-fields.js';
import { catalogueError, HedgerowError } from '../errors.js';
import type { FeatureFlagRecord } from '../flags/feature-flag.js';
import { checkFiltersForFlagCohort, cohortIdOf, filtersUseCohort } from '../flags/cohort-checks.js';
import type { CohortRecord, CohortWrite } from '../store/cohort-store.js';
import { isPlainObject } from '../util/plain-object.js';

const NAME_MAX_LENGTH = 400;
/** PostHog's `description` column: `varchar(1000)`. */
const DESCRIPTION_MAX_LENGTH = 1000;

export type CohortWriteMode = 'create' | 'patch' | 'put';

export interface CohortWriteContext {
  mode: CohortWriteMode;
  /** The stored cohort, for PATCH and PUT. */
  current: CohortRecord | undefined;
  /** A cohort of the project (deleted ones included). */
  cohort(id: number): CohortRecord | undefined;
  /** The project's flags. */
  flags(): readonly FeatureFlagRecord[];
}

type Body = Readonly<Record<string, unknown>>;

/** Field checks in field order: name, description, filters (a property group), is_static, deleted. */
export function validateCohortWrite(body: Body, ctx: CohortWriteContext): CohortWrite {
  const out: CohortWrite = {};
  if (body.name !== undefined && body.name !== null) {
    out.name = readCharField(body.name, 'name', { allowBlank: true, maxLength: NAME_MAX_LENGTH });
  }
  if (body.description !== undefined && body.description !== null) {
    out.description = readCharField(body.description, 'description', { allowBlank: true, maxLength: DESCRIPTION_MAX_LENGTH });
  }
  if (body.filters !== undefined) {
    const filters = readDictField(body.filters, 'filters');
    checkFilters(filters, ctx);
    out.filters = filters;
  }
  if (body.is_static !== undefined) out.is_static = readBooleanField(body.is_static, 'is_static', false) as boolean;
  if (out.filters !== undefined && ctx.current !== undefined && ctx.mode === 'patch') {
    checkForFlags(out.filters, ctx.current, out.is_static ?? ctx.current.is_static, ctx);
  }
  if (body.deleted !== undefined) out.deleted = readBooleanField(body.deleted, 'deleted', false) as boolean;
  return out;
}

/**
 * PATCHed filters of a cohort an active flag uses (directly or through other cohorts) may hold
 * no behavioural filter, nor reference a cohort that does: the flag could no longer be
 * evaluated (PostHog's `_validate_feature_flag_constraints`). A static cohort staying static
 * is not checked: its members are a list.
 */
function checkForFlags(filters: unknown, current: CohortRecord, willBeStatic: boolean, ctx: CohortWriteContext): void {
  if (current.is_static && willBeStatic) return;
  const lookup = (id: number) => ctx.cohort(id);
  const used = ctx.flags().some((flag) => flag.active && !flag.deleted && filtersUseCohort(flag.filters, current.id, lookup));
  if (used) checkFiltersForFlagCohort(filters, lookup);
}

/** `filters.properties` must be an AND/OR group; referenced cohorts must exist and not loop back. */
function checkFilters(filters: Record<string, unknown>, ctx: CohortWriteContext): void {
  const properties = filters.properties;
  if (properties === undefined) return;
  // Depth first, in the order of the values, without recursion (a chain of cohorts can be long);
  // a cohort already walked through is not walked again (shared sub-cohorts would otherwise
  // be walked once per path: exponentially many).
  const selfId = ctx.current?.id;
  const onPath = new Set<number>(selfId === undefined ? [] : [selfId]);
  const walked = new Set<number>();
  const stack: { nodes: readonly unknown[]; next: number; cohort?: number }[] = [{ nodes: [properties], next: 0 }];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (frame.next === frame.nodes.length) {
      stack.pop();
      if (frame.cohort !== undefined) {
        onPath.delete(frame.cohort);
        walked.add(frame.cohort);
      }
      continue;
    }
    const node = frame.nodes[frame.next++];
    if (!isPlainObject(node)) throw new HedgerowError('HR_COHORT_FILTERS_NOT_GROUPS');
    const group = node;
    if (Array.isArray(group.values)) {
      if (group.type !== 'AND' && group.type !== 'OR') throw new HedgerowError('HR_COHORT_GROUP_TYPE_INVALID');
      stack.push({ nodes: group.values, next: 0 });
      continue;
    }
    if (group.type !== 'cohort') continue;
    const id = cohortIdOf(group.value);
    const target = id === undefined ? undefined : ctx.cohort(id);
    if (id === undefined || !target) {
      throw catalogueError('HR_COHORT_DOES_NOT_EXIST', { id: String(group.value) });
    }
    if (onPath.has(id)) throw new HedgerowError('HR_COHORT_LOOP');
    if (walked.has(id)) continue;
    const nested = (target.filters as { properties?: unknown }).properties;
    if (nested === undefined) {
      walked.add(id);
      continue;
    }
    onPath.add(id);
    stack.push({ nodes: [nested], next: 0, cohort: id });
  }
}

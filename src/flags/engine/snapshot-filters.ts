/**
 * Compiles one stored property filter (docs/compatibility.md#property-matching) into a
 * `CompiledFilter`: person and group filters get their property matcher compiled once; flag
 * filters (#cohorts-and-flag-dependencies) resolve the flag they depend on to its value slot;
 * cohort filters resolve to the compiled cohort. Filter types the server cannot evaluate
 * (behavioural, unknown) compile to a never-match.
 */

import { cohortIdOf } from '../cohort-checks.js';
import { compilePropertyMatcher, type PropertyMatcherOptions } from './match-property.js';
import type { PropertyFilter, PropertyMatcher } from './property-matcher.js';
import {
  FILTER_COHORT,
  FILTER_FLAG,
  FILTER_GROUP,
  FILTER_NEVER,
  FILTER_PERSON,
  type CompiledCohort,
  type CompiledFilter,
} from './snapshot-types.js';
import { isPlainObject } from '../../util/plain-object.js';

/** Lookups the compiler needs from the snapshot being built. */
export interface FilterEnv {
  /** Slot of the non-deleted flag with this id, or -1. */
  flagSlotById(id: number): number;
  /** The non-deleted cohort with this id, or null. */
  cohortById(id: number): CompiledCohort | null;
  /** Group type name of a group type index, or undefined. */
  groupTypeName(index: number): string | undefined;
  /** Matcher options (the team's time zone for dates). */
  readonly matcherOptions: PropertyMatcherOptions;
}

type Obj = Record<string, unknown>;

const neverMatches: PropertyMatcher = () => false;

function filter(fields: Partial<CompiledFilter> & { kind: number }): CompiledFilter {
  // Same fields in the same order for every kind: one hidden class.
  return {
    kind: fields.kind,
    key: fields.key ?? '',
    match: fields.match ?? neverMatches,
    isDistinctId: fields.isDistinctId ?? false,
    groupType: fields.groupType,
    flagSlot: fields.flagSlot ?? -1,
    expected: fields.expected ?? null,
    cohort: fields.cohort ?? null,
    negate: fields.negate ?? false,
  };
}

const NEVER_FILTER: CompiledFilter = Object.freeze(filter({ kind: FILTER_NEVER }));

/** A flag reference's id: an integer, or a string of digits (the stored form). */
function flagIdOf(ref: unknown): number | undefined {
  if (typeof ref === 'number' && Number.isSafeInteger(ref)) return ref;
  if (typeof ref === 'string' && /^\d{1,15}$/.test(ref)) return Number(ref);
  return undefined;
}

function compileMatcher(raw: Obj, options: PropertyMatcherOptions): PropertyMatcher | null {
  try {
    return compilePropertyMatcher(raw as unknown as PropertyFilter, options);
  } catch {
    return null;
  }
}

/**
 * Compiles `raw`. `aggregation` is the condition's group type index (group filters without
 * their own `group_type_index` read that group). Inside a cohort (`inCohort`) every property
 * filter reads person properties, as cohorts are person-level.
 */
export function compileFilter(raw: unknown, aggregation: number | null, inCohort: boolean, env: FilterEnv): CompiledFilter {
  if (!isPlainObject(raw)) return NEVER_FILTER;
  const type = raw.type ?? 'person';
  const operator = raw.operator;

  if (type === 'cohort') {
    const id = cohortIdOf(raw.value);
    const cohort = id === undefined ? null : env.cohortById(id);
    return filter({ kind: FILTER_COHORT, cohort, negate: operator === 'not_in' });
  }

  if (type === 'flag') {
    const id = flagIdOf(raw.key);
    const slot = id === undefined ? -1 : env.flagSlotById(id);
    const value = raw.value;
    const comparable = typeof value === 'boolean' || typeof value === 'string';
    const expected = operator === 'flag_evaluates_to' && comparable ? value : null;
    return filter({ kind: FILTER_FLAG, flagSlot: slot, expected });
  }

  if (typeof raw.key !== 'string') return NEVER_FILTER;
  const isGroup = type === 'group' && !inCohort;
  const isPerson = type === 'person' || type === 'person_metadata' || (inCohort && type === 'group');
  if (!isGroup && !isPerson) return NEVER_FILTER;

  const match = compileMatcher(raw, env.matcherOptions);
  if (match === null) return NEVER_FILTER;
  if (isPerson) return filter({ kind: FILTER_PERSON, key: raw.key, match, isDistinctId: raw.key === 'distinct_id' });

  const index = typeof raw.group_type_index === 'number' ? raw.group_type_index : aggregation;
  const groupType = index === null ? undefined : env.groupTypeName(index);
  return filter({ kind: FILTER_GROUP, key: raw.key, match, groupType });
}

/**
 * Reading what PostHog answers on `GET /api/projects/:id/feature_flags/local_evaluation/?send_cohorts`
 * (docs/compatibility.md#importing-from-posthog): `flags` (Django's `MinimalFeatureFlagSerializer`
 * objects, flag dependencies naming flag keys with a `dependency_chain`), `group_type_mapping`
 * (index → name) and `cohorts` (PostHog cohort id → property group). Only the shape is checked
 * here; each flag is validated later as the API validates one. Pure: no I/O.
 */
import { isPlainObject } from '../util/plain-object.js';

export interface PostHogFlag {
  /** The flag's PostHog id, when the answer has one (only reported, never kept). */
  id: number | undefined;
  key: string;
  /** The whole object as PostHog sent it. */
  raw: Readonly<Record<string, unknown>>;
}

export interface PostHogDefinitions {
  flags: PostHogFlag[];
  /** PostHog's group type index → name, by index. */
  groupTypes: Array<{ index: number; name: string }>;
  /** PostHog's cohort id → its property group (`{type: AND|OR, values}`). */
  cohorts: Map<number, Record<string, unknown>>;
}

/** The file (or the fetched answer) is not such an answer: nothing is imported. */
export class NotPostHogDefinitions extends Error {}

/** PostHog keeps at most five group types per project (indexes 0 to 4). */
const MAX_GROUP_TYPE_INDEX = 4;

export function readPostHogDefinitions(text: string): PostHogDefinitions {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new NotPostHogDefinitions(`not JSON: ${(err as Error).message}`);
  }
  if (!isPlainObject(parsed)) throw new NotPostHogDefinitions(`expected a JSON object with "flags", found ${describe(parsed)}`);
  if (!Array.isArray(parsed.flags)) {
    if (Array.isArray(parsed.results)) {
      throw new NotPostHogDefinitions(
        'this is the flag list (it has "results"): import the local evaluation answer instead, GET /api/projects/:id/feature_flags/local_evaluation/?send_cohorts',
      );
    }
    throw new NotPostHogDefinitions(`expected "flags" to be a list, found ${describe(parsed.flags)}`);
  }
  return {
    flags: parsed.flags.map((flag, i) => readFlag(flag, i)),
    groupTypes: readGroupTypes(parsed.group_type_mapping),
    cohorts: readCohorts(parsed.cohorts),
  };
}

function readFlag(flag: unknown, i: number): PostHogFlag {
  if (!isPlainObject(flag)) throw new NotPostHogDefinitions(`flags[${i}] is ${describe(flag)}, not a flag object`);
  if (typeof flag.key !== 'string' || flag.key === '') throw new NotPostHogDefinitions(`flags[${i}] has no "key"`);
  if (flag.filters !== undefined && flag.filters !== null && !isPlainObject(flag.filters)) {
    throw new NotPostHogDefinitions(`flags[${i}] ("${flag.key}") has "filters" that are ${describe(flag.filters)}, not an object`);
  }
  return { id: typeof flag.id === 'number' ? flag.id : undefined, key: flag.key, raw: flag };
}

function readGroupTypes(mapping: unknown): Array<{ index: number; name: string }> {
  if (mapping === undefined || mapping === null) return [];
  if (!isPlainObject(mapping)) throw new NotPostHogDefinitions(`expected "group_type_mapping" to be an object, found ${describe(mapping)}`);
  const out: Array<{ index: number; name: string }> = [];
  for (const [index, name] of Object.entries(mapping)) {
    if (!/^[0-4]$/.test(index) || typeof name !== 'string' || name === '') {
      throw new NotPostHogDefinitions(
        `"group_type_mapping" maps ${JSON.stringify(index)} to ${JSON.stringify(name)}: expected indexes 0 to ${MAX_GROUP_TYPE_INDEX} mapped to names`,
      );
    }
    out.push({ index: Number(index), name });
  }
  return out.sort((a, b) => a.index - b.index);
}

function readCohorts(cohorts: unknown): Map<number, Record<string, unknown>> {
  const out = new Map<number, Record<string, unknown>>();
  if (cohorts === undefined || cohorts === null) return out;
  if (!isPlainObject(cohorts)) throw new NotPostHogDefinitions(`expected "cohorts" to be an object, found ${describe(cohorts)}`);
  for (const [id, group] of Object.entries(cohorts)) {
    if (!/^\d{1,15}$/.test(id)) throw new NotPostHogDefinitions(`"cohorts" has the key ${JSON.stringify(id)}: expected cohort ids`);
    if (!isPlainObject(group)) throw new NotPostHogDefinitions(`cohort ${id} is ${describe(group)}, not a property group`);
    out.set(Number(id), group);
  }
  return out;
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (v === undefined) return 'nothing';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

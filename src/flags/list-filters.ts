/**
 * The query filters and ordering of the flag list (docs/compatibility.md#lists-and-pages). Deleted
 * flags are never listed. Filters: `active=true|false|STALE` (anything but `true` and `STALE` means
 * false), `created_by_id` (an id, a comma list or a JSON list), `search` (case-insensitive
 * substring of key or name), `type=boolean|multivariant|experiment|remote_config` (Hedgerow has no
 * experiments, so `experiment` matches nothing; other values do not filter), `evaluation_runtime`
 * (exact), `tags` (JSON list: any of them; invalid JSON is ignored), `excluded_properties` (JSON
 * list of keys to leave out; invalid JSON is ignored) and `has_evaluation_tags=true|false`. A
 * repeated parameter counts with its last value.
 */

import type { FeatureFlagRecord } from './feature-flag.js';
import { flagType, isStale } from './flag-view.js';

type Predicate = (flag: FeatureFlagRecord) => boolean;

function parseJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}

/** User ids in `created_by_id`: `5`, `5,7` or `[5, 7]`; ids that are not integers match nothing. */
function userIds(raw: string): Set<number> {
  const parsed = raw.trim().startsWith('[') ? parseJson(raw) : undefined;
  const items: unknown[] = Array.isArray(parsed) ? parsed : raw.split(',');
  const ids = new Set<number>();
  for (const item of items) {
    const n = typeof item === 'number' ? item : typeof item === 'string' && /^\s*\d+\s*$/.test(item) ? Number(item) : NaN;
    if (Number.isSafeInteger(n)) ids.add(n);
  }
  return ids;
}

/** A JSON list of strings from a parameter, or undefined when it is not one (or is empty). */
function stringList(raw: string): string[] | undefined {
  const parsed = parseJson(raw);
  if (!Array.isArray(parsed) || parsed.length === 0) return undefined;
  return parsed.filter((v): v is string => typeof v === 'string');
}

function predicateFor(name: string, value: string, now: Date): Predicate | undefined {
  switch (name) {
    case 'active':
      if (value === 'STALE') return (f) => isStale(f, now);
      return (f) => f.active === (value === 'true');
    case 'created_by_id': {
      const ids = userIds(value);
      return (f) => f.created_by !== null && ids.has(f.created_by);
    }
    case 'search': {
      const needle = value.toLowerCase();
      return (f) => f.key.toLowerCase().includes(needle) || f.name.toLowerCase().includes(needle);
    }
    case 'type':
      if (value === 'boolean' || value === 'multivariant') return (f) => flagType(f) === value;
      if (value === 'experiment') return () => false;
      if (value === 'remote_config') return (f) => f.is_remote_configuration;
      return undefined;
    case 'evaluation_runtime':
      return (f) => f.evaluation_runtime === value;
    case 'tags': {
      const tags = stringList(value);
      return tags === undefined ? undefined : (f) => f.tags.some((t) => tags.includes(t));
    }
    case 'excluded_properties': {
      const keys = stringList(value);
      return keys === undefined ? undefined : (f) => !keys.includes(f.key);
    }
    case 'has_evaluation_tags': {
      const wanted = ['true', '1', 'yes', 'on'].includes(value.toLowerCase());
      return (f) => f.evaluation_tags.length > 0 === wanted;
    }
    default:
      return undefined;
  }
}

export function filterFlags(flags: readonly FeatureFlagRecord[], query: URLSearchParams, now: Date): FeatureFlagRecord[] {
  const predicates: Predicate[] = [(f) => !f.deleted];
  for (const name of new Set(query.keys())) {
    const value = query.getAll(name).at(-1) ?? '';
    const p = predicateFor(name, value, now);
    if (p !== undefined) predicates.push(p);
  }
  return flags.filter((f) => predicates.every((p) => p(f)));
}

/** Newest first: `created_at` descending, then `id` descending. Returns a new array. */
export function orderNewestFirst(flags: readonly FeatureFlagRecord[]): FeatureFlagRecord[] {
  return [...flags].sort((a, b) => {
    if (a.created_at !== b.created_at) return a.created_at < b.created_at ? 1 : -1;
    return b.id - a.id;
  });
}

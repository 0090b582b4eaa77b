/**
 * How PostHog's groups API prints groups and group types, and how its list filters match
 * (`GroupsViewSet`, `GroupTypeSerializer`; Postgres lookups):
 * - `group_key`: the key contains the value, case-insensitively;
 * - `search`: the properties' `jsonb` text contains it, case-insensitively, or the key equals it,
 *   case-insensitively.
 */
import type { GroupRecord } from '../store/group-store.js';
import { apiDateTime } from './person-view.js';

export function renderGroup(group: GroupRecord): Record<string, unknown> {
  return {
    group_type_index: group.group_type_index,
    group_key: group.group_key,
    group_properties: group.group_properties,
    created_at: apiDateTime(group.created_at),
  };
}

/** `groups/find` adds the group's notebook; Hedgerow has no notebooks. */
export function renderFoundGroup(group: GroupRecord): Record<string, unknown> {
  return { ...renderGroup(group), notebook: null };
}

/** A group type; the display names, dashboard, columns and creation time are not kept here. */
export function renderGroupType(type: { name: string; index: number }): Record<string, unknown> {
  return {
    group_type: type.name,
    group_type_index: type.index,
    name_singular: null,
    name_plural: null,
    detail_dashboard: null,
    default_columns: null,
    created_at: null,
  };
}

export interface GroupFilter {
  /** `group_key`: a case-insensitive substring of the key ('' matches every group). */
  keyContains: string;
  /** `search`, when given. */
  search: string | undefined;
}

export function groupMatches(group: GroupRecord, f: GroupFilter): boolean {
  const key = group.group_key.toUpperCase();
  if (!key.includes(f.keyContains.toUpperCase())) return false;
  if (f.search === undefined) return true;
  const s = f.search.toUpperCase();
  return jsonbText(group.group_properties).toUpperCase().includes(s) || key === s;
}

/** Newest `created_at` first; groups created at the same instant keep their order. */
export function compareNewestFirst(a: string, b: string): number {
  const d = Date.parse(b) - Date.parse(a);
  return Number.isNaN(d) ? 0 : d;
}

/**
 * A JSON value as Postgres prints a `jsonb` (`::text`): `{"k": v, "k2": v2}` with `": "` and
 * `", "`, object keys shorter-first then bytewise (jsonb's storage order).
 */
export function jsonbText(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map(jsonbText).join(', ')}]`;
  if (typeof value === 'object') {
    const keys = Object.keys(value).sort(jsonbKeyOrder);
    const obj = value as Record<string, unknown>;
    return `{${keys.map((k) => `${JSON.stringify(k)}: ${jsonbText(obj[k])}`).join(', ')}}`;
  }
  return JSON.stringify(value);
}

function jsonbKeyOrder(a: string, b: string): number {
  const ab = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  return ab.length - bb.length || Buffer.compare(ab, bb);
}

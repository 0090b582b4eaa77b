/**
 * How the filters of PostHog's groups list match (`GroupsViewSet`; Postgres lookups), and its order:
 * - `group_key`: the key contains the value, case-insensitively;
 * - `search`: the properties' `jsonb` text contains it, case-insensitively, or the key equals it,
 *   case-insensitively.
 */
import { jsonbText } from '../compat/postgres-jsonb.js';
import type { GroupRecord } from '../store/group-store.js';

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

/**
 * A page of the groups list (`GET …/groups/?group_type_index=N`), read in slices of the group
 * type's groups in the worker pool, like the persons list (scan-persons.ts): groups have no index
 * by `created_at`, so a page sorts every match. Newest first, PostHog's cursor pagination, 100 a page.
 */
import { cursorPage, type Cursor, type CursorOrdering, type CursorPage } from '../compat/drf-cursor-pagination.js';
import { HedgerowError } from '../errors.js';
import { compareNewestFirst, groupMatches, type GroupFilter } from './group-filter.js';
import type { GroupReader, GroupRecord } from '../store/group-store.js';
import type { ScanPacing } from '../store/scan-in-slices.js';

/** PostHog's `GroupCursorPagination.page_size`. */
const GROUPS_PAGE_SIZE = 100;

const NEWEST_FIRST: CursorOrdering<GroupRecord> = {
  position: (g) => g.created_at,
  compare: compareNewestFirst,
  valid: (p) => !Number.isNaN(Date.parse(p)),
};

export interface GroupsPageQuery {
  projectId: number;
  typeIndex: number;
  filter: GroupFilter;
  cursor: Cursor | undefined;
}

/** The cursor, once its position is one the ordering can compare (else 404 `Invalid cursor`, before any read). */
export function checkGroupsCursor(cursor: Cursor | undefined): Cursor | undefined {
  if (cursor?.position !== undefined && !NEWEST_FIRST.valid(cursor.position)) throw new HedgerowError('HR_INVALID_CURSOR');
  return cursor;
}

export async function scanGroupsPage(groups: GroupReader, q: GroupsPageQuery, pacing: ScanPacing): Promise<CursorPage<GroupRecord>> {
  const matched: GroupRecord[] = [];
  await groups.scan(q.projectId, q.typeIndex, pacing, (g) => {
    if (groupMatches(g, q.filter)) matched.push(g);
    return false;
  });
  matched.sort((a, b) => compareNewestFirst(a.created_at, b.created_at));
  return cursorPage(matched, q.cursor, GROUPS_PAGE_SIZE, NEWEST_FIRST);
}

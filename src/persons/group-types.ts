/**
 * Group type indexes (docs/compatibility.md#groups): each project names at most five group types,
 * and each name keeps the column index 0–4 it was first given.
 *
 * Source read: PostHog/posthog `nodejs/src/common/groups/group-type-manager.ts`
 * (`MAX_GROUP_TYPES_PER_TEAM`, `fetchGroupTypeIndex`).
 */

/** PostHog's events table has five `$group_N` columns, so a project may register five types. */
export const MAX_GROUP_TYPES = 5;

/** PostHog's group type mapping holds names in a varchar(400): a longer name is never registered. */
const MAX_GROUP_TYPE_CHARS = 400;

/**
 * Index for `name` given the project's mapping name→index: its existing index, else the lowest
 * index not yet taken (a gap left by a deleted type is reused first), else — five types already
 * registered, or a name over `MAX_GROUP_TYPE_CHARS` — undefined: the type is dropped and events
 * get no `$group_N` for it.
 */
export function allocateGroupTypeIndex(existing: ReadonlyMap<string, number>, name: string): number | undefined {
  const known = existing.get(name);
  if (known !== undefined) return known;
  if (name.length > MAX_GROUP_TYPE_CHARS) return undefined;
  const used = new Set(existing.values());
  if (used.size >= MAX_GROUP_TYPES) return undefined;
  let index = 0;
  while (used.has(index)) index++;
  return index;
}

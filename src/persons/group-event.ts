/**
 * Groups named by events (docs/compatibility.md#groups): `$groupidentify` upserts one group, and
 * any event's `$groups` gains `$group_<index>` properties.
 *
 * Sources read (PostHog/posthog):
 * - `nodejs/src/ingestion/common/steps/event-processing/groups.ts` (the newest copy; earlier
 *   `nodejs/src/ingestion/event-processing/groups.ts`, `nodejs/src/worker/ingestion/groups.ts`):
 *   `extractGroupIdentify` (falsy `$group_type`/`$group_key` skipped, key `toString()` then
 *   `sanitizeString`), `enrichPropertiesWithGroupTypes`, `addGroupProperties` (`$groups` must be
 *   a non-array object);
 * - the process-groups step (`createProcessGroupsStep`): both happen only for events that process
 *   persons; the group's properties come from `$group_set || {}`, and a non-object `$group_set`
 *   upserts nothing (`invalid_group_set`);
 * - `nodejs/src/ingestion/event-preprocessing/validate-event-properties.ts`: a `$group_key` longer
 *   than 400 characters drops the event (`group_key_too_long`);
 * - `nodejs/src/ingestion/common/groups/group-update.ts` `calculateUpdate`: set semantics with
 *   deep equality;
 * - `nodejs/src/utils/db/utils.ts` `sanitizeString`: NUL → U+FFFD.
 *
 * Chosen where PostHog's copies disagree: a numeric or boolean `$group_type`/`$group_key` is
 * stringified (what released PostHog does through `toString()`; its newest copy rejects every
 * non-string with `invalid_group_key`/`invalid_group_type`), while an object or array is rejected
 * (older copies would have keyed the group `'[object Object]'`).
 */
import { jsonEqual } from '../flags/json-equal.js';
import type { StoredEvent } from '../ingest/types.js';
import { MAX_GROUP_KEY_CHARS } from '../limits.js';
import { copyOwn, hasOwn, isPlainObject, setOwn } from '../util/plain-object.js';
import { keyWithoutNul, withoutNul } from './without-nul.js';

export interface GroupIdentify {
  groupType: string;
  groupKey: string;
  set: Record<string, unknown>;
}

/** Strings as they are, numbers and booleans as text, anything else undefined. */
function scalarText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** PostHog's `sanitizeString`: NUL cannot be stored in Postgres text. */
function sanitize(text: string): string {
  return text.includes('\0') ? text.replaceAll('\0', '\uFFFD') : text;
}

/**
 * `$groupidentify` with a truthy `$group_type` and `$group_key` (numbers stringified, NUL
 * replaced in both) and an object or absent `$group_set`; undefined otherwise, and for a key over 400
 * characters or an event sent with `$process_person_profile: false` (PostHog drops both).
 */
export function parseGroupIdentify(e: Pick<StoredEvent, 'event' | 'properties'>): GroupIdentify | undefined {
  if (e.event !== '$groupidentify') return undefined;
  const props = e.properties;
  if (props.$process_person_profile === false) return undefined;
  if (!props.$group_type || !props.$group_key) return undefined;
  const groupType = scalarText(props.$group_type);
  const groupKey = scalarText(props.$group_key);
  if (groupType === undefined || groupKey === undefined || groupKey.length > MAX_GROUP_KEY_CHARS) return undefined;
  const groupSet = props.$group_set;
  if (groupSet !== undefined && groupSet !== null && !isPlainObject(groupSet)) return undefined;
  const set: Record<string, unknown> = {};
  if (isPlainObject(groupSet)) for (const [k, v] of Object.entries(groupSet)) setOwn(set, k, v);
  return { groupType: sanitize(groupType), groupKey: sanitize(groupKey), set };
}

/**
 * A `$groupidentify` whose `$group_key` is over 400 characters: PostHog's ingestion drops the
 * whole event (`group_key_too_long`), so it creates no group, no person and no group type.
 */
export function isDroppedGroupIdentify(e: Pick<StoredEvent, 'event' | 'properties'>): boolean {
  if (e.event !== '$groupidentify') return false;
  const key = scalarText(e.properties.$group_key);
  return key !== undefined && key.length > MAX_GROUP_KEY_CHARS;
}

/** The group type names of `properties.$groups` (object only), in order: the types to register. */
export function groupTypesOf(groups: unknown): string[] {
  return isPlainObject(groups) ? Object.keys(groups) : [];
}

/**
 * `properties.$groups` (object only; arrays and null ignored) → `$group_<index>` properties for
 * the types in the mapping; types without an index (over the limit) are skipped. PostHog copies
 * the raw value; here a number or boolean key is written as text and any other non-string value
 * (null, object) is skipped, since a group key is text everywhere it is read.
 */
export function groupIndexProperties(groups: unknown, mapping: ReadonlyMap<string, number>): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isPlainObject(groups)) return out;
  for (const [type, key] of Object.entries(groups)) {
    const index = mapping.get(type);
    const text = scalarText(key);
    if (index === undefined || text === undefined) continue;
    out[`$group_${index}`] = text;
  }
  return out;
}

/**
 * The event as PostHog stores it once ingested: `$group_<index>` for each of its `$groups` whose
 * type has an index (docs/compatibility.md#groups). Hedgerow stores events as captured, before the
 * person processor gives new group types their index, and adds these when the event is read. The
 * event itself is returned when it has nothing to add.
 */
export function withGroupIndexes(e: StoredEvent, mapping: ReadonlyMap<string, number>): StoredEvent {
  const groups = e.properties.$groups;
  if (groups === undefined || mapping.size === 0) return e;
  const added = groupIndexProperties(groups, mapping);
  for (const _ in added) return { ...e, properties: Object.assign(copyOwn(e.properties), added) };
  return e;
}

/**
 * Group properties after a `$groupidentify`: each `$group_set` key is written when absent or
 * structurally different; nothing is ever removed. Returns the properties and whether they
 * changed: `current` itself when nothing changed, a copy made at the first change, or, with
 * `inPlace` (a record its caller alone holds), `current` changed in place.
 */
export function applyGroupSet(
  current: Record<string, unknown>,
  set: Readonly<Record<string, unknown>>,
  inPlace = false,
): { properties: Record<string, unknown>; changed: boolean } {
  let properties: Record<string, unknown> | undefined = inPlace ? current : undefined;
  let changed = false;
  for (const [sent, sentValue] of Object.entries(set)) {
    // Stored as PostHog stores them: NUL → U+FFFD (without-nul.ts).
    const key = keyWithoutNul(sent);
    const value = withoutNul(sentValue);
    const now = properties ?? current;
    if (hasOwn(now, key) && jsonEqual(now[key], value)) continue;
    properties ??= copyOwn(current); // a `__proto__` key stays a key
    setOwn(properties, key, value);
    changed = true;
  }
  return { properties: properties ?? current, changed };
}

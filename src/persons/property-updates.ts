/**
 * Person property changes an event carries, and applying them
 * (docs/compatibility.md#person-properties).
 *
 * Sources read (PostHog/posthog):
 * - `nodejs/src/worker/ingestion/persons/person-update.ts` @1843a160: `computeEventPropertyUpdates`,
 *   `applyEventPropertyUpdates`, `NO_PERSON_UPDATE_EVENTS`, the `survey shown` mapping;
 * - `nodejs/src/common/utils/db/utils.ts` (newest index copy): `personInitialAndUTMProperties`;
 * - `nodejs/src/common/persons/person-property-utils.ts` @07eec2a4: the lists of properties lifted
 *   from events onto persons;
 * - `nodejs/src/utils/event.ts` @28ddb4cc: `normalizeEvent` (lifting skipped for `$snapshot` and
 *   `$performance_event`) and `normalizeProcessPerson` (`$set`/`$set_once`/`$unset` stripped from
 *   `$groupidentify` and from events with `$process_person_profile: false`);
 * - `nodejs/src/worker/ingestion/event-pipeline/normalizeEventStep.ts`: a non-object `$set` or
 *   `$set_once` counts as empty;
 * - `nodejs/src/worker/ingestion/persons/person-create-service.ts` @039125e1: a new person's
 *   properties.
 *
 * Capture already merged top-level `$set`/`$set_once` into the properties, the top level winning
 * (`StoredEvent.properties`, docs/compatibility.md#event-normalization), so this module reads only
 * `properties.$set`.
 *
 * Where this differs from PostHog on purpose:
 * - `$set` compares values structurally (PostHog's person path uses `!==`, so an object value is
 *   rewritten by every event that sends it; the resulting properties are the same, only `changed`
 *   differs — PostHog's own group path moved to deep equality for that reason).
 * - Presence is an own-property test: PostHog's `typeof props[key] === 'undefined'` finds
 *   inherited names such as `toString` on a plain object and so never sets them once.
 * - `$unset` given as a string unsets nothing (PostHog's `Object.keys('email')` unsets keys
 *   `'0'`…`'4'`), and an array `$set`/`$set_once` counts as empty (PostHog spreads it into keys
 *   `'0'`, `'1'`, …).
 */
import { jsonEqual } from '../flags/json-equal.js';
import { copyOwn, hasOwn, isPlainObject, mergeOwn, setOwn } from '../util/plain-object.js';
import { keyWithoutNul, withoutNul } from './without-nul.js';

export interface PropertyUpdates {
  set: Record<string, unknown>;
  setOnce: Record<string, unknown>;
  unset: string[];
}

/** Events processed in separate PostHog pipelines, which never change person properties. */
export const EVENTS_WITHOUT_PERSON_UPDATES: ReadonlySet<string> = new Set(['$exception', '$$heatmap']);

/** `survey shown` also sets this person property to the event's timestamp. */
const SURVEY_SHOWN_EVENT = 'survey shown';
const SURVEY_LAST_SEEN_DATE = '$survey_last_seen_date';

/** Set by PostHog on every person it creates: the uuid of the event that created it. */
const CREATOR_EVENT_UUID = '$creator_event_uuid';

/** Device and page properties lifted from an event onto its person (`EVENT_TO_PERSON_PROPERTIES`). */
const EVENT_TO_PERSON_PROPERTIES = [
  '$app_build',
  '$app_name',
  '$app_namespace',
  '$app_version',
  '$browser',
  '$browser_version',
  '$device_type',
  '$current_url',
  '$pathname',
  '$os',
  '$os_name', // an alias of $os, see liftEventProperties
  '$os_version',
  '$referring_domain',
  '$referrer',
  '$screen_height',
  '$screen_width',
  '$viewport_height',
  '$viewport_width',
  '$raw_user_agent',
];

/** Campaign parameters lifted the same way (`CAMPAIGN_PROPERTIES`). */
const CAMPAIGN_PROPERTIES = [
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_content',
  'utm_name',
  'utm_term',
  'gclid',
  'gad_source',
  'gclsrc',
  'dclid',
  'gbraid',
  'wbraid',
  'fbclid',
  'msclkid',
  'twclid',
  'li_fat_id',
  'mc_cid',
  'igshid',
  'ttclid',
  'rdt_cid',
  'irclid',
  '_kx',
  'epik',
  'qclid',
  'sccid',
];

/** Every event property PostHog copies to `$set` (latest value) and `$set_once` (`$initial_*`). */
export const PERSON_PROPERTIES_FROM_EVENT: readonly string[] = [...EVENT_TO_PERSON_PROPERTIES, ...CAMPAIGN_PROPERTIES];

/** Events whose properties are never lifted onto persons (`normalizeEvent`). */
const EVENTS_WITHOUT_LIFTING: ReadonlySet<string> = new Set(['$snapshot', '$performance_event']);

/** `$browser` → `$initial_browser`, `utm_source` → `$initial_utm_source`. */
export function initialPropertyName(key: string): string {
  return `$initial_${key.replace('$', '')}`;
}

/** Each lifted property with its `$initial_*` name, computed once. */
const LIFTED: readonly (readonly [key: string, initial: string])[] = PERSON_PROPERTIES_FROM_EVENT.map((key) => [
  key,
  initialPropertyName(key),
]);

/** A shallow copy of a JSON object ({} for anything else); a `__proto__` key stays a key (`copyOwn`). */
function copyObject(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? copyOwn(value) : {};
}

/** `$unset` as an array of keys (non-strings skipped) or an object whose keys are used. */
function unsetKeys(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((k): k is string => typeof k === 'string');
  if (isPlainObject(value)) return Object.keys(value);
  return [];
}

function empty(): PropertyUpdates {
  return { set: {}, setOnce: {}, unset: [] };
}

/**
 * PostHog's `personInitialAndUTMProperties`: each listed property the event carries goes to `set`
 * unless the event's own `$set` names it, and, when not null, to `setOnce` as `$initial_<name>`
 * unless `$set_once` names that. Server SDKs (`$is_server: true`) describe their host, so their
 * `$os`/`$os_version` are not lifted. `$os_name` stands in for a missing `$os` (PostHog's
 * `normalizeOsAlias` fills the event's `$os` from it before lifting), feeds `$initial_os` when
 * `$os` is null, and is itself removed from both sides.
 */
function liftEventProperties(
  properties: Readonly<Record<string, unknown>>,
  set: Record<string, unknown>,
  setOnce: Record<string, unknown>,
): void {
  const fromServer = properties.$is_server === true;
  const source: Readonly<Record<string, unknown>> =
    !hasOwn(properties, '$os') && hasOwn(properties, '$os_name') ? withOsFromName(properties) : properties;
  let lifted = false;
  for (const [key, initial] of LIFTED) {
    if (!hasOwn(source, key)) continue;
    if (fromServer && (key === '$os' || key === '$os_version')) continue;
    lifted = true;
    const value = source[key];
    if (!hasOwn(set, key)) set[key] = value; // no listed name is `__proto__`
    // A null never becomes a first-touch value: browsers send absent campaign params as null.
    if (value !== null && value !== undefined && !hasOwn(setOnce, initial)) setOnce[initial] = value;
  }
  if (!lifted) return;
  const osName = properties.$os_name;
  if (osName !== undefined && !fromServer) {
    if (osName !== null && !hasOwn(setOnce, '$initial_os')) setOwn(setOnce, '$initial_os', osName);
    delete set.$os_name;
    delete setOnce.$initial_os_name;
  }
}

/** A copy of the event's properties with `$os` from `$os_name` (mobile SDKs send only the latter). */
function withOsFromName(properties: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const copy = copyOwn(properties);
  copy.$os = properties.$os_name;
  return copy;
}

/**
 * The person property changes one event carries: its `$set` (plus the lifted device/campaign
 * properties, plus `$survey_last_seen_date` for `survey shown`), its `$set_once` (plus the lifted
 * `$initial_*`), and its `$unset`. Nothing for `$exception`/`$$heatmap`, for `$groupidentify`
 * (its person keys are stripped) and for `$process_person_profile: false`.
 *
 * `timestamp` is the event's normalized time; PostHog writes the raw client `timestamp` string
 * into `$survey_last_seen_date`, which for current SDKs is the same instant.
 */
export function eventPropertyUpdates(eventName: string, properties: Readonly<Record<string, unknown>>, timestamp: string): PropertyUpdates {
  if (EVENTS_WITHOUT_PERSON_UPDATES.has(eventName)) return empty();
  if (eventName === '$groupidentify' || properties.$process_person_profile === false) return empty();
  const set = copyObject(properties.$set);
  const setOnce = copyObject(properties.$set_once);
  if (!EVENTS_WITHOUT_LIFTING.has(eventName)) liftEventProperties(properties, set, setOnce);
  const unset = unsetKeys(properties.$unset);
  if (eventName === SURVEY_SHOWN_EVENT && !hasOwn(set, SURVEY_LAST_SEEN_DATE)) {
    return { set: mergeOwn({ [SURVEY_LAST_SEEN_DATE]: timestamp }, set), setOnce, unset };
  }
  return { set, setOnce, unset };
}

/**
 * Applies updates to a person's properties, as `computeEventPropertyUpdates` followed by
 * `applyEventPropertyUpdates`: `setOnce` keys the person lacks (a key holding null is present),
 * then `set` keys whose value differs, then `unset` keys the person had before this event (a key
 * both set and unset by one event on a person lacking it stays set). When nothing changes, the
 * result's `properties` is `current` itself. `current` is copied at the first change, or, with
 * `inPlace` (properties their caller alone holds), changed in place: a person with many
 * properties is then not copied by every event that changes one.
 */
export function applyPropertyUpdates(
  current: Record<string, unknown>,
  updates: PropertyUpdates,
  inPlace = false,
): { properties: Record<string, unknown>; changed: boolean } {
  // Copied (or, in place, taken) at the first change only: most events change nothing on a person
  // they have seen.
  let properties: Record<string, unknown> | undefined;
  // `$unset` removes only keys the person had before this event: noted before any change.
  const hadBefore = updates.unset.length === 0 ? NOTHING : updates.unset.filter((key) => hasOwn(current, key));
  for (const sent in updates.setOnce) {
    if (!hasOwn(updates.setOnce, sent)) continue;
    const key = keyWithoutNul(sent);
    const now = properties ?? current;
    if (hasOwn(now, key) && now[key] !== undefined) continue;
    properties ??= inPlace ? current : copyObject(current);
    setOwn(properties, key, withoutNul(updates.setOnce[sent]));
  }
  for (const sent in updates.set) {
    if (!hasOwn(updates.set, sent)) continue;
    const key = keyWithoutNul(sent);
    const now = properties ?? current;
    const value = withoutNul(updates.set[sent]);
    if (jsonEqual(hasOwn(now, key) ? now[key] : undefined, value)) continue;
    properties ??= inPlace ? current : copyObject(current);
    setOwn(properties, key, value);
  }
  for (const key of hadBefore) {
    properties ??= inPlace ? current : copyObject(current);
    delete properties[key];
  }
  return properties === undefined ? { properties: current, changed: false } : { properties, changed: true };
}

const NOTHING: readonly string[] = Object.freeze([]);

/**
 * A new person's properties, as PostHog's `createPerson` builds them: `setOnce`, then `set` over
 * it, then `$creator_event_uuid`. `unset` plays no part in a creation.
 */
export function newPersonProperties(updates: PropertyUpdates, creatorEventUuid: string): Record<string, unknown> {
  // A key both sides name keeps `setOnce`'s position with `set`'s value; a `__proto__` key stays
  // a key (`mergeOwn`).
  const properties = withoutNul(mergeOwn(updates.setOnce, updates.set)) as Record<string, unknown>;
  properties[CREATOR_EVENT_UUID] = creatorEventUuid;
  return properties;
}

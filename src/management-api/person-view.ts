/**
 * How PostHog's persons API prints a person. The two endpoints differ, as in PostHog:
 * - the list (`get_serialized_people`): `id` is the person's UUID, with `type`, `is_identified`,
 *   `last_seen_at`, `matched_recordings` and `value_at_data_point`; distinct ids as stored;
 * - retrieve (`PersonSerializer`): `id` is the integer id; distinct ids with anonymous-looking
 *   ones last.
 * `name` is the first set display-name property, else the first non-anonymous distinct id.
 */
import type { PersonRecord } from '../store/person-store.js';
import { apiDateTime } from '../compat/iso-micros.js';
import { pythonTruthy } from '../compat/python-repr.js';

/** PostHog's default display-name properties, in order (a project may override them in PostHog; not here). */
const PERSON_DISPLAY_NAME_PROPERTIES: readonly string[] = ['email', 'Email', '$email', 'name', 'Name', 'username', 'Username', 'UserName'];

/** PostHog lists at most this many distinct ids per person in the persons list. */
export const LIST_DISTINCT_IDS_LIMIT = 1000;

/** A distinct id shaped like an SDK-generated anonymous id: five dash-separated runs of `[a-z0-9]`. */
export function isAnonymousId(distinctId: string): boolean {
  // Python's `re.match(r"^([a-z0-9]+\-){4}([a-z0-9]+)$")`: `$` also matches before a final newline.
  return /^([a-z0-9]+-){4}[a-z0-9]+\n?$/.test(distinctId);
}

/** Identified-looking distinct ids first, each group in its stored order. */
export function anonymousLast(distinctIds: readonly string[]): string[] {
  return [...distinctIds].sort((a, b) => Number(isAnonymousId(a)) - Number(isAnonymousId(b)));
}

/** The person's display name: the value of the first truthy display property (not always a string). */
export function personName(properties: Record<string, unknown>, distinctIds: readonly string[], fallback: string): unknown {
  for (const key of PERSON_DISPLAY_NAME_PROPERTIES) {
    const value = properties[key];
    if (pythonTruthy(value)) return value;
  }
  return anonymousLast(distinctIds)[0] ?? fallback;
}

/** A person as the persons list prints it. */
export function listedPerson(person: PersonRecord, distinctIds: readonly string[]): Record<string, unknown> {
  const ids = distinctIds.slice(0, LIST_DISTINCT_IDS_LIMIT);
  return {
    type: 'person',
    id: person.uuid,
    uuid: person.uuid,
    created_at: apiDateTime(person.created_at),
    // PostHog keeps a last-seen time per person; Hedgerow does not track it.
    last_seen_at: null,
    properties: person.properties,
    is_identified: person.is_identified,
    name: personName(person.properties, ids, person.uuid),
    distinct_ids: ids,
    matched_recordings: [],
    value_at_data_point: null,
  };
}

/** A person as `GET …/persons/:id/` prints it. */
export function retrievedPerson(person: PersonRecord, distinctIds: readonly string[]): Record<string, unknown> {
  return {
    id: person.id,
    name: personName(person.properties, distinctIds, String(person.id)),
    distinct_ids: anonymousLast(distinctIds),
    properties: person.properties,
    created_at: apiDateTime(person.created_at),
    uuid: person.uuid,
  };
}

/** How PostHog's API names one person: its UUID or its integer id. */
import { canonicalUuid, pythonInt } from '../compat/python-parse.js';

/** A person by UUID (lower-case canonical form) or by PostHog's integer id. */
export type PersonKey = { uuid: string } | { id: number };

export type PersonRef = PersonKey | 'invalid' | 'not_found';

/**
 * What `…/persons/:id/` and the events API's `person_id` name, as PostHog's `get_pk_or_uuid`
 * reads it: a UUID (any form Python takes), else an integer id (Python `int()`: sign, underscores,
 * spaces), else invalid. A dot is `not_found`, as DRF's lookup pattern stops at one.
 */
export function parsePersonRef(raw: string): PersonRef {
  if (raw.includes('.')) return 'not_found';
  const uuid = canonicalUuid(raw);
  if (uuid !== undefined) return { uuid };
  const n = pythonInt(raw);
  if (n === undefined) return 'invalid';
  // Negative or beyond exact integers: a valid id that no person has.
  if (n < 0 || !Number.isSafeInteger(n)) return 'not_found';
  return { id: Math.abs(n) }; // `-0` is id 0
}

/**
 * Copies of decoded values to keep for a long time. msgpackr's native string extraction decodes a
 * run of consecutive strings as one string and hands out slices of it, and V8 keeps a slice's
 * whole parent alive: a person's `$creator_event_uuid` kept in a blast radius table held every
 * other string of the event it came from, 372 bytes of heap per new person in all against 70
 * with a copy (200,000 capture-scenario persons, 2026-11-28). Strings shorter than V8's shortest
 * slice (13 characters) are never slices and are kept as they are.
 */

/** V8 makes a slice only of strings at least this long (`SlicedString::kMinLength`). */
const SHORTEST_SLICE = 13;

/**
 * `value` with none of its strings sharing storage with any other string: a string is copied
 * (JSON's parser makes a new one, ~0.25 µs for a UUID), an array or object cloned with its
 * strings; numbers, booleans and null as they are.
 */
export function detachedCopy<T>(value: T): T {
  if (typeof value === 'string') return value.length < SHORTEST_SLICE ? value : (JSON.parse(JSON.stringify(value)) as T);
  if (typeof value === 'object' && value !== null) return structuredClone(value);
  return value;
}

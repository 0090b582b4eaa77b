/**
 * Structural equality of JSON values, as Python's `==` compares dicts and lists: object key order
 * does not matter, array order does. Used where PostHog compares stored and sent field values
 * (activity changes; version conflicts: docs/compatibility.md#activity-log, #updates-and-deletion).
 */

import { hasOwn, isPlainObject } from '../util/plain-object.js';

export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (isPlainObject(a)) {
    if (!isPlainObject(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    for (const k of ka) {
      if (!hasOwn(b, k) || !jsonEqual(a[k], b[k])) return false;
    }
    return true;
  }
  return false;
}

/**
 * PostHog's `sanitizeJsonbValue`: Postgres `jsonb` holds no U+0000, so person and group
 * properties have every NUL, in keys and in values at any depth, replaced by U+FFFD before they
 * are stored (a flag comparing `email` with `"a\uFFFD@b"` then matches what was sent as
 * `"a\u0000@b"`). Values without a NUL are returned as they are, not copied. Pure.
 */
import { setOwn } from '../util/plain-object.js';

const NUL = '\u0000';
const REPLACEMENT = '\uFFFD';

export function keyWithoutNul(key: string): string {
  return key.includes(NUL) ? key.replaceAll(NUL, REPLACEMENT) : key;
}

export function withoutNul(value: unknown): unknown {
  if (typeof value === 'string') return keyWithoutNul(value);
  if (typeof value !== 'object' || value === null || !holdsNul(value)) return value;
  if (Array.isArray(value)) return value.map(withoutNul);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) setOwn(out, keyWithoutNul(k), withoutNul(v));
  return out;
}

/** Whether a NUL is anywhere in an object or array (JSON values nest at most 128 deep). */
function holdsNul(value: object): boolean {
  if (Array.isArray(value)) return value.some((v) => (typeof v === 'string' ? v.includes(NUL) : typeof v === 'object' && v !== null && holdsNul(v)));
  for (const [k, v] of Object.entries(value)) {
    if (k.includes(NUL)) return true;
    if (typeof v === 'string' ? v.includes(NUL) : typeof v === 'object' && v !== null && holdsNul(v)) return true;
  }
  return false;
}

/**
 * The `properties` query parameter of PostHog's list endpoints (events, persons), which Hedgerow
 * does not filter by yet: an empty filter is accepted, anything else is refused with a 400 that
 * names it, so that a caller never takes an unfiltered list for a filtered one.
 */
import { catalogueError, HedgerowError } from '../errors.js';
import { isPlainObject } from '../util/plain-object.js';

export function refusePropertyFilter(q: URLSearchParams, list: string): void {
  const raw = q.get('properties');
  if (!raw) return;
  let filters: unknown;
  try {
    filters = JSON.parse(raw);
  } catch {
    throw new HedgerowError('HR_QUERY_PROPERTIES_UNPARSABLE');
  }
  if (!isEmptyPropertyFilter(filters)) {
    throw catalogueError('HR_QUERY_FILTER_UNSUPPORTED', { list, name: 'properties' }, 'properties');
  }
}

/** `[]`, `{}` or a property group with no values: no filter at all. */
function isEmptyPropertyFilter(v: unknown): boolean {
  if (Array.isArray(v)) return v.length === 0;
  if (!isPlainObject(v)) return false;
  const values = v.values;
  return values === undefined ? Object.keys(v).length === 0 : Array.isArray(values) && values.length === 0;
}

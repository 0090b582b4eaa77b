/**
 * Where distinct_id is and how it is coerced (docs/compatibility.md#event-normalization; capture-rs
 * `RawEvent::extract_distinct_id_checked`).
 */

import { MAX_DISTINCT_ID_CHARS } from '../limits.js';
import type { RawEvent } from './parse-body.js';
import { truncateChars } from './truncate-chars.js';
import { isPlainObject } from '../util/plain-object.js';

/** JSON.stringify replacer that emits object keys sorted, as serde_json does. */
function sortKeys(_key: string, value: unknown): unknown {
  if (!isPlainObject(value)) return value;
  const sorted: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const k of Object.keys(value).sort()) sorted[k] = value[k];
  return sorted;
}

/**
 * Coerces a distinct_id value: strings as they are, numbers and booleans as text, arrays and
 * objects as compact JSON with sorted keys; NUL -> U+FFFD; empty or whitespace-only -> missing
 * (surrounding whitespace is otherwise kept); at most 200 characters. `undefined` = missing.
 * Callers must have bounded the nesting depth of `value` (normalize-event does).
 */
export function normalizeDistinctId(value: unknown): string | undefined {
  let s: string;
  switch (typeof value) {
    case 'string':
      s = value;
      break;
    case 'number':
    case 'boolean':
      s = String(value);
      break;
    case 'object':
      if (value === null) return undefined;
      s = JSON.stringify(value, sortKeys);
      break;
    default:
      return undefined;
  }
  if (s.includes('\0')) s = s.replaceAll('\0', '\uFFFD');
  if (s.trim().length === 0) return undefined;
  return truncateChars(s, MAX_DISTINCT_ID_CHARS);
}

/**
 * The event's distinct_id: top-level `distinct_id` (alias `$distinct_id`), else
 * `properties.distinct_id`; the top level wins whenever it is present and not null.
 */
export function extractDistinctId(event: RawEvent): string | undefined {
  let value = event.distinct_id;
  if (value === undefined || value === null) value = event.$distinct_id;
  if (value === undefined || value === null) {
    const props = event.properties;
    if (isPlainObject(props)) value = props.distinct_id;
  }
  return normalizeDistinctId(value);
}

/**
 * The fields of a `/flags` or `/decide` request body that evaluation reads
 * (docs/compatibility.md#flags-requests; PostHog/posthog
 * `rust/feature-flags/src/flags/flag_request.rs` `FlagRequest`). Pure, no I/O.
 *
 * Rust refuses a body whose fields have the wrong JSON type ("invalid JSON"); this reader drops
 * such fields instead, except the token (401) and distinct_id (400 in `requireDistinctId`).
 */

import { HedgerowError } from '../errors.js';
import { truncateChars } from '../ingest/truncate-chars.js';
import { MAX_DISTINCT_ID_CHARS } from '../limits.js';
import { isPlainObject } from '../util/plain-object.js';
import type { EvaluationRuntime } from '../flags/feature-flag.js';
import { runtimeFromText } from './flag-visibility.js';

export interface FlagsRequest {
  token: string;
  /** null when missing: the caller checks the token first (401 beats 400, as in Rust), then calls requireDistinctId. */
  distinctId: string | null;
  groups: Record<string, string>;
  personProperties: Record<string, unknown>;
  groupProperties: Record<string, Record<string, unknown>>;
  anonDistinctId?: string;
  deviceId?: string;
  disableFlags: boolean;
  /** flag_keys_to_evaluate / flag_keys; undefined = all */
  flagKeys?: string[];
  /** evaluation_contexts / evaluation_environments: the tags of the flags to see (empty: all). */
  evaluationContexts: string[];
  /** The runtime the caller says it is (flag-visibility.ts), when it says. */
  evaluationRuntime?: EvaluationRuntime;
}

type Obj = Record<string, unknown>;

/** A record without a prototype, so a `__proto__` key from the body is plain data. */
function dict<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** `a` unless it is absent (undefined or null), then `b`: a field and its serde alias. */
function firstPresent(a: unknown, b: unknown): unknown {
  return a === undefined || a === null ? b : a;
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** `token`, `$token`, `api_key`: the first non-empty string. */
function extractToken(body: Obj): string | undefined {
  return nonEmptyString(body.token) ?? nonEmptyString(body.$token) ?? nonEmptyString(body.api_key);
}

/** A string as sent, a number as its text (Rust `deserialize_distinct_id`), cut to 200 characters. */
function extractDistinctId(body: Obj): string | null {
  const value = firstPresent(body.distinct_id, body.$distinct_id);
  let s: string;
  if (typeof value === 'string') s = value;
  else if (typeof value === 'number' && Number.isFinite(value)) s = String(value);
  else return null;
  return truncateChars(s, MAX_DISTINCT_ID_CHARS);
}

/** `{group_type: key}`: string keys kept, numbers stringified, anything else dropped. */
export function extractGroups(value: unknown): Record<string, string> {
  const groups = dict<string>();
  if (!isPlainObject(value)) return groups;
  for (const type of Object.keys(value)) {
    const key = value[type];
    if (typeof key === 'string') groups[type] = key;
    else if (typeof key === 'number' && Number.isFinite(key)) groups[type] = String(key);
  }
  return groups;
}

/** `{group_type: {...}}`: entries that are not objects are dropped. */
function extractGroupProperties(value: unknown): Record<string, Record<string, unknown>> {
  const out = dict<Record<string, unknown>>();
  if (!isPlainObject(value)) return out;
  for (const type of Object.keys(value)) {
    const props = value[type];
    if (isPlainObject(props)) out[type] = props;
  }
  return out;
}

/** The strings of an array; undefined when it is not an array. */
function stringsOf(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.every((k) => typeof k === 'string') ? (value as string[]) : value.filter((k) => typeof k === 'string');
}

/** An array of flag keys (non-strings dropped); undefined when absent or not an array. */
function extractFlagKeys(body: Obj): string[] | undefined {
  return stringsOf(firstPresent(body.flag_keys_to_evaluate, body.flag_keys));
}

/**
 * Reads a decoded body. Throws `HR_FLAGS_NOT_AN_OBJECT` (400) when it is not a JSON object and
 * `HR_FLAGS_MISSING_TOKEN` (401) when no token is given. Objects from the body are used as they
 * are, not copied. `$anon_distinct_id` (alias `anon_distinct_id`) falls back to
 * `person_properties.$anon_distinct_id`, and `$device_id` (alias `device_id`) to
 * `person_properties.$device_id`; empty ids count as absent.
 */
export function parseFlagsRequest(body: unknown): FlagsRequest {
  if (!isPlainObject(body)) throw new HedgerowError('HR_FLAGS_NOT_AN_OBJECT');
  const token = extractToken(body);
  if (token === undefined) throw new HedgerowError('HR_FLAGS_MISSING_TOKEN');

  const props = firstPresent(body.person_properties, body.$properties);
  const personProperties: Record<string, unknown> = isPlainObject(props) ? props : {};

  const req: FlagsRequest = {
    token,
    distinctId: extractDistinctId(body),
    groups: extractGroups(firstPresent(body.groups, body.$groups)),
    personProperties,
    groupProperties: extractGroupProperties(firstPresent(body.group_properties, body.$group_properties)),
    disableFlags: body.disable_flags === true,
    evaluationContexts: stringsOf(firstPresent(body.evaluation_contexts, body.evaluation_environments)) ?? [],
  };
  if (typeof body.evaluation_runtime === 'string') req.evaluationRuntime = runtimeFromText(body.evaluation_runtime);

  const anon =
    nonEmptyString(firstPresent(body.$anon_distinct_id, body.anon_distinct_id)) ?? nonEmptyString(personProperties.$anon_distinct_id);
  if (anon !== undefined) req.anonDistinctId = anon;
  // Flags service `FlagRequest::extract_device_id`: the body's device id, else the request's own
  // `person_properties.$device_id` (not the stored person's).
  const deviceId = nonEmptyString(firstPresent(body.$device_id, body.device_id)) ?? nonEmptyString(personProperties.$device_id);
  if (deviceId !== undefined) req.deviceId = deviceId;
  const flagKeys = extractFlagKeys(body);
  if (flagKeys !== undefined) req.flagKeys = flagKeys;
  return req;
}

/** The request's distinct_id, or `HR_FLAGS_MISSING_DISTINCT_ID` (400) when it has none. */
export function requireDistinctId(req: FlagsRequest): string {
  if (req.distinctId === null) throw new HedgerowError('HR_FLAGS_MISSING_DISTINCT_ID');
  return req.distinctId;
}

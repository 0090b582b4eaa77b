/**
 * The accepted top-level shapes of a capture body, tried in capture-rs's order
 * (docs/compatibility.md#body-shapes; PostHog/posthog `rust/capture/src/v0_request.rs`). Pure:
 * takes the decoded text, returns the raw event objects and the batch-level fields.
 */

import { catalogueError, HedgerowError } from '../errors.js';
import { isPlainObject } from '../util/plain-object.js';
import { parseProjectIdHint } from './project-id-hint.js';

/** An event object as the client sent it (shape checked later, in normalize-event). */
export type RawEvent = Record<string, unknown>;

export interface ParsedBody {
  /**
   * The events, `$performance_event`s removed. Empty only when every event was one of those:
   * the request is then accepted as is (200, nothing stored).
   */
  events: RawEvent[];
  /** How many `$performance_event`s were removed. */
  filteredPerformanceEvents: number;
  /** Batch-level `api_key` (or `token`) when the body is the batch shape and has one. */
  batchToken: string | undefined;
  /** Batch-level `sent_at`, as sent. */
  sentAt: string | undefined;
  historicalMigration: boolean;
  /** `project_id` at the batch level or in the first event (used with a personal API key). */
  projectIdHint: number | undefined;
}

const PERFORMANCE_EVENT = '$performance_event';
const IDENTIFY_EVENT = '$identify';
const MAX_PARSE_DETAIL_CHARS = 120;

function parseJson(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    // JSON.parse throws SyntaxErrors only.
    throw catalogueError('HR_PARSE_FAILED', { reason: (err as SyntaxError).message.slice(0, MAX_PARSE_DETAIL_CHARS) });
  }
  // Only an escape can make one (invalid UTF-8 bytes were refused when decoding): `indexOf` finds
  // none in a typical 50 KB batch in under a microsecond, where the pattern would take ~18.
  if (text.indexOf('\\u') !== -1 && SURROGATE_ESCAPE.test(text) && holdsLoneSurrogate(value)) {
    throw new HedgerowError('HR_PARSE_LONE_SURROGATE');
  }
  return value;
}

/** A `\uD800`–`\uDFFF` escape (or a literal backslash before such text: the walk below decides). */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/**
 * Whether a string (key or value) anywhere in `value` holds a lone surrogate. capture-rs's JSON
 * parser (serde_json) refuses one (`"\ud800"`: 400, failed to parse request); JSON.parse keeps
 * it, and it would be stored as three U+FFFD (so `u\ud800` and `u\udfff` became one person).
 * Iterative: the body may nest deeper than the stack.
 */
function holdsLoneSurrogate(value: unknown): boolean {
  // Node 20 has String.prototype.isWellFormed (ES2024); this project's TypeScript lib is ES2022.
  const isWellFormed = (s: string): boolean => (s as string & { isWellFormed(): boolean }).isWellFormed();
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (!isWellFormed(v)) return true;
    } else if (Array.isArray(v)) {
      for (const item of v) stack.push(item);
    } else if (typeof v === 'object' && v !== null) {
      for (const [k, item] of Object.entries(v)) {
        if (!isWellFormed(k)) return true;
        stack.push(item);
      }
    }
  }
  return false;
}

function checkEvents(items: unknown[]): RawEvent[] {
  if (items.length === 0) throw new HedgerowError('HR_EMPTY_BATCH');
  for (let i = 0; i < items.length; i++) {
    if (!isPlainObject(items[i])) throw new HedgerowError('HR_EVENTS_NOT_OBJECTS');
  }
  return items as RawEvent[];
}

/** The refusal of a JSON text that is not an object or an array: `null`, `true`, `false`, a number or a string. */
function scalarPayloadError(value: unknown): HedgerowError {
  if (value === null || typeof value === 'boolean') return catalogueError('HR_PAYLOAD_IS_LITERAL', { literal: String(value) });
  return new HedgerowError(typeof value === 'number' ? 'HR_PAYLOAD_IS_NUMBER' : 'HR_PAYLOAD_IS_STRING');
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * Parses a decoded capture body. Shapes, in order: an array of events; a batch object
 * `{api_key|token?, batch: [...], sent_at?, historical_migration?}` (unlike capture-rs the
 * batch-level key may be missing: tokens then come from the events); a single event (its `event`
 * is a string); on `/engage*` paths only, any other object, which becomes `$identify`. An event of
 * an array or batch whose `event` is not a string fails the request in normalize-event.
 */
export function parseCaptureBody(text: string, path: string): ParsedBody {
  const root = parseJson(text);
  let events: RawEvent[];
  let batchToken: string | undefined;
  let sentAt: string | undefined;
  let historicalMigration = false;
  let projectIdHint: number | undefined;

  if (Array.isArray(root)) {
    events = checkEvents(root);
  } else if (isPlainObject(root)) {
    projectIdHint = parseProjectIdHint(root.project_id);
    if (Array.isArray(root.batch)) {
      events = checkEvents(root.batch);
      batchToken = stringOrUndefined(root.api_key) ?? stringOrUndefined(root.token);
      sentAt = stringOrUndefined(root.sent_at);
      historicalMigration = root.historical_migration === true;
    } else if (typeof root.event === 'string') {
      events = [root];
    } else if (path.startsWith('/engage')) {
      // capture-rs's `RawEngageEvent` has no `event` field: any other `event` is replaced.
      root.event = IDENTIFY_EVENT;
      events = [root];
    } else {
      throw new HedgerowError('HR_NO_EVENT_NAME_ATTR');
    }
  } else {
    throw scalarPayloadError(root);
  }

  if (projectIdHint === undefined) projectIdHint = parseProjectIdHint((events[0] as RawEvent).project_id);

  let filtered = 0;
  for (let i = 0; i < events.length; i++) {
    if ((events[i] as RawEvent).event === PERFORMANCE_EVENT) filtered++;
  }
  if (filtered > 0) events = events.filter((e) => e.event !== PERFORMANCE_EVENT);

  return { events, filteredPerformanceEvents: filtered, batchToken, sentAt, historicalMigration, projectIdHint };
}

/**
 * Event normalization (docs/compatibility.md#event-normalization; capture-rs event processing +
 * nodejs `sanitizeEvent`): raw client events to `StoredEvent`s. Pure; runs once per event on the
 * hot path, so it avoids per-event closures, spreads and stringification. It takes ownership of the
 * parsed events (their `properties` objects are reused and modified in place).
 */

import { catalogueError, HedgerowError } from '../errors.js';
import { MAX_EVENT_NAME_CHARS, MAX_JSON_DEPTH } from '../limits.js';
import { exceedsMaxDepth } from '../util/json-depth.js';
import { extractDistinctId } from './distinct-id.js';
import { freshUuidV7 } from './fresh-uuid.js';
import type { ParsedBody, RawEvent } from './parse-body.js';
import validateGenerated from './schemas/raw-event.validate.js';
import { parseEventTimestamp, parseSentAtMs } from './timestamp.js';
import { truncateChars } from './truncate-chars.js';
import type { StoredEvent } from './types.js';
import { isPlainObject } from '../util/plain-object.js';

interface SchemaError {
  instancePath: string;
  /** Always set: the validators are generated with Ajv's default `messages: true`. */
  message: string;
}
interface CompiledValidator {
  (data: unknown): boolean;
  errors?: SchemaError[] | null;
}
/** Precompiled from schemas/raw-event.schema.json by scripts/build-schemas.mjs. */
const validateRawEvent = validateGenerated as unknown as CompiledValidator;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const UUID_SIMPLE = /^[0-9a-f]{32}$/i;
const INTERNAL_IP = '127.0.0.1';

export interface NormalizeContext {
  projectId: number;
  /** Server receive time. */
  now: Date;
  /** Client address. */
  ip: string;
  /** Query `sent_at`/`_` in ms, used when the body has no `sent_at`. */
  querySentAtMs?: number | undefined;
  /** Route path; not used by normalization today. */
  path?: string;
}

export interface NormalizeResult {
  events: StoredEvent[];
  /** Events dropped without failing the request, by reason: no usable name, or no distinct_id. */
  dropped: { no_event_name: number; no_distinct_id: number };
}

/**
 * A client uuid in canonical lowercase form; `null`/`''`/absent -> a fresh UUIDv7; anything else
 * -> `HR_INVALID_UUID` (the whole request is refused, as capture-rs and Django do).
 */
export function eventUuid(value: unknown): string {
  if (value === undefined || value === null || value === '') return freshUuidV7();
  if (typeof value === 'string') {
    if (UUID.test(value)) return value.toLowerCase();
    if (UUID_SIMPLE.test(value)) {
      const v = value.toLowerCase();
      return `${v.slice(0, 8)}-${v.slice(8, 12)}-${v.slice(12, 16)}-${v.slice(16, 20)}-${v.slice(20)}`;
    }
  }
  throw new HedgerowError('HR_INVALID_UUID');
}

/** `properties[key] = {...properties[key], ...top}`: the top-level `$set`/`$set_once` win. */
function mergePersonProps(props: Record<string, unknown>, key: string, top: unknown): void {
  if (!isPlainObject(top)) return;
  const inner = props[key];
  if (!isPlainObject(inner)) {
    props[key] = top;
    return;
  }
  for (const k in top) {
    // An own `__proto__` key (JSON.parse makes one) is a key like any other, not the prototype.
    if (k === '__proto__') Object.defineProperty(inner, k, { value: top[k], enumerable: true, writable: true, configurable: true });
    else inner[k] = top[k];
  }
}

function schemaError(index: number): HedgerowError {
  const err = validateRawEvent.errors?.[0];
  if (err?.instancePath === '/uuid') return new HedgerowError('HR_INVALID_UUID');
  if (err === undefined) return catalogueError('HR_INVALID_EVENT', { index });
  return catalogueError('HR_EVENT_FIELD_INVALID', { index, field: err.instancePath.slice(1), problem: err.message });
}

export function normalizeEvents(parsed: ParsedBody, ctx: NormalizeContext): NormalizeResult {
  const nowMs = ctx.now.getTime();
  const createdAt = ctx.now.toISOString();
  const sentAtMs = parseSentAtMs(parsed.sentAt) ?? ctx.querySentAtMs;
  const sentAt = sentAtMs === undefined ? undefined : new Date(sentAtMs).toISOString();
  const historical = parsed.historicalMigration;
  const events: StoredEvent[] = [];
  const dropped = { no_event_name: 0, no_distinct_id: 0 };

  for (let i = 0; i < parsed.events.length; i++) {
    const raw = parsed.events[i] as RawEvent;
    if (exceedsMaxDepth(raw, 1)) {
      throw catalogueError('HR_EVENT_TOO_DEEP', { index: i, max_depth: MAX_JSON_DEPTH });
    }
    if (!validateRawEvent(raw)) throw schemaError(i);
    const uuid = eventUuid(raw.uuid);

    const name = raw.event;
    if (typeof name !== 'string' || name.length === 0) {
      dropped.no_event_name++;
      continue;
    }
    const distinctId = extractDistinctId(raw);
    if (distinctId === undefined) {
      dropped.no_distinct_id++;
      continue;
    }

    const props = isPlainObject(raw.properties) ? raw.properties : {};
    if (props.$process_person_profile === false) {
      // Personless: PostHog's ingestion strips the person property changes
      // (docs/compatibility.md#personless-events).
      delete props.$set;
      delete props.$set_once;
      delete props.$unset;
    } else {
      mergePersonProps(props, '$set', raw.$set);
      mergePersonProps(props, '$set_once', raw.$set_once);
    }
    if (props.$ip === undefined || props.$ip === null) {
      const ip = props.capture_internal !== undefined ? INTERNAL_IP : ctx.ip;
      if (ip.length > 0) props.$ip = ip;
    }
    if (sentAt !== undefined) props.$sent_at = sentAt;
    const sessionId = props.$session_id;
    if (typeof sessionId === 'string' && sessionId.length === 36) {
      // Only an upper-case uuid changes; SDKs send lower case, which skips the pattern.
      const lower = sessionId.toLowerCase();
      if (lower !== sessionId && UUID.test(sessionId)) props.$session_id = lower;
    }

    const ts = parseEventTimestamp({
      timestamp: raw.timestamp,
      offsetMs: raw.offset,
      sentAtMs,
      ignoreSentAt: props.$ignore_sent_at === true,
      nowMs,
    });

    const stored: StoredEvent = {
      uuid,
      event: truncateChars(name, MAX_EVENT_NAME_CHARS),
      distinct_id: distinctId,
      properties: props,
      timestamp: ts.timestamp,
      created_at: createdAt,
      project_id: ctx.projectId,
    };
    if (sentAt !== undefined) stored.sent_at = sentAt;
    if (historical) stored.historical_migration = true;
    events.push(stored);
  }
  return { events, dropped };
}

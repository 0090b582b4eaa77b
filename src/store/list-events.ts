/**
 * Pages of the events API read from the event log, newest or oldest first (in ingest order), a
 * bounded piece of the log at a time.
 *
 * The log has no secondary index, so a filter that matches little (`distinct_id` of one user,
 * an `event` name, an old `before`) reads the whole log: ~2 µs per event to decode, seconds for a
 * few million. Three things keep that cheap and bounded:
 * - a block whose bytes do not contain the `event` or `uuid` value, or any of the distinct ids, as
 *   UTF-8 is skipped undecoded (msgpack stores strings as their UTF-8 bytes, so a match cannot hide);
 * - an `after` ends the scan at blocks ingested long enough before it: ingestion never stores a
 *   timestamp more than `MAX_FUTURE_SKEW_MS` ahead of the time it was received
 *   (docs/compatibility.md#timestamps), and a block's key starts with its ingest time;
 * - the caller's `shouldStop` is asked after every block, and a page cut short by it carries a
 *   cursor to where the scan stopped, so the next call goes on from there.
 * The events API reads its pages with `listEventsPaced` in the worker pool (src/pool/scan-pool.ts).
 */
import { formatIsoMs, ISO_MAX_MS, ISO_MIN_MS } from '../ingest/iso-format.js';
import { MAX_FUTURE_SKEW_MS } from '../limits.js';
import type { StoredEvent } from '../ingest/types.js';
import { decodeBlock } from './event-log.js';
import type { EventKey, StoreDatabases } from './open-store.js';
import type { ScanPacing } from './scan-in-slices.js';

/** Room for the clock stepping back between an event's normalization and its block's key. */
const CLOCK_STEP_SLACK_MS = 60 * 60 * 1000;

/** Newest or oldest first, in the order events were received. */
export type EventsOrder = 'newest' | 'oldest';

export interface ListEventsQuery {
  projectId: number;
  /** Default: newest first. */
  order?: EventsOrder;
  event?: string;
  /** Only events of these distinct ids (of one person, say); empty: no event matches. */
  distinctIds?: readonly string[];
  /** One event, by its UUID in canonical (lower-case) form. */
  uuid?: string;
  /** Only events whose timestamp is after / before these instants (ms since epoch). */
  afterMs?: number;
  beforeMs?: number;
  /** Opaque position from a previous page's `next`. */
  cursor?: string;
  /** How many matching events to pass over before the page. */
  offset?: number;
  limit: number;
  /**
   * A full page looks on for one more match and has a cursor only when it finds one, so the last
   * page carries none (PostHog's events API reads `limit + 1`). Off for lookups of one event.
   */
  lookAhead?: boolean;
  /**
   * The match found by looking ahead is passed over: the cursor goes on after it. `listEventsPaced`
   * sets it for a page of `limit` 0, as PostHog's next page after `limit=0` starts below the one row
   * it read, so following `next` ends (docs/compatibility.md#events-list).
   */
  passOver?: boolean;
}

/**
 * Where a page stopped: a block and a boundary between two of its events. Newest first, listing
 * goes on with the block's events below the boundary, then older blocks; oldest first, with those
 * at and above it, then newer blocks. 0 (newest first) or `BLOCK_END` (oldest first): the block is done.
 */
export type EventPosition = [...EventKey, number];

/** A boundary past the end of any block. */
const BLOCK_END = 2 ** 32;

export interface EventsPage {
  events: StoredEvent[];
  /** Where the next page starts; absent when the log holds no more matching events. */
  nextCursor?: string;
  /** Matching events passed over for `offset`. */
  skipped: number;
  /**
   * `full`: `limit` events (and, with `lookAhead`, another match after them); `end`: no event
   * further on matches; `budget`: `shouldStop` said so.
   */
  stop: 'full' | 'end' | 'budget';
}

/**
 * One page read in slices of `pacing.sliceMs`, awaiting `pacing.pause()` between them, for at most
 * `budgetMs`: then what was found so far, with a cursor to go on from (`Infinity`: to the end).
 * The budget counts only once `offset` events are passed over: the cursor has no room for the rest.
 */
export async function listEventsPaced(
  dbs: Pick<StoreDatabases, 'events'>,
  q: ListEventsQuery,
  pacing: ScanPacing,
  budgetMs: number,
): Promise<EventsApiPage> {
  const until = performance.now() + budgetMs;
  const events: StoredEvent[] = [];
  let cursor = q.cursor;
  let offset = q.offset ?? 0;
  const passOver = q.limit === 0;
  for (;;) {
    const sliceEnd = performance.now() + pacing.sliceMs;
    const query: ListEventsQuery = { ...q, offset, limit: q.limit - events.length, passOver };
    if (cursor !== undefined) query.cursor = cursor;
    const slice = listEvents(dbs, query, () => performance.now() >= sliceEnd);
    events.push(...slice.events);
    offset -= slice.skipped;
    if (slice.stop !== 'budget' || (offset === 0 && performance.now() >= until)) return { events, nextCursor: slice.nextCursor };
    cursor = slice.nextCursor;
    await pacing.pause();
  }
}

/** What the events API answers: the events, and where the next page starts unless the log is done. */
export interface EventsApiPage {
  events: StoredEvent[];
  nextCursor: string | undefined;
}

/** One page, or less of one where `shouldStop()` (asked after each block) answers true. */
export function listEvents(dbs: Pick<StoreDatabases, 'events'>, q: ListEventsQuery, shouldStop: () => boolean = () => false): EventsPage {
  if (q.distinctIds?.length === 0) return { events: [], stop: 'end', skipped: 0 };
  const newest = q.order !== 'oldest';
  const from = q.cursor ? decodeCursor(q.cursor) : undefined;
  const needles = [q.event, q.uuid].flatMap((s) => (s === undefined ? [] : utf8Needle(s)));
  const anyNeedles = q.distinctIds === undefined ? undefined : anyOfNeedles(q.distinctIds);
  const oldestKeyMicros = q.afterMs === undefined ? -Infinity : (q.afterMs - MAX_FUTURE_SKEW_MS - CLOCK_STEP_SLACK_MS) * 1000;
  const filter = eventFilter(q);
  const out: StoredEvent[] = [];
  const offset = q.offset ?? 0;
  let toSkip = offset;
  // Oldest first, `after` starts the read where newest first would stop it.
  const start = from ? (from.slice(0, 3) as EventKey) : !newest && q.afterMs !== undefined ? [Math.floor(oldestKeyMicros)] : undefined;
  const range = dbs.events.getRange({ reverse: newest, ...(start ? { start: start as EventKey } : {}) });
  const step = newest ? -1 : 1;
  for (const { key, value } of range) {
    if (newest && key[0] < oldestKeyMicros) break;
    const cursorAt = (boundary: number) => encodeCursor([key[0], key[1], key[2], boundary]);
    const boundary = from !== undefined && sameBlock(key, from) ? from[3] : newest ? BLOCK_END : 0;
    if (boundary === (newest ? 0 : BLOCK_END)) continue; // the previous page ended with this block
    if (needles.every((n) => value.includes(n)) && (anyNeedles === undefined || anyNeedles.some((n) => value.includes(n)))) {
      const block = decodeBlock(value);
      for (let i = newest ? Math.min(boundary, block.length) - 1 : boundary; i >= 0 && i < block.length; i += step) {
        const e = block[i] as StoredEvent;
        if (!matches(e, filter)) continue;
        if (toSkip > 0) {
          toSkip--;
          continue;
        }
        // The match after a full page: the next page starts with it, or after it with `passOver`.
        if (out.length === q.limit) {
          const nextAt = (q.passOver === true) === newest ? i : i + 1;
          return { events: out, nextCursor: cursorAt(nextAt), stop: 'full', skipped: offset };
        }
        out.push(e);
        if (out.length === q.limit && q.lookAhead !== true) {
          return { events: out, nextCursor: cursorAt(newest ? i : i + 1), stop: 'full', skipped: offset };
        }
      }
    }
    // The block is done: the next call goes on with the one after it.
    if (shouldStop()) return { events: out, nextCursor: cursorAt(newest ? 0 : BLOCK_END), stop: 'budget', skipped: offset - toSkip };
  }
  return { events: out, stop: 'end', skipped: offset - toSkip };
}

/**
 * Past about this many distinct ids, searching a block's bytes for each costs as much as decoding
 * it (a 58 KB block of 100 events: ~14 µs per search, ~150 µs to decode).
 */
const MAX_ANY_OF_NEEDLES = 8;

/** Needles of which a block must contain one, or undefined where there are too many or one of the values has none. */
function anyOfNeedles(values: readonly string[]): Buffer[] | undefined {
  if (values.length > MAX_ANY_OF_NEEDLES) return undefined;
  const out: Buffer[] = [];
  for (const v of values) {
    const n = utf8Needle(v);
    if (n.length === 0) return undefined;
    out.push(...n);
  }
  return out;
}

/**
 * The value's UTF-8 bytes, or none where they may differ from the stored ones: msgpackr writes a
 * lone surrogate as its own 3 bytes (which read back as U+FFFD characters), Buffer as U+FFFD's
 * (`u`: a surrogate pair is one character, not matched).
 */
function utf8Needle(s: string): Buffer[] {
  return /[\ufffd\ud800-\udfff]/u.test(s) ? [] : [Buffer.from(s, 'utf8')];
}

/** The event filter of a query, with its time bounds also as text. */
interface EventFilter {
  q: ListEventsQuery;
  distinctIds: ReadonlySet<string> | undefined;
  afterIso: string | undefined;
  beforeIso: string | undefined;
}

function eventFilter(q: ListEventsQuery): EventFilter {
  return {
    q,
    distinctIds: q.distinctIds === undefined ? undefined : new Set(q.distinctIds),
    // Stored timestamps are whole milliseconds: t > 1.5 is t > 1, t < 1.5 is t < 2.
    afterIso: q.afterMs === undefined ? undefined : isoBound(Math.floor(q.afterMs)),
    beforeIso: q.beforeMs === undefined ? undefined : isoBound(Math.ceil(q.beforeMs)),
  };
}

/**
 * Ingestion stores every timestamp as `formatIsoMs` text (`2024-06-01T12:00:00.000Z`, years
 * 0-9999), which sorts as the instants do, so bounds are compared as text (`Date.parse` per event
 * doubled the time of a scan). Bounds outside those years sort before or after every timestamp.
 */
function isoBound(ms: number): string {
  return ms < ISO_MIN_MS ? '' : ms > ISO_MAX_MS ? '\uffff' : formatIsoMs(ms);
}

const ISO_LENGTH = 24;

function matches(e: StoredEvent, f: EventFilter): boolean {
  const q = f.q;
  if (e.project_id !== q.projectId) return false;
  if (q.event !== undefined && e.event !== q.event) return false;
  if (f.distinctIds !== undefined && !f.distinctIds.has(e.distinct_id)) return false;
  if (q.uuid !== undefined && e.uuid !== q.uuid) return false;
  if (f.afterIso !== undefined || f.beforeIso !== undefined) {
    const t = e.timestamp;
    if (t.length !== ISO_LENGTH || t[ISO_LENGTH - 1] !== 'Z') return matchesParsed(Date.parse(t), q);
    if (f.afterIso !== undefined && !(t > f.afterIso)) return false;
    if (f.beforeIso !== undefined && !(t < f.beforeIso)) return false;
  }
  return true;
}

/** For a timestamp in any other form (none is stored so today). */
function matchesParsed(t: number, q: ListEventsQuery): boolean {
  return !(q.afterMs !== undefined && !(t > q.afterMs)) && !(q.beforeMs !== undefined && !(t < q.beforeMs));
}

function sameBlock(key: EventKey, p: EventPosition): boolean {
  return key[0] === p[0] && key[1] === p[1] && key[2] === p[2];
}

function encodeCursor(p: EventPosition): string {
  return Buffer.from(p.join('.')).toString('base64url');
}

/** Throws on a cursor that was not produced by `encodeCursor`. */
export function decodeCursor(cursor: string): EventPosition {
  const nums = Buffer.from(cursor, 'base64url').toString().split('.').map(Number);
  if (nums.length !== 4 || nums.some((n) => !Number.isSafeInteger(n) || n < 0)) {
    throw new RangeError('invalid cursor');
  }
  return nums as EventPosition;
}

/**
 * The event log: every accepted event, keyed `[ingest µs, writer id, counter]` so that keys are
 * unique without coordination between writer threads and ordered by ingest time.
 * Values are StoredEvents encoded with msgpackr by the writer (so their size is known before
 * they are written); readers decode them.
 */
import { randomInt } from 'node:crypto';
import { Packr } from 'msgpackr';
import type { StoredEvent } from '../ingest/types.js';
import type { EventKey, StoreDatabases } from './open-store.js';

/** Plain msgpack without shared record structures: any reader can decode any value. */
const packr = new Packr({ useRecords: false, moreTypes: false });

export function encodeEvent(e: StoredEvent): Buffer {
  return packr.pack(e);
}

export function decodeEvent(b: Uint8Array): StoredEvent {
  return packr.unpack(b) as StoredEvent;
}

/** Appends encoded events; one instance per writer thread. */
export class EventWriter {
  /** Random per writer instance: keys stay unique across threads and restarts. */
  readonly writerId = randomInt(0, 2 ** 31);
  private counter = 0;
  private lastMicros = 0;

  constructor(private readonly dbs: StoreDatabases) {}

  /**
   * Queues the events for the next group commit (lmdb-js batches all writes issued in one
   * event turn into one transaction) and resolves once that commit is durable per the sync mode.
   * Writes of one thread commit in the order they were issued, so awaiting the last put covers all.
   */
  append(encoded: readonly Buffer[]): Promise<unknown> {
    const micros = this.nextMicros();
    let last: Promise<unknown> = Promise.resolve(true);
    for (const value of encoded) {
      last = this.dbs.events.put([micros, this.writerId, this.counter++], value);
    }
    return last;
  }

  private nextMicros(): number {
    const now = Date.now() * 1000;
    this.lastMicros = now > this.lastMicros ? now : this.lastMicros + 1;
    return this.lastMicros;
  }
}

export interface ListEventsQuery {
  projectId: number;
  event?: string;
  distinctId?: string;
  /** Only events whose timestamp is after / before these instants (ms since epoch). */
  afterMs?: number;
  beforeMs?: number;
  /** Opaque position from a previous page's `next`. */
  cursor?: string;
  limit: number;
}

export interface ListedEvent {
  key: EventKey;
  event: StoredEvent;
}

/** Reads the log: newest-first pages for the API, oldest-first streams for export. */
export class EventReader {
  constructor(private readonly dbs: StoreDatabases) {}

  /** One page, newest first; `nextCursor` is set when more events may follow. */
  list(q: ListEventsQuery): { events: ListedEvent[]; nextCursor: string | undefined } {
    const start = q.cursor ? decodeCursor(q.cursor) : undefined;
    const out: ListedEvent[] = [];
    const range = this.dbs.events.getRange({ reverse: true, ...(start ? { start } : {}) });
    for (const { key, value } of range) {
      if (start && compareKeys(key, start) === 0) continue;
      const e = decodeEvent(value);
      if (!matches(e, q)) continue;
      out.push({ key, event: e });
      if (out.length === q.limit) {
        return { events: out, nextCursor: encodeCursor(key) };
      }
    }
    return { events: out, nextCursor: undefined };
  }

  /** Every event in ingest order, optionally from an ingest time and for one project. */
  *stream(opts: { sinceMs?: number; projectId?: number } = {}): Generator<StoredEvent> {
    const range = this.dbs.events.getRange(opts.sinceMs !== undefined ? { start: [opts.sinceMs * 1000] } : {});
    for (const { value } of range) {
      const e = decodeEvent(value);
      if (opts.projectId !== undefined && e.project_id !== opts.projectId) continue;
      yield e;
    }
  }

  count(): number {
    return this.dbs.events.getCount();
  }
}

function matches(e: StoredEvent, q: ListEventsQuery): boolean {
  if (e.project_id !== q.projectId) return false;
  if (q.event !== undefined && e.event !== q.event) return false;
  if (q.distinctId !== undefined && e.distinct_id !== q.distinctId) return false;
  if (q.afterMs !== undefined || q.beforeMs !== undefined) {
    const t = Date.parse(e.timestamp);
    if (q.afterMs !== undefined && !(t > q.afterMs)) return false;
    if (q.beforeMs !== undefined && !(t < q.beforeMs)) return false;
  }
  return true;
}

function compareKeys(a: EventKey, b: EventKey): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

export function encodeCursor(key: EventKey): string {
  return Buffer.from(key.join('.')).toString('base64url');
}

/** Throws on a cursor that was not produced by `encodeCursor`. */
export function decodeCursor(cursor: string): EventKey {
  const parts = Buffer.from(cursor, 'base64url').toString().split('.');
  const nums = parts.map(Number);
  if (nums.length !== 3 || nums.some((n) => !Number.isSafeInteger(n) || n < 0)) {
    throw new RangeError('invalid cursor');
  }
  return nums as EventKey;
}

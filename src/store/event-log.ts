/**
 * The event log. Events are appended in blocks: one LMDB entry per worker task, keyed
 * `[ingest µs, writer id, counter]` (unique without coordination between writer threads, ordered
 * by ingest time), whose value is the task's events as consecutive msgpack documents. One put per
 * task instead of one per event keeps the B-tree work and the commit size small: per-event puts
 * capped ingestion at ~160k events/s here, where the disk and CPU allowed far more.
 * An event's position is its block key plus its index in the block.
 */
import { randomInt } from 'node:crypto';
import { Packr } from 'msgpackr';
import type { StoredEvent } from '../ingest/types.js';
import { concatBytes } from '../util/concat-bytes.js';
import type { EventKey, StoreDatabases } from './open-store.js';

/** Plain msgpack without shared record structures: any reader can decode any value. */
const packr = new Packr({ useRecords: false, moreTypes: false });

export function encodeEvent(e: StoredEvent): Buffer {
  return packr.pack(e);
}

/** Joins encoded events into one block, in a buffer of its own (so it can be moved between threads). */
export function encodeBlock(encoded: readonly Uint8Array[]): Uint8Array {
  return concatBytes(encoded);
}

export function decodeBlock(b: Uint8Array): StoredEvent[] {
  return packr.unpackMultiple(b as Buffer) as StoredEvent[];
}

/** Appends blocks of encoded events; the daemon has one, on the main thread. */
export class EventWriter {
  /** Random per writer instance: keys stay unique across threads and restarts. */
  readonly writerId = randomInt(0, 2 ** 31);
  private counter = 0;
  private lastMicros = 0;

  constructor(private readonly dbs: StoreDatabases) {}

  /**
   * Queues one block for the next group commit (lmdb-js commits every write issued in one event
   * turn in one transaction) and resolves once that commit is durable per the sync mode.
   */
  append(block: Uint8Array): Promise<unknown> {
    return this.dbs.events.put([this.nextMicros(), this.writerId, this.counter++], block as Buffer);
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

/** Where an event is: its block and its index in the block. */
export type EventPosition = [...EventKey, number];

export interface ListedEvent {
  position: EventPosition;
  event: StoredEvent;
}

/** Reads the log: newest-first pages for the API, oldest-first streams for export. */
export class EventReader {
  constructor(private readonly dbs: StoreDatabases) {}

  /** One page, newest first; `nextCursor` is set when more events may follow. */
  list(q: ListEventsQuery): { events: ListedEvent[]; nextCursor: string | undefined } {
    const after = q.cursor ? decodeCursor(q.cursor) : undefined;
    const start = after ? (after.slice(0, 3) as EventKey) : undefined;
    const out: ListedEvent[] = [];
    for (const { key, value } of this.dbs.events.getRange({ reverse: true, ...(start ? { start } : {}) })) {
      const block = decodeBlock(value);
      // Within the cursor's own block, continue below the cursor's index.
      const top = after && sameBlock(key, after) ? after[3] - 1 : block.length - 1;
      for (let i = top; i >= 0; i--) {
        const e = block[i] as StoredEvent;
        if (!matches(e, q)) continue;
        const position: EventPosition = [key[0], key[1], key[2], i];
        out.push({ position, event: e });
        if (out.length === q.limit) return { events: out, nextCursor: encodeCursor(position) };
      }
    }
    return { events: out, nextCursor: undefined };
  }

  /** Every event in ingest order, optionally from an ingest time and for one project. */
  *stream(opts: { sinceMs?: number; projectId?: number } = {}): Generator<StoredEvent> {
    const range = this.dbs.events.getRange(opts.sinceMs !== undefined ? { start: [opts.sinceMs * 1000] } : {});
    for (const { value } of range) {
      for (const e of decodeBlock(value)) {
        if (opts.projectId !== undefined && e.project_id !== opts.projectId) continue;
        yield e;
      }
    }
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

function sameBlock(key: EventKey, p: EventPosition): boolean {
  return key[0] === p[0] && key[1] === p[1] && key[2] === p[2];
}

export function encodeCursor(p: EventPosition): string {
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

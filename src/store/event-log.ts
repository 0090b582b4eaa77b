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
   * turn in one transaction) and resolves with its key once that commit is durable per the sync
   * mode. `onKey` hears the key at once, before the commit.
   */
  async append(block: Uint8Array, onKey?: (key: EventKey) => void): Promise<EventKey> {
    const key: EventKey = [this.nextMicros(), this.writerId, this.counter++];
    const committed = this.dbs.events.put(key, block as Buffer);
    onKey?.(key);
    await committed;
    return key;
  }

  private nextMicros(): number {
    const now = Date.now() * 1000;
    this.lastMicros = now > this.lastMicros ? now : this.lastMicros + 1;
    return this.lastMicros;
  }
}

/** Reads the log oldest first, for export (the events API's pages: list-events.ts). */
export class EventReader {
  constructor(private readonly dbs: StoreDatabases) {}

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

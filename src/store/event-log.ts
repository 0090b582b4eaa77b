/**
 * The event log. Events are appended in blocks: one LMDB entry per worker task, keyed
 * `[ingest µs, writer id, counter]` (unique without coordination between writer threads, ordered
 * by ingest time), whose value is the task's events as one msgpack array (a block of one or two
 * events: consecutive maps, below). One put per task instead of one per event keeps the B-tree
 * work and the commit size small: per-event puts capped ingestion at ~160k events/s here, where
 * the disk and CPU allowed far more.
 * An event's position is its block key plus its index in the block.
 */
import { randomInt } from 'node:crypto';
import { Packr, Unpackr } from 'msgpackr';
import type { StoredEvent } from '../ingest/types.js';
import { concatBytes } from '../util/concat-bytes.js';
import type { EventKey, StoreDatabases } from './open-store.js';

/**
 * msgpackr's records, with no shared structures: each object shape's keys are written once per
 * block, where it first occurs, and every later object of that shape is its values only. A block
 * holds everything needed to read it. Against plain maps on the benchmark's blocks: ~35% fewer
 * bytes, decoded ~2.5x and encoded ~1.3x faster (docs/architecture.md#store-layout). A block of
 * one or two events, where the keys are written for each shape anyway, is cheaper as plain maps
 * (one event: ~0.4 µs to encode and ~0.4 µs to decode less), the format of schema versions up to
 * 3, which still reads.
 */
const packr = new Packr({ useRecords: true, moreTypes: false, mapsAsObjects: true });
/**
 * `variableMapSize`: each map's header sized to its keys. msgpackr's default writes every plain
 * map with a 16-bit size and throws on an object of more than 65,535 keys: one such `$set`
 * (~600 KB, under the per-event limit) failed its whole request with a 503, which SDKs retry.
 */
const plainPackr = new Packr({ useRecords: false, moreTypes: false, variableMapSize: true });
/**
 * Plain-map blocks are read by a reader of their own. msgpackr gives records the bytes 0x40–0x7f,
 * the integers 64–127 of a plain map, and a reader keeps the records of the last block it read:
 * `packr` would have read a `64` after a block of records as that record (a failed or a wrong
 * read of an acknowledged event; fixed in commit 99d4aeb, 2026-11-27).
 */
const plainUnpackr = new Unpackr({ useRecords: false, moreTypes: false, mapsAsObjects: true });

/** Blocks of fewer events are written as consecutive plain maps. */
const RECORDS_FROM_EVENTS = 3;

/** Encodes events as one block, in a buffer of its own (so it can be moved between threads). */
export function encodeBlock(events: readonly StoredEvent[]): Uint8Array {
  if (events.length < RECORDS_FROM_EVENTS) return concatBytes(events.map((e) => plainPackr.pack(e)));
  // msgpackr returns a view of its own working buffer: copy it out.
  return new Uint8Array(packr.pack(events));
}

/** The size of one event encoded alone, as a plain map (for the per-event limit). */
export function encodedEventSize(e: StoredEvent): number {
  return plainPackr.pack(e).length;
}

export function decodeBlock(b: Uint8Array): StoredEvent[] {
  // A block of records is one array; a block of plain maps is a run of maps (events).
  return isArrayHeader(b[0]) ? (packr.unpack(b) as StoredEvent[]) : (plainUnpackr.unpackMultiple(b as Buffer) as StoredEvent[]);
}

/** msgpack's array headers: fixarray (0x90–0x9f), array 16 (0xdc) and array 32 (0xdd). */
function isArrayHeader(byte: number | undefined): boolean {
  return byte !== undefined && ((byte >= 0x90 && byte <= 0x9f) || byte === 0xdc || byte === 0xdd);
}

/** Appends blocks of encoded events; the daemon has one, on the main thread. */
export class EventWriter {
  /** Random per writer instance: keys stay unique across threads and restarts. */
  readonly writerId = randomInt(0, 2 ** 31);
  private counter = 0;
  private lastMicros = 0;

  constructor(private readonly dbs: StoreDatabases) {
    // Keys only grow, whatever the clock does: after a restart with the clock stepped back, new
    // keys continue from the log's last one. Below it, the person processor (which reads the keys
    // after its cursor) would never see them.
    for (const key of dbs.events.getKeys({ reverse: true, limit: 1 })) this.lastMicros = key[0];
  }

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

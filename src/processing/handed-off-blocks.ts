/**
 * Event-log blocks the daemon hands to the person processor once it has committed them, so that
 * the processor applies them from memory instead of reading them back from the store. Reading a
 * block back maps its pages of the LMDB file into the process, where they stay, counted in its
 * resident memory, and have lmdb-js decompress it again: after a `/batch/` benchmark, the log's
 * pages were about half of the daemon's file-backed memory.
 *
 * The store stays the source of truth: the processor walks the log's keys as before and takes a
 * block from here only when its key is here, else reads it. A block handed off late (after the
 * processor already read it), or one over the memory bound, is simply never used: what is held
 * is bounded (`maxBytes`) and dropped once the cursor passes it. Pure, no I/O.
 */
import type { EventKey } from '../store/open-store.js';
import { compareEventKeys } from './event-keys.js';

export interface HandedOffBlock {
  key: EventKey;
  /** The block as committed: consecutive msgpack documents (event-log.ts), not compressed. */
  bytes: Uint8Array;
}

/**
 * About 25,000 events of posthog-node's size (~600 bytes each in a block): more than the default
 * backlog bound lets the processor fall behind (HEDGEROW_MAX_PERSON_BACKLOG, 10,000 events).
 */
export const MAX_HANDED_OFF_BYTES = 16 * 1024 * 1024;

const keyText = (key: EventKey): string => `${key[0]}:${key[1]}:${key[2]}`;

export class HandedOffBlocks {
  private readonly blocks = new Map<string, HandedOffBlock>();
  private heldBytes = 0;

  constructor(private readonly maxBytes = MAX_HANDED_OFF_BYTES) {}

  get bytes(): number {
    return this.heldBytes;
  }

  get size(): number {
    return this.blocks.size;
  }

  /** Keeps the block unless that would hold more than `maxBytes` (it is then read from the store). */
  add(block: HandedOffBlock): void {
    const text = keyText(block.key);
    if (this.blocks.has(text) || this.heldBytes + block.bytes.byteLength > this.maxBytes) return;
    this.blocks.set(text, block);
    this.heldBytes += block.bytes.byteLength;
  }

  /** The block of `key`, no longer held; undefined when it was not handed off (or not kept). */
  take(key: EventKey): Uint8Array | undefined {
    const text = keyText(key);
    const block = this.blocks.get(text);
    if (block === undefined) return undefined;
    this.blocks.delete(text);
    this.heldBytes -= block.bytes.byteLength;
    return block.bytes;
  }

  /** Drops the blocks at or before `cursor`: applied already, read from the store. */
  dropThrough(cursor: EventKey): void {
    for (const [text, block] of this.blocks) {
      if (compareEventKeys(block.key, cursor) > 0) continue;
      this.blocks.delete(text);
      this.heldBytes -= block.bytes.byteLength;
    }
  }
}

/**
 * Event-log blocks the daemon hands to the person processor as it writes them, so that
 * the processor applies them from memory instead of reading them back from the store. Reading a
 * block back maps its pages of the LMDB file into the process, where they stay, counted in its
 * resident memory, and has lmdb-js decompress it again: after `/batch/` load the log's pages were
 * about two thirds of the daemon's file-backed memory.
 *
 * The store stays the source of truth: the processor walks the log's keys as before and takes a
 * block from here only when its key is here, else reads it. A block handed over late (after the
 * processor already read it) is simply never used. The blocks are views of the shared ring they
 * were copied into (handoff-ring.ts), which bounds what is held; they are dropped once the
 * cursor passes them, before the ring may reuse their bytes. Pure, no I/O.
 */
import type { EventKey } from '../store/open-store.js';
import { compareEventKeys } from '../store/event-keys.js';

export interface HandedOffBlock {
  key: EventKey;
  /** The block as written: consecutive msgpack documents (event-log.ts), not compressed. */
  bytes: Uint8Array;
}

const keyText = (key: EventKey): string => `${key[0]}:${key[1]}:${key[2]}`;

export class HandedOffBlocks {
  private readonly blocks = new Map<string, HandedOffBlock>();

  get size(): number {
    return this.blocks.size;
  }

  add(block: HandedOffBlock): void {
    this.blocks.set(keyText(block.key), block);
  }

  /** The block of `key`, no longer held; undefined when it was not handed over. */
  take(key: EventKey): Uint8Array | undefined {
    const text = keyText(key);
    const block = this.blocks.get(text);
    if (block === undefined) return undefined;
    this.blocks.delete(text);
    return block.bytes;
  }

  /** Drops the blocks at or before `cursor`: applied already, read from the store. */
  dropThrough(cursor: EventKey): void {
    for (const [text, block] of this.blocks) {
      if (compareEventKeys(block.key, cursor) <= 0) this.blocks.delete(text);
    }
  }
}

/**
 * Shared memory through which the daemon's thread hands the event-log blocks it writes to the
 * person processor (handed-off-blocks.ts): each block is copied into a ring of shared memory and
 * only its key and place cross threads. Moving each block's own buffer instead cost the processor
 * 9–24% more CPU per event than reading every block back (`--only persons-paced`, four pairs
 * alternating): every block became a large allocation in the processor's isolate, to collect
 * there. With the ring it spends 10% less than reading back (three pairs).
 *
 * Allocation is first in, first out, in key order: a block takes the next free stretch of the
 * ring as it is written (before its commit, so that it reaches the processor first: a busy
 * processor, seeing the commit before the block, read back about half of the blocks of bursts of
 * concurrent requests), and stretches are freed once the processor reports a cursor at or past
 * their keys (it has decoded them by then: a batch is reported after its commit). A block whose
 * commit fails is never taken, and freed as the cursor passes its key. When no stretch is free
 * the block is not handed over and the processor reads it back from the store. Pure, no I/O.
 */
import type { EventKey } from '../store/open-store.js';
import { compareEventKeys } from '../store/event-keys.js';

/** A block's place in the ring. */
export interface RingSlot {
  key: EventKey;
  offset: number;
  length: number;
}

/**
 * About 13,000 events of posthog-node's size (~600 bytes each in a block): more than the default
 * backlog bound lets the processor fall behind (HEDGEROW_MAX_PERSON_BACKLOG, 10,000 events).
 */
const HANDOFF_RING_BYTES = 8 * 1024 * 1024;

export class HandOffRing {
  readonly buffer: SharedArrayBuffer;
  private readonly bytes: Uint8Array;
  /** Live slots, oldest first; their stretches are contiguous modulo the wrap. */
  private readonly slots: RingSlot[] = [];
  /** Where the next block goes. */
  private next = 0;

  constructor(size = HANDOFF_RING_BYTES) {
    this.buffer = new SharedArrayBuffer(size);
    this.bytes = new Uint8Array(this.buffer);
  }

  /** Copies the block into the ring; undefined when no stretch of its length is free. */
  place(key: EventKey, block: Uint8Array): RingSlot | undefined {
    const offset = this.freeStretch(block.byteLength);
    if (offset === undefined) return undefined;
    this.bytes.set(block, offset);
    const slot: RingSlot = { key, offset, length: block.byteLength };
    this.slots.push(slot);
    this.next = offset + block.byteLength;
    return slot;
  }

  /** Frees the slots at or before the processor's `cursor`. */
  release(cursor: EventKey): void {
    let n = 0;
    while (n < this.slots.length && compareEventKeys((this.slots[n] as RingSlot).key, cursor) <= 0) n++;
    this.slots.splice(0, n);
    if (this.slots.length === 0) this.next = 0;
  }

  /** Where `length` bytes fit after the last slot (wrapping to the start), or undefined. */
  private freeStretch(length: number): number | undefined {
    const size = this.bytes.length;
    if (length === 0 || length > size) return undefined;
    const oldest = this.slots[0];
    if (oldest === undefined) return 0;
    if (this.next > oldest.offset) {
      // Live bytes run from the oldest slot to `next`: free after them, or before the oldest.
      if (this.next + length <= size) return this.next;
      return length <= oldest.offset ? 0 : undefined;
    }
    // Wrapped: live bytes run from the oldest slot to the end, and from the start to `next`.
    return this.next + length <= oldest.offset ? this.next : undefined;
  }
}

/**
 * When the person processor's thread removes old events (HEDGEROW_RETENTION_DAYS): a slice at a
 * time between batches, so processing comes first; slice after slice while there is a backlog
 * of old blocks, then a look once a minute. Pure: the clock is given.
 */
import type { PruneSlice } from '../store/event-retention.js';

/** Blocks removed per write transaction: ~1–2 ms each with 100-event blocks (docs/operations.md#retention). */
export const PRUNE_SLICE_BLOCKS = 64;
/** How often to look for newly expired blocks once caught up. */
export const PRUNE_CHECK_INTERVAL_MS = 60_000;

const DAY_MICROS = 86_400 * 1e6;

export class RetentionSchedule {
  private nextCheckMs = 0;

  constructor(private readonly days: number) {}

  /** Blocks received before this (µs since the epoch) may go. */
  horizonMicros(nowMs: number): number {
    return nowMs * 1000 - this.days * DAY_MICROS;
  }

  due(nowMs: number): boolean {
    return nowMs >= this.nextCheckMs;
  }

  /** Records a slice's outcome: another slice at once when it was full, else a look later. */
  after(slice: PruneSlice, nowMs: number): void {
    this.nextCheckMs = slice.more ? nowMs : nowMs + PRUNE_CHECK_INTERVAL_MS;
  }
}

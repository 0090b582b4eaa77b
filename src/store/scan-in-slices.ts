/**
 * Reads a key range of a database in slices of `sliceMs`, awaiting `pause()` between them, for
 * reads of a whole table that must not hold their thread: a pool worker interleaves its capture
 * and flag tasks in the pauses. Each slice is a new range read from the key the last one stopped
 * at (that key itself is not visited twice), so no read transaction stays open across a pause.
 */
import type { Database } from 'lmdb';
import type { StoreKey } from './open-store.js';

export interface ScanPacing {
  sliceMs: number;
  pause: () => Promise<void>;
}

/** Visits the range's entries in key order until `visit` returns true or none is left. */
export async function scanInSlices<V>(
  db: Database<V, StoreKey>,
  range: { start: StoreKey; end: StoreKey },
  pacing: ScanPacing,
  visit: (value: V) => boolean,
): Promise<void> {
  let start = range.start;
  let resumed = false;
  for (;;) {
    const until = performance.now() + pacing.sliceMs;
    let stoppedAt: StoreKey | undefined;
    for (const { key, value } of db.getRange({ start, end: range.end })) {
      if (resumed) {
        resumed = false;
        if (sameKey(key, start)) continue;
      }
      if (visit(value)) return;
      if (performance.now() >= until) {
        stoppedAt = key;
        break;
      }
    }
    if (stoppedAt === undefined) return;
    start = stoppedAt;
    resumed = true;
    await pacing.pause();
  }
}

function sameKey(a: StoreKey, b: StoreKey): boolean {
  if (!Array.isArray(a) || !Array.isArray(b)) return a === b;
  return a.length === b.length && a.every((part, i) => part === b[i]);
}

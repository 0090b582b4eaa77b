/**
 * The results of one evaluation as a read-only map from flag key to result, in the snapshot's
 * order, read straight from the per-slot array the evaluation fills. Copying that array into a
 * new Map on every /flags request (50 sets, and the rehashes as the table grew) was ~2% of the
 * request's CPU in the daemon (perf, 2026-11-21).
 */
import type { FlagResult } from './evaluate-types.js';
import type { FlagSnapshot } from './snapshot-types.js';

export class FlagResults implements ReadonlyMap<string, FlagResult> {
  constructor(
    private readonly snapshot: FlagSnapshot,
    /** Result by value slot; undefined where a flag was not evaluated. */
    private readonly bySlot: readonly (FlagResult | undefined)[],
    readonly size: number,
    /** False when the evaluation stopped at its time budget, leaving flags out. */
    readonly complete: boolean,
  ) {}

  get(key: string): FlagResult | undefined {
    const flag = this.snapshot.byKey.get(key);
    return flag === undefined ? undefined : this.bySlot[flag.slot];
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  forEach(callback: (value: FlagResult, key: string, map: ReadonlyMap<string, FlagResult>) => void, thisArg?: unknown): void {
    for (const flag of this.snapshot.flags) {
      const r = this.bySlot[flag.slot];
      if (r !== undefined) callback.call(thisArg, r, flag.key, this);
    }
  }

  *entries(): MapIterator<[string, FlagResult]> {
    for (const flag of this.snapshot.flags) {
      const r = this.bySlot[flag.slot];
      if (r !== undefined) yield [flag.key, r];
    }
  }

  *keys(): MapIterator<string> {
    for (const [key] of this.entries()) yield key;
  }

  *values(): MapIterator<FlagResult> {
    for (const [, r] of this.entries()) yield r;
  }

  [Symbol.iterator](): MapIterator<[string, FlagResult]> {
    return this.entries();
  }
}

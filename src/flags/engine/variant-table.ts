/**
 * Multivariate lookup (docs/compatibility.md#hashing-and-bucketing): variants in stored order, each
 * owning the range [previous bound, previous bound + pct/100). Bounds are summed once, in the same
 * order and with the same float additions the Rust service performs, so edge hashes land
 * identically.
 */

import { isPlainObject } from '../../util/plain-object.js';

export interface VariantTable {
  readonly keys: readonly string[];
  /** Upper (exclusive) bound of each variant's range. */
  readonly bounds: Float64Array;
}

/** The table of `filters.multivariate`, or null for a boolean flag (no variants). */
export function compileVariantTable(multivariate: unknown): VariantTable | null {
  if (!isPlainObject(multivariate) || !Array.isArray(multivariate.variants)) return null;
  const keys: string[] = [];
  const percentages: number[] = [];
  for (const v of multivariate.variants) {
    if (!isPlainObject(v) || typeof v.key !== 'string') continue;
    keys.push(v.key);
    const pct = typeof v.rollout_percentage === 'number' && Number.isFinite(v.rollout_percentage) ? v.rollout_percentage : 0;
    percentages.push(pct);
  }
  if (keys.length === 0) return null;
  const bounds = new Float64Array(keys.length);
  let cumulative = 0;
  for (let i = 0; i < keys.length; i++) {
    cumulative += (percentages[i] ?? 0) / 100;
    bounds[i] = cumulative;
  }
  return { keys, bounds };
}

/** Index of the variant whose range holds `hash`, or -1 when the percentages stop short of it. */
export function variantIndex(table: VariantTable, hash: number): number {
  const bounds = table.bounds;
  for (let i = 0; i < bounds.length; i++) {
    if (hash < (bounds[i] as number)) return i;
  }
  return -1;
}

/**
 * Bucketing hashes (spec flags.md §1.1): SHA-1 of a string, first 15 hex digits read as an
 * integer and divided by 0xFFFFFFFFFFFFFFF, giving a float in [0, 1]. Rollouts hash
 * `"<flag key>.<identifier>"` with salt "", variants with salt "variant", holdouts hash
 * `"holdout-<identifier>"` (no flag key, so every flag sharing a holdout agrees).
 *
 * `parseInt(hex15, 16) / 0xfffffffffffffff` is exactly what posthog-node computes (the divisor
 * rounds to 2^60 as a double, so the division is exact); keep it. `crypto.hash` (Node ≥ 20.12)
 * is used because it measured ~2x faster than `createHash('sha1')` here (≈0.4 µs against
 * ≈0.9 µs per hash on short keys); `createHash` remains the fallback.
 */

import * as crypto from 'node:crypto';

const SCALE = 0xfffffffffffffff;

type HexDigest = (input: string) => string;

const sha1Hex: HexDigest =
  typeof crypto.hash === 'function'
    ? (input) => crypto.hash('sha1', input, 'hex')
    : (input) => crypto.createHash('sha1').update(input, 'utf8').digest('hex');

/** The bucketing float of an already assembled string. */
export function hashFraction(input: string): number {
  return parseInt(sha1Hex(input).slice(0, 15), 16) / SCALE;
}

/** Salt of the rollout (inclusion) check. */
export const ROLLOUT_SALT = '';
/** Salt of the variant choice. */
export const VARIANT_SALT = 'variant';

/**
 * `hash(flag_key, identifier, salt)`. `keyDot` is the flag key followed by "." (callers keep it
 * precomputed). An empty identifier hashes to 0, as the Rust service does (spec §1.2).
 */
export function bucketHash(keyDot: string, identifier: string, salt: string): number {
  if (identifier === '') return 0;
  return hashFraction(keyDot + identifier + salt);
}

/** Holdout membership hash: no flag key, no salt, and no empty-identifier shortcut. */
export function holdoutHash(identifier: string): number {
  return hashFraction('holdout-' + identifier);
}

/**
 * Bucketing hashes (docs/compatibility.md#hashing-and-bucketing): SHA-1 of a string, first 15 hex
 * digits read as an integer and divided by 0xFFFFFFFFFFFFFFF, giving a float in [0, 1]. Rollouts
 * hash `"<flag key>.<identifier>"` with salt "", variants with salt "variant", holdouts hash
 * `"holdout-<identifier>"` (no flag key, so every flag sharing a holdout agrees).
 *
 * `parseInt(hex15, 16) / 0xfffffffffffffff` is exactly what posthog-node computes (the divisor
 * rounds to 2^60 as a double, so the division is exact). `sha1Fraction` (sha1.ts, SHA-1 in
 * TypeScript) computes that same double without a hex string, from h0 · 2^28 + (h1 >>> 4) rounded
 * once, as parseInt rounds: equal bit for bit on 5 million random ASCII and non-ASCII strings
 * (≈19,000 of them rounding ties), and test/unit/sha1-fraction.test.ts checks it against
 * node:crypto. It replaced `crypto.hash('sha1', s, 'hex')` + `parseInt` because on bucketing
 * strings (20–80 bytes, about 40 per /flags request) the call into node:crypto and the hex string
 * cost more than the hashing. `npm run bench:micro`, both in the same run, 40 `bucketHash` calls
 * (node 20): ASCII ids ≈225 ns against ≈420 ns per hash (0.52–0.57x); non-ASCII ids, UTF-8
 * encoded in TypeScript rather than handed back to node:crypto, ≈300 ns against ≈500 ns
 * (0.54–0.61x). bucketHash and holdoutHash pass their parts unjoined (see sha1.ts for why).
 * (`crypto.hash` had itself replaced `createHash('sha1')`: ≈0.4 µs against ≈0.9 µs.)
 */

import { sha1Fraction } from './sha1.js';

/** Salt of the rollout (inclusion) check. */
export const ROLLOUT_SALT = '';
/** Salt of the variant choice. */
export const VARIANT_SALT = 'variant';

/**
 * `hash(flag_key, identifier, salt)`. `keyDot` is the flag key followed by "." (callers keep it
 * precomputed). An empty identifier hashes to 0, as the Rust service does.
 */
export function bucketHash(keyDot: string, identifier: string, salt: string): number {
  if (identifier === '') return 0;
  return sha1Fraction(keyDot, identifier, salt);
}

/** Holdout membership hash: no flag key, no salt, and no empty-identifier shortcut. */
export function holdoutHash(identifier: string): number {
  return sha1Fraction('holdout-', identifier);
}

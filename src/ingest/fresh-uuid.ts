/**
 * UUIDv7s for events that arrive without a uuid, laid out as uuid's `v7()` lays them out (a
 * millisecond timestamp, a sequence that orders the ones made within a millisecond, random bits)
 * and tested against it, made cheaper for a batch that needs one per event: the random bytes come
 * from a 16 KB pool (`v7()` calls into node:crypto for every 16 uuids), the timestamp's text is
 * kept for its millisecond, and the rest is written from a table of lower-case byte texts
 * (`v7()` builds a byte array, then a string it lower-cases again).
 */
import { randomFillSync } from 'node:crypto';

/** 1,024 uuids' worth of random bytes per refill. */
const POOL_BYTES = 16 * 1024;
const pool = new Uint8Array(POOL_BYTES);
let offset = POOL_BYTES;

/** uuid's own monotonic state: the last millisecond used and the sequence within it. */
let lastMsecs = -Infinity;
let seq = 0;

export function freshUuidV7(): string {
  if (offset === POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  const at = offset;
  offset += 16;
  const now = Date.now();
  if (now > lastMsecs) {
    // A fresh sequence from the random bytes, as uuid seeds it at each new millisecond.
    seq = ((pool[at + 6] as number) << 23) | ((pool[at + 7] as number) << 16) | ((pool[at + 8] as number) << 8) | (pool[at + 9] as number);
    lastMsecs = now;
  } else {
    seq = (seq + 1) | 0;
    // The sequence wrapped within one millisecond: borrow the next one, as uuid does.
    if (seq === 0) lastMsecs++;
  }
  return formatV7(lastMsecs, seq, pool, at);
}

/** Lower-case hex of each byte value. */
const HEX: readonly string[] = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

/** The text of the timestamp part (`xxxxxxxx-xxxx-`) for `prefixMsecs`. */
let prefixMsecs = -1;
let prefix = '';

/**
 * The uuid of `msecs`, `seq` (32 bits) and the random bytes 10–15 of the 16 at `at` in `bytes`,
 * as uuid's `v7Bytes` lays them out.
 */
export function formatV7(msecs: number, seq: number, bytes: Uint8Array, at = 0): string {
  if (msecs !== prefixMsecs) {
    const t = msecs.toString(16).padStart(12, '0').slice(-12);
    prefix = `${t.slice(0, 8)}-${t.slice(8)}-`;
    prefixMsecs = msecs;
  }
  const b6 = 0x70 | ((seq >>> 28) & 0x0f);
  const b7 = (seq >>> 20) & 0xff;
  const b8 = 0x80 | ((seq >>> 14) & 0x3f);
  const b9 = (seq >>> 6) & 0xff;
  const b10 = ((seq << 2) & 0xff) | ((bytes[at + 10] as number) & 0x03);
  return (
    prefix +
    HEX[b6] +
    HEX[b7] +
    '-' +
    HEX[b8] +
    HEX[b9] +
    '-' +
    HEX[b10] +
    HEX[bytes[at + 11] as number] +
    HEX[bytes[at + 12] as number] +
    HEX[bytes[at + 13] as number] +
    HEX[bytes[at + 14] as number] +
    HEX[bytes[at + 15] as number]
  );
}

/**
 * gzipOutputLength against node:zlib itself: for every body zlib inflates, the same length; for
 * bodies zlib refuses, INVALID_GZIP (except a wrong CRC, which only inflating finds); bombs are
 * measured, not inflated.
 */
import { randomBytes } from 'node:crypto';
import { constants, gunzipSync, gzipSync, type ZlibOptions } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { gzipOutputLength, INVALID_GZIP, OVER_LIMIT } from '../../src/wire/gzip-output-length.js';

/** Deterministic pseudo-random generator (mulberry32). */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** JSON-ish text with repeats (dynamic blocks, long matches) and some binary noise (literals). */
function sample(next: () => number, length: number): Buffer {
  const words = ['{"event":"', '$pageview', '","distinct_id":"', 'user-', '"}', ' ', '0123456789', 'é', '😀', '\n'];
  let s = '';
  while (s.length < length) {
    s += next() < 0.05 ? String.fromCharCode(Math.floor(next() * 256)) : words[Math.floor(next() * words.length)];
  }
  return Buffer.from(s.slice(0, length));
}

/** What zlib's gunzip makes of `body`: its length, or INVALID_GZIP. */
function zlibLength(body: Uint8Array): number {
  try {
    return gunzipSync(body).length;
  } catch {
    return INVALID_GZIP;
  }
}

const STRATEGIES = [constants.Z_DEFAULT_STRATEGY, constants.Z_FILTERED, constants.Z_HUFFMAN_ONLY, constants.Z_RLE, constants.Z_FIXED];

function bodies(): Buffer[] {
  const next = rng(1);
  const out: Buffer[] = [gzipSync(Buffer.alloc(0)), gzipSync('a')];
  for (let i = 0; i < 120; i++) {
    const length = Math.floor(next() ** 3 * 200_000);
    const data = i % 9 === 0 ? randomBytes(length) : i % 13 === 0 ? Buffer.alloc(length, 'x') : sample(next, length);
    const opts: ZlibOptions = {
      level: i % 10,
      strategy: STRATEGIES[i % STRATEGIES.length],
      memLevel: 1 + (i % 9),
      windowBits: 10 + (i % 6),
    };
    out.push(gzipSync(data, opts));
  }
  return out;
}

describe('gzipOutputLength', () => {
  const all = bodies();

  it('gives the length zlib inflates to, for every level, strategy and window size', () => {
    for (const body of all) expect(gzipOutputLength(body, Number.MAX_SAFE_INTEGER)).toBe(gunzipSync(body).length);
  });

  it('adds up members one after another, stops at a 0 byte, and refuses other trailing bytes (as zlib)', () => {
    const a = all[20] as Buffer;
    const b = all[31] as Buffer;
    const cases = [
      Buffer.concat([a, b]),
      Buffer.concat([a, b, a]),
      Buffer.concat([a, Buffer.from([0, 1, 2])]),
      Buffer.concat([a, Buffer.from([5])]),
    ];
    for (const body of cases) expect(gzipOutputLength(body, Number.MAX_SAFE_INTEGER)).toBe(zlibLength(body));
    expect(gzipOutputLength(cases[0] as Buffer, Number.MAX_SAFE_INTEGER)).toBe(gunzipSync(a).length + gunzipSync(b).length);
    expect(gzipOutputLength(cases[3] as Buffer, Number.MAX_SAFE_INTEGER)).toBe(INVALID_GZIP);
  });

  it('skips the optional header fields (FEXTRA, FNAME, FCOMMENT, FHCRC)', () => {
    const plain = gzipSync('{"event":"with header fields"}');
    // FLG = FHCRC | FEXTRA | FNAME | FCOMMENT; the header CRC is left to zlib (computed here as zeros, so only the length is compared)
    const extra = Buffer.from([4, 0, 1, 2, 3, 4]);
    const name = Buffer.from('events.json\0');
    const comment = Buffer.from('a comment\0');
    const header = Buffer.from(plain.subarray(0, 10));
    header[3] = 0x02 | 0x04 | 0x08 | 0x10;
    const body = Buffer.concat([header, extra, name, comment, Buffer.from([0, 0]), plain.subarray(10)]);
    expect(gzipOutputLength(body, Number.MAX_SAFE_INTEGER)).toBe(30);
    const noCrc = Buffer.concat([header.map((b, i) => (i === 3 ? 0x04 | 0x08 | 0x10 : b)), extra, name, comment, plain.subarray(10)]);
    expect(gzipOutputLength(noCrc, Number.MAX_SAFE_INTEGER)).toBe(gunzipSync(noCrc).length);
  });

  it('refuses what zlib refuses: truncated bodies, bad headers, a wrong ISIZE', () => {
    const next = rng(2);
    let compared = 0;
    for (const body of all) {
      if (body.length < 20) continue;
      const cut = body.subarray(0, Math.floor(next() * body.length));
      expect(gzipOutputLength(cut, Number.MAX_SAFE_INTEGER)).toBe(INVALID_GZIP);
      compared++;
    }
    expect(compared).toBeGreaterThan(100);
    const good = all[40] as Buffer;
    for (const [at, value] of [
      [2, 9],
      [3, 0xe0],
    ] as const) {
      const bad = Buffer.from(good);
      bad[at] = value;
      expect([gzipOutputLength(bad, Number.MAX_SAFE_INTEGER), zlibLength(bad)]).toEqual([INVALID_GZIP, INVALID_GZIP]);
    }
    const wrongSize = Buffer.from(good);
    wrongSize.writeUInt32LE(wrongSize.readUInt32LE(wrongSize.length - 4) + 1, wrongSize.length - 4);
    expect([gzipOutputLength(wrongSize, Number.MAX_SAFE_INTEGER), zlibLength(wrongSize)]).toEqual([INVALID_GZIP, INVALID_GZIP]);
  });

  it('never gives a length for a corrupted body that zlib inflates differently', () => {
    const next = rng(3);
    let inflated = 0;
    for (let i = 0; i < 600; i++) {
      const body = Buffer.from(all[i % all.length] as Buffer);
      if (body.length < 12) continue;
      body[10 + Math.floor(next() * (body.length - 10))]! ^= 1 << Math.floor(next() * 8);
      const want = zlibLength(body);
      const got = gzipOutputLength(body, Number.MAX_SAFE_INTEGER);
      // zlib refusing what the measure accepts is a CRC mismatch only: the inflate that follows refuses it.
      if (want !== INVALID_GZIP) {
        expect(got).toBe(want);
        inflated++;
      }
    }
    expect(inflated).toBeGreaterThan(0);
  });

  it('stops as soon as the count passes the limit, and says so', () => {
    const body = gzipSync('x'.repeat(10_000));
    expect(gzipOutputLength(body, 10_000)).toBe(10_000);
    expect(gzipOutputLength(body, 9_999)).toBe(OVER_LIMIT);
  });

  it('measures a bomb in milliseconds, without inflating it', () => {
    const bomb = gzipSync(Buffer.alloc(128 * 1024 * 1024), { level: 1 }); // ~600 KB
    const before = process.memoryUsage();
    let started = performance.now();
    expect(gzipOutputLength(bomb, 100 * 1024 * 1024)).toBe(OVER_LIMIT);
    expect(performance.now() - started).toBeLessThan(100);
    started = performance.now();
    expect(gzipOutputLength(bomb, Number.MAX_SAFE_INTEGER)).toBe(128 * 1024 * 1024);
    expect(performance.now() - started).toBeLessThan(500); // inflating would build 128 MiB
    expect(process.memoryUsage().arrayBuffers - before.arrayBuffers).toBeLessThan(4 * 1024 * 1024);
  });
});

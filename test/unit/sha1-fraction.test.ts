/**
 * The pure TypeScript SHA-1 (sha1.ts) against node:crypto: `sha1Fraction` must give the very
 * double the replaced `parseInt(sha1Hex.slice(0, 15), 16) / 0xfffffffffffffff` gave, for any
 * string, however it is split into parts.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { bucketHash, holdoutHash } from '../../src/flags/engine/hash.js';
import { sha1Fraction } from '../../src/flags/engine/sha1.js';

/** The replaced implementation: node:crypto hashes the string's UTF-8 (lone surrogates → U+FFFD). */
function cryptoFraction(input: string): number {
  return parseInt(createHash('sha1').update(input, 'utf8').digest('hex').slice(0, 15), 16) / 0xfffffffffffffff;
}

/** A small seeded PRNG (mulberry32), so a failure reproduces. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

function randomString(next: () => number, length: number, maxCodeUnit: number): string {
  let s = '';
  for (let i = 0; i < length; i++) s += String.fromCharCode(Math.floor(next() * maxCodeUnit));
  return s;
}

function expectSameAsCrypto(input: string): void {
  expect(sha1Fraction(input), JSON.stringify(input)).toBe(cryptoFraction(input));
}

describe('sha1Fraction equals the node:crypto fraction', () => {
  it('for the empty string', () => {
    expectSameAsCrypto('');
    expect(sha1Fraction('', '', '')).toBe(cryptoFraction(''));
  });

  it('for every length 0..200 (the 55/56 and 64-byte block boundaries included)', () => {
    for (let length = 0; length <= 200; length++) {
      expectSameAsCrypto('a'.repeat(length));
      expectSameAsCrypto(randomString(random(length), length, 0x80));
    }
  });

  it('for 10,000 random ASCII strings', () => {
    const next = random(1);
    for (let i = 0; i < 10_000; i++) expectSameAsCrypto(randomString(next, Math.floor(next() * 130), 0x80));
  });

  it('for strings whose 60-bit value is a rounding tie between two doubles', () => {
    // With the top bit set the value has 60 significant bits, 7 more than a double holds; it is a
    // tie when those 7 bits are 1000000. parseInt rounds ties to even; so must sha1Fraction.
    let ties = 0;
    for (let i = 0; ties < 20; i++) {
      const input = `tie-${i}`;
      const hex = createHash('sha1').update(input).digest('hex');
      if (parseInt(hex.slice(0, 1), 16) >= 8 && (parseInt(hex.slice(13, 15), 16) & 0x7f) === 0x40) {
        ties++;
        expectSameAsCrypto(input);
      }
    }
  });

  it('for non-ASCII text: two-, three- and four-byte UTF-8', () => {
    for (const s of ['é', 'café', 'naïve-user-ü', '中文', '用户-12345', '🦔', 'anna-🦔-😀', '\u0080', '\u07ff', '\u0800', '\uffff']) {
      expectSameAsCrypto(s);
    }
  });

  it('for lone surrogates, which node:crypto hashes as U+FFFD', () => {
    for (const s of ['\ud800', '\udc00', 'a\ud83dz', 'a\ude00z', 'end\ud83d', '\ude00\ud83d', '\ud83d\ud83d\ude00', '\ud83d\ude00\ude00']) {
      expectSameAsCrypto(s);
      expect(sha1Fraction(s)).toBe(
        sha1Fraction(s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')),
      );
    }
  });

  it('for non-ASCII strings of every length across the block boundaries', () => {
    for (let length = 0; length <= 100; length++) {
      expectSameAsCrypto('é'.repeat(length));
      expectSameAsCrypto('中'.repeat(length));
      expectSameAsCrypto('🦔'.repeat(length));
      expectSameAsCrypto(randomString(random(1000 + length), length, 0x10000));
    }
  });

  it('for long inputs, and for short ones again after the buffer grew', () => {
    expectSameAsCrypto('x'.repeat(10_000));
    expectSameAsCrypto('中'.repeat(5_000) + '\ud83d');
    expectSameAsCrypto('short');
  });

  it('on both sides of the length where node:crypto takes over (1,024 code units), split or not', () => {
    for (const length of [1000, 1023, 1024, 1025, 1030, 4096]) {
      const text = randomString(random(length), length, 0x10000);
      expectSameAsCrypto(text);
      expect(sha1Fraction(text.slice(0, 7), text.slice(7, length - 3), text.slice(length - 3))).toBe(cryptoFraction(text));
      expectSameAsCrypto('a'.repeat(length));
    }
    // A surrogate pair straddling two parts of a long text is still one code point.
    expect(sha1Fraction('😀'.slice(0, 1), `\ude00${'b'.repeat(2000)}`)).toBe(cryptoFraction(`😀${'b'.repeat(2000)}`));
  });
});

describe('sha1Fraction of parts hashes their concatenation', () => {
  it('wherever the string is split', () => {
    const next = random(2);
    for (let i = 0; i < 2_000; i++) {
      const s = randomString(next, Math.floor(next() * 90), i % 2 === 0 ? 0x80 : 0x10000);
      const a = Math.floor(next() * (s.length + 1));
      const b = a + Math.floor(next() * (s.length - a + 1));
      expect(sha1Fraction(s.slice(0, a), s.slice(a, b), s.slice(b)), JSON.stringify(s)).toBe(cryptoFraction(s));
    }
  });

  it('when a surrogate pair straddles two parts (one code point, not two U+FFFD)', () => {
    expect(sha1Fraction('flag.\ud83d', '\ude00', '')).toBe(cryptoFraction('flag.😀'));
    expect(sha1Fraction('flag.', 'a\ud83d', '\ude00variant')).toBe(cryptoFraction('flag.a😀variant'));
  });
});

describe('hash.ts on top of sha1Fraction', () => {
  it('bucketHash and holdoutHash match the node:crypto fraction of the assembled string', () => {
    const next = random(3);
    for (let i = 0; i < 1_000; i++) {
      const id = randomString(next, 1 + Math.floor(next() * 40), i % 4 === 0 ? 0x10000 : 0x80);
      expect(bucketHash('some-flag.', id, '')).toBe(cryptoFraction(`some-flag.${id}`));
      expect(bucketHash('some-flag.', id, 'variant')).toBe(cryptoFraction(`some-flag.${id}variant`));
      expect(holdoutHash(id)).toBe(cryptoFraction(`holdout-${id}`));
    }
  });

  it('keeps the worked example: "some-flag.some_distinct_id" buckets at 0.8937694017077238', () => {
    expect(bucketHash('some-flag.', 'some_distinct_id', '')).toBe(0.8937694017077238);
  });
});

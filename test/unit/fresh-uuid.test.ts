/** Generated event uuids: UUIDv7, unique, and in creation order even within one millisecond. */
import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { v7, validate, version } from 'uuid';
import { formatV7, freshUuidV7 } from '../../src/ingest/fresh-uuid.js';

describe('freshUuidV7', () => {
  it('makes valid, distinct, ordered version 7 uuids across pool refills', () => {
    const before = Date.now();
    // More than one pool of random bytes (1,024 uuids), most within the same milliseconds.
    const made = Array.from({ length: 5000 }, () => freshUuidV7());
    const after = Date.now();
    for (const u of made) {
      expect(validate(u)).toBe(true);
      expect(version(u)).toBe(7);
      expect('89ab').toContain(u[19]);
    }
    expect(new Set(made).size).toBe(made.length);
    expect([...made].sort()).toEqual(made);
    const msecs = (u: string) => Number.parseInt(u.slice(0, 8) + u.slice(9, 13), 16);
    expect(msecs(made[0]!)).toBeGreaterThanOrEqual(before);
    expect(msecs(made[made.length - 1]!)).toBeLessThanOrEqual(after + 1);
  });

  it("lays a uuid out as uuid's v7 does, for any time, sequence and random bytes", () => {
    const times = [0, 1, 0x0fffffffffff, 0xffffffffffff, Date.now(), 1_700_000_000_123];
    const seqs = [0, 1, -1, 0x7fffffff, -0x80000000, 0x0fffffff, 123456789];
    for (const msecs of times) {
      for (const seq of seqs) {
        const bytes = randomBytes(48);
        const random = new Uint8Array(bytes.subarray(16, 32));
        // The same call twice: once computing the time's text, once reusing it.
        expect(formatV7(msecs, seq, bytes, 16)).toBe(v7({ random, msecs, seq }));
        expect(formatV7(msecs, seq, random)).toBe(v7({ random, msecs, seq }));
      }
    }
  });
});

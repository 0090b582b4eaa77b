/** Generated event uuids: UUIDv7, unique, and in creation order even within one millisecond. */
import { describe, expect, it } from 'vitest';
import { validate, version } from 'uuid';
import { freshUuidV7 } from '../../src/ingest/fresh-uuid.js';

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
});

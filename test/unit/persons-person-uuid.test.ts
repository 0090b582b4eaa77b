/** Person UUIDs are PostHog's: uuidv5 of "<team id>:<distinct id>" (expected values from Python's uuid.uuid5). */
import { describe, expect, it } from 'vitest';
import { v5 as uuidv5 } from 'uuid';
import { personUuid } from '../../src/persons/person-uuid.js';

describe('personUuid', () => {
  it('is uuidv5 of "<project>:<distinct id>" in PostHog\'s namespace, the name as UTF-8', () => {
    expect(personUuid(1, 'user-1')).toBe('6931a681-6e90-500d-8294-14582dcc2e3f');
    expect(personUuid(2, 'usér 😀')).toBe('c8a5dbf8-3250-5e21-86a1-15a639d45b38');
  });

  it("agrees with uuid's v5 for every variant digit, long names and lone surrogates", () => {
    const namespace = '932979b4-65c3-4424-8467-0b66ec27bc22';
    const names = [
      ...Array.from({ length: 64 }, (_, i) => `user-${i}`),
      'x'.repeat(5000),
      `${'é'.repeat(300)}😀`,
      'lone \ud800 surrogate',
      '',
    ];
    for (const name of names) expect(personUuid(3, name)).toBe(uuidv5(Buffer.from(`3:${name}`, 'utf8'), namespace));
    // A short name after a long one still hashes only its own bytes.
    expect(personUuid(1, 'user-1')).toBe('6931a681-6e90-500d-8294-14582dcc2e3f');
  });
});

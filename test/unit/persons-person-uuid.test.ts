/** Person UUIDs are PostHog's: uuidv5 of "<team id>:<distinct id>" (expected values from Python's uuid.uuid5). */
import { describe, expect, it } from 'vitest';
import { personUuid } from '../../src/store/person-writer.js';

describe('personUuid', () => {
  it('is uuidv5 of "<project>:<distinct id>" in PostHog\'s namespace, the name as UTF-8', () => {
    expect(personUuid(1, 'user-1')).toBe('6931a681-6e90-500d-8294-14582dcc2e3f');
    expect(personUuid(2, 'usér 😀')).toBe('c8a5dbf8-3250-5e21-86a1-15a639d45b38');
  });
});

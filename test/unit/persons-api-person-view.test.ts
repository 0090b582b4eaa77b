import { describe, expect, it } from 'vitest';
import { apiDateTime } from '../../src/compat/iso-micros.js';
import {
  anonymousLast,
  isAnonymousId,
  LIST_DISTINCT_IDS_LIMIT,
  listedPerson,
  personName,
  retrievedPerson,
} from '../../src/management-api/person-view.js';
import { parsePersonRef } from '../../src/persons/person-ref.js';
import type { PersonRecord } from '../../src/store/person-store.js';

const ANON = '0191a3c2-5e2f-7cc1-a5f1-30bd1e2a2b11';

function person(over: Partial<PersonRecord> = {}): PersonRecord {
  return {
    id: 7,
    uuid: '5f0e8b4a-2a2c-5d0e-9d39-1f3e0c6a9b10',
    properties: {},
    created_at: '2024-05-01T12:34:56.789Z',
    is_identified: false,
    version: 0,
    ...over,
  };
}

describe('isAnonymousId / anonymousLast', () => {
  it('takes five dash-separated lower-case runs as anonymous', () => {
    expect(isAnonymousId(ANON)).toBe(true);
    expect(isAnonymousId('a-b-c-d-e')).toBe(true);
    expect(isAnonymousId(`${ANON}\n`)).toBe(true); // Python's `$` before a final newline
    expect(isAnonymousId(ANON.toUpperCase())).toBe(false);
    expect(isAnonymousId('user@example.com')).toBe(false);
    expect(isAnonymousId('a-b-c-d')).toBe(false);
  });

  it('puts identified-looking ids first and keeps each group in order', () => {
    expect(anonymousLast([ANON, 'user-1', 'a-b-c-d-e', 'alice'])).toEqual(['user-1', 'alice', ANON, 'a-b-c-d-e']);
  });
});

describe('personName', () => {
  it('takes the first truthy display property, in PostHog’s order', () => {
    expect(personName({ name: 'Ann', email: 'ann@example.com' }, ['x'], '7')).toBe('ann@example.com');
    expect(personName({ email: '', $email: 'e@x.io', name: 'Ann' }, ['x'], '7')).toBe('e@x.io');
    expect(personName({ email: 0, Name: { first: 'A' } }, [], '7')).toEqual({ first: 'A' });
  });

  it('falls back to the first non-anonymous distinct id, then the fallback', () => {
    expect(personName({ email: null, username: [] }, [ANON, 'bob'], '7')).toBe('bob');
    expect(personName({}, [ANON], '7')).toBe(ANON);
    expect(personName({}, [], '7')).toBe('7');
  });
});

describe('apiDateTime', () => {
  it('prints UTC with microseconds and Z, none on a whole second, as DRF does', () => {
    expect(apiDateTime('2024-05-01T12:34:56.789Z')).toBe('2024-05-01T12:34:56.789000Z');
    expect(apiDateTime('2024-05-01T14:34:56+02:00')).toBe('2024-05-01T12:34:56Z');
    expect(apiDateTime('not a date')).toBe('not a date');
  });
});

describe('listedPerson / retrievedPerson', () => {
  it('prints the list shape: UUID as id, stored distinct id order', () => {
    const p = person({ properties: { email: 'ann@example.com' }, is_identified: true });
    expect(listedPerson(p, [ANON, 'ann'])).toEqual({
      type: 'person',
      id: p.uuid,
      uuid: p.uuid,
      created_at: '2024-05-01T12:34:56.789000Z',
      last_seen_at: null,
      properties: { email: 'ann@example.com' },
      is_identified: true,
      name: 'ann@example.com',
      distinct_ids: [ANON, 'ann'],
      matched_recordings: [],
      value_at_data_point: null,
    });
  });

  it('caps the listed distinct ids', () => {
    const ids = Array.from({ length: LIST_DISTINCT_IDS_LIMIT + 5 }, (_, i) => `d${i}`);
    expect((listedPerson(person(), ids).distinct_ids as string[]).length).toBe(LIST_DISTINCT_IDS_LIMIT);
  });

  it('prints the retrieve shape: integer id, anonymous ids last, keys in PostHog’s order', () => {
    const p = person();
    const body = retrievedPerson(p, [ANON, 'ann']);
    expect(Object.keys(body)).toEqual(['id', 'name', 'distinct_ids', 'properties', 'created_at', 'uuid']);
    expect(body).toMatchObject({ id: 7, name: 'ann', distinct_ids: ['ann', ANON], uuid: p.uuid });
    expect(retrievedPerson(p, []).name).toBe('7');
  });
});

describe('parsePersonRef', () => {
  it('reads UUIDs in the forms Python takes, as canonical lower case', () => {
    const canonical = { uuid: '5f0e8b4a-2a2c-5d0e-9d39-1f3e0c6a9b10' };
    expect(parsePersonRef('5F0E8B4A-2A2C-5D0E-9D39-1F3E0C6A9B10')).toEqual(canonical);
    expect(parsePersonRef('5f0e8b4a2a2c5d0e9d391f3e0c6a9b10')).toEqual(canonical);
    expect(parsePersonRef('{5f0e8b4a-2a2c-5d0e-9d39-1f3e0c6a9b10}')).toEqual(canonical);
    expect(parsePersonRef('urn:uuid:5f0e8b4a-2a2c-5d0e-9d39-1f3e0c6a9b10')).toEqual(canonical);
  });

  it('reads integer ids as Python int() does', () => {
    expect(parsePersonRef('42')).toEqual({ id: 42 });
    expect(parsePersonRef(' +1_000 ')).toEqual({ id: 1000 });
    expect(parsePersonRef('-3')).toBe('not_found');
    expect(parsePersonRef('-0')).toEqual({ id: 0 });
    expect(parsePersonRef('99999999999999999999')).toBe('not_found');
  });

  it('refuses anything else, and 404s a dot as DRF’s lookup pattern does', () => {
    expect(parsePersonRef('user@example')).toBe('invalid');
    expect(parsePersonRef('1__0')).toBe('invalid');
    expect(parsePersonRef('1.5')).toBe('not_found');
  });
});

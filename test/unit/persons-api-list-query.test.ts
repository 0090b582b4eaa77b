import { describe, expect, it } from 'vitest';
import { canonicalUuid } from '../../src/compat/python-parse.js';
import {
  FUTURE_PERSON_MARGIN_MS,
  ilike,
  newestPersonFirst,
  personMatches,
  propertyText,
  withOffset,
  type PersonFilter,
} from '../../src/persons/person-list-query.js';
import type { PersonRecord } from '../../src/store/person-store.js';

const NOW = Date.parse('2024-06-01T00:00:00Z');

function person(id: number, over: Partial<PersonRecord> = {}): PersonRecord {
  return {
    id,
    uuid: `00000000-0000-0000-0000-${String(id).padStart(12, '0')}`,
    properties: {},
    created_at: '2024-05-01T00:00:00.000Z',
    is_identified: false,
    version: 0,
    ...over,
  };
}

const base: PersonFilter = { createdBeforeMs: NOW + FUTURE_PERSON_MARGIN_MS };

describe('ilike', () => {
  it('matches case-insensitively with % and _ wildcards', () => {
    expect(ilike('Ann@Example.com', '%example%')).toBe(true);
    expect(ilike('Ünïcode', '%üNï%')).toBe(true);
    expect(ilike('axb', '%a_b%')).toBe(true); // PostHog does not escape the search
    expect(ilike('ab', '%a_b%')).toBe(false);
    expect(ilike('a.b', '%a.b%')).toBe(true);
    expect(ilike('axb', '%a.b%')).toBe(false);
    expect(ilike('a_b', '%a\\_b%')).toBe(true);
    expect(ilike('axb', '%a\\_b%')).toBe(false);
    expect(ilike('line\nbreak', '%line%break%')).toBe(true);
  });
});

describe('propertyText', () => {
  it('prints a property as ClickHouse extracts it', () => {
    expect(propertyText('a@b.c')).toBe('a@b.c');
    expect(propertyText('say "hi"')).toBe('say \\"hi\\"');
    expect(propertyText(42)).toBe('42');
    expect(propertyText(undefined)).toBe('');
    expect(propertyText(null)).toBe('null');
  });
});

describe('canonicalUuid', () => {
  it('normalizes UUIDs and refuses the rest', () => {
    expect(canonicalUuid('ABCDEF00-0000-0000-0000-000000000001')).toBe('abcdef00-0000-0000-0000-000000000001');
    expect(canonicalUuid('abcdef000000000000000000000000001')).toBeUndefined();
    expect(canonicalUuid('user-1')).toBeUndefined();
  });
});

describe('personMatches', () => {
  const ann = person(1, { properties: { email: 'ann@example.com' } });
  const bob = person(2, { properties: { email: 'bob@other.org', name: 'example' } });

  it('filters by the owner of distinct_id (null: nobody)', () => {
    expect(personMatches(ann, { ...base, personId: 1 })).toBe(true);
    expect(personMatches(bob, { ...base, personId: 1 })).toBe(false);
    expect(personMatches(ann, { ...base, personId: null })).toBe(false);
  });

  it('filters email exactly', () => {
    expect(personMatches(ann, { ...base, email: 'ann@example.com' })).toBe(true);
    expect(personMatches(ann, { ...base, email: 'ANN@example.com' })).toBe(false);
  });

  it('searches the email (not the name), an exact distinct id and the UUID', () => {
    const search = (text: string, ownerId?: number) => ({ ...base, search: { text, ownerId, uuid: canonicalUuid(text) } });
    expect(personMatches(ann, search('EXAMPLE'))).toBe(true);
    expect(personMatches(bob, search('example'))).toBe(false);
    expect(personMatches(bob, search('bob-device', 2))).toBe(true);
    expect(personMatches(bob, search(bob.uuid.toUpperCase()))).toBe(true);
    expect(personMatches(ann, search(bob.uuid))).toBe(false);
  });

  it('hides persons created more than a day ahead', () => {
    expect(personMatches(person(3, { created_at: '2024-06-01T23:00:00Z' }), base)).toBe(true);
    expect(personMatches(person(3, { created_at: '2024-06-02T00:00:00Z' }), base)).toBe(false);
  });
});

describe('newestPersonFirst', () => {
  it('orders by created_at descending, then UUID descending', () => {
    const a = person(1, { created_at: '2024-01-01T00:00:00Z' });
    const b = person(2, { created_at: '2024-03-01T00:00:00Z' });
    const c = person(3, { created_at: '2024-01-01T00:00:00Z' });
    expect([a, b, c].sort(newestPersonFirst).map((p) => p.id)).toEqual([2, 3, 1]);
  });
});

describe('withOffset', () => {
  it('replaces offset where it is and appends it otherwise, leaving the rest as sent', () => {
    expect(withOffset('http://h/api/projects/1/persons/', 100)).toBe('http://h/api/projects/1/persons/?offset=100');
    expect(withOffset('http://h/p/?search=a%20b&limit=2', 2)).toBe('http://h/p/?search=a%20b&limit=2&offset=2');
    expect(withOffset('http://h/p/?offset=4&limit=2', 2)).toBe('http://h/p/?offset=2&limit=2');
    expect(withOffset('http://h/p/?limit=2&offset=2', 0)).toBe('http://h/p/?limit=2&offset=0');
  });
});

import { describe, expect, it } from 'vitest';
import { isIllegalDistinctId, isIllegalMergeId } from '../../src/persons/illegal-distinct-id.js';

const CASE_INSENSITIVE = [
  'anonymous',
  'guest',
  'distinctid',
  'distinct_id',
  'id',
  'not_authenticated',
  'email',
  'undefined',
  'true',
  'false',
];
const CASE_SENSITIVE = ['[object Object]', 'NaN', 'None', 'none', 'null', '0', 'undefined'];

const quoted = (id: string): string[] => [id, `'${id}'`, `"${id}"`];

describe('isIllegalMergeId: ids no merge may involve (docs/compatibility.md#merges)', () => {
  it.each(CASE_INSENSITIVE.flatMap(quoted))('refuses %s', (id) => {
    expect(isIllegalMergeId(id)).toBe(true);
  });

  it.each(CASE_INSENSITIVE.flatMap((id) => quoted(id.toUpperCase())))('refuses %s in any case', (id) => {
    expect(isIllegalMergeId(id)).toBe(true);
  });

  it('refuses mixed case forms of the case-insensitive list', () => {
    for (const id of ['Anonymous', 'uNdEfInEd', "'Guest'", '"Not_Authenticated"', 'TRUE', 'False', 'DistinctId', 'ID']) {
      expect(isIllegalMergeId(id)).toBe(true);
    }
  });

  it.each(CASE_SENSITIVE.flatMap(quoted))('refuses %s exactly as written', (id) => {
    expect(isIllegalMergeId(id)).toBe(true);
  });

  it('allows other casings of the case-sensitive list', () => {
    for (const id of ['nan', 'NAN', "'nan'", 'NONE', '"NONE"', 'NULL', 'Null', "'NULL'", '[object object]', '[OBJECT OBJECT]']) {
      expect(isIllegalMergeId(id)).toBe(false);
    }
  });

  it('refuses empty and whitespace-only ids', () => {
    for (const id of ['', ' ', '   ', '\t', '\n', ' \t\r\n ', '\u00a0', '\u2003']) {
      expect(isIllegalMergeId(id)).toBe(true);
    }
  });

  it('checks the lists against the untrimmed id, as PostHog does', () => {
    expect(isIllegalMergeId(' anonymous')).toBe(false);
    expect(isIllegalMergeId('null ')).toBe(false);
    expect(isIllegalMergeId(' 0 ')).toBe(false);
  });

  it('does not refuse ids that merely contain or resemble a listed word', () => {
    for (const id of ['anonymous-1', 'guest_42', '00', '0.0', 'user@example.com', "''", '""', '\'anonymous"', 'identity', '01']) {
      expect(isIllegalMergeId(id)).toBe(false);
    }
  });

  it('accepts ordinary ids', () => {
    for (const id of ['user-1', '0190c3c2-1f2e-7c3a-9a3b-5b5c5d5e5f60', 'alice@example.com', '42', 'x']) {
      expect(isIllegalMergeId(id)).toBe(false);
    }
  });

  it('refuses ids holding NUL (unmergeable: they cannot be stored)', () => {
    expect(isIllegalMergeId('user\0one')).toBe(true);
    expect(isIllegalDistinctId('user\0one')).toBe(false);
  });

  it('refuses ids longer than 400 code points, counting code points not UTF-16 units', () => {
    expect(isIllegalMergeId('a'.repeat(400))).toBe(false);
    expect(isIllegalMergeId('a'.repeat(401))).toBe(true);
    const emoji = '😀'.repeat(400); // 800 UTF-16 units, 400 code points
    expect(emoji.length).toBe(800);
    expect(isIllegalMergeId(emoji)).toBe(false);
    expect(isIllegalMergeId(`${emoji}😀`)).toBe(true);
    expect(isIllegalDistinctId('a'.repeat(401))).toBe(false);
  });
});

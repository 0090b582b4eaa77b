import { describe, expect, it } from 'vitest';
import { MAX_GROUP_KEY_CHARS } from '../../src/limits.js';
import { applyGroupSet, groupIndexProperties, groupTypesOf, parseGroupIdentify } from '../../src/persons/group-event.js';
import { MAX_GROUP_TYPES, allocateGroupTypeIndex } from '../../src/persons/group-types.js';

const mapping = (entries: [string, number][]): Map<string, number> => new Map(entries);

describe('allocateGroupTypeIndex (docs/compatibility.md#groups)', () => {
  it('allows five types', () => {
    expect(MAX_GROUP_TYPES).toBe(5);
  });

  it('returns the existing index of a known type', () => {
    expect(
      allocateGroupTypeIndex(
        mapping([
          ['company', 0],
          ['team', 3],
        ]),
        'team',
      ),
    ).toBe(3);
  });

  it('gives the first type index 0', () => {
    expect(allocateGroupTypeIndex(new Map(), 'company')).toBe(0);
  });

  it('takes the lowest unused index', () => {
    expect(
      allocateGroupTypeIndex(
        mapping([
          ['a', 0],
          ['b', 1],
        ]),
        'c',
      ),
    ).toBe(2);
  });

  it('fills a gap before going higher', () => {
    expect(
      allocateGroupTypeIndex(
        mapping([
          ['a', 0],
          ['b', 2],
          ['c', 3],
        ]),
        'd',
      ),
    ).toBe(1);
    expect(
      allocateGroupTypeIndex(
        mapping([
          ['b', 1],
          ['c', 4],
        ]),
        'd',
      ),
    ).toBe(0);
  });

  it('never registers a name over 400 characters', () => {
    expect(allocateGroupTypeIndex(new Map(), 'g'.repeat(400))).toBe(0);
    expect(allocateGroupTypeIndex(new Map(), 'g'.repeat(401))).toBeUndefined();
  });

  it('drops a sixth type', () => {
    const full = mapping([
      ['a', 0],
      ['b', 1],
      ['c', 2],
      ['d', 3],
      ['e', 4],
    ]);
    expect(allocateGroupTypeIndex(full, 'f')).toBeUndefined();
    expect(allocateGroupTypeIndex(full, 'c')).toBe(2);
  });

  it('names are case-sensitive', () => {
    expect(allocateGroupTypeIndex(mapping([['Company', 0]]), 'company')).toBe(1);
  });

  it('allocates in sequence when the caller records each result', () => {
    const m = new Map<string, number>();
    const got = ['a', 'b', 'a', 'c', 'd', 'e', 'f', 'b'].map((name) => {
      const index = allocateGroupTypeIndex(m, name);
      if (index !== undefined) m.set(name, index);
      return index;
    });
    expect(got).toEqual([0, 1, 0, 2, 3, 4, undefined, 1]);
  });
});

describe('parseGroupIdentify (docs/compatibility.md#groups)', () => {
  const gi = (properties: Record<string, unknown>, event = '$groupidentify') => parseGroupIdentify({ event, properties });

  it('reads type, key and $group_set', () => {
    expect(gi({ $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Acme', seats: 5 } })).toEqual({
      groupType: 'company',
      groupKey: 'acme',
      set: { name: 'Acme', seats: 5 },
    });
  });

  it('only parses $groupidentify', () => {
    expect(gi({ $group_type: 'company', $group_key: 'acme' }, '$pageview')).toBeUndefined();
    expect(gi({ $group_type: 'company', $group_key: 'acme' }, '$GroupIdentify')).toBeUndefined();
  });

  it('stringifies a numeric key (and type)', () => {
    expect(gi({ $group_type: 'company', $group_key: 42 })).toEqual({ groupType: 'company', groupKey: '42', set: {} });
    expect(gi({ $group_type: 'company', $group_key: 1.5 })?.groupKey).toBe('1.5');
    expect(gi({ $group_type: 7, $group_key: 'k' })?.groupType).toBe('7');
  });

  it('is not a groupidentify without a truthy type or key', () => {
    expect(gi({ $group_key: 'acme' })).toBeUndefined();
    expect(gi({ $group_type: 'company' })).toBeUndefined();
    expect(gi({ $group_type: '', $group_key: 'acme' })).toBeUndefined();
    expect(gi({ $group_type: 'company', $group_key: '' })).toBeUndefined();
    expect(gi({ $group_type: 'company', $group_key: 0 })).toBeUndefined();
    expect(gi({ $group_type: 'company', $group_key: null })).toBeUndefined();
    expect(gi({ $group_type: null, $group_key: 'acme' })).toBeUndefined();
  });

  it('rejects object and array keys or types', () => {
    expect(gi({ $group_type: 'company', $group_key: { id: 1 } })).toBeUndefined();
    expect(gi({ $group_type: 'company', $group_key: ['a'] })).toBeUndefined();
    expect(gi({ $group_type: { t: 1 }, $group_key: 'acme' })).toBeUndefined();
  });

  it('replaces NUL in the key', () => {
    expect(gi({ $group_type: 'company', $group_key: 'ac\0me' })?.groupKey).toBe('ac\uFFFDme');
  });

  it('keeps surrounding whitespace in the key', () => {
    expect(gi({ $group_type: 'company', $group_key: ' acme ' })?.groupKey).toBe(' acme ');
  });

  it('refuses keys over 400 characters', () => {
    expect(MAX_GROUP_KEY_CHARS).toBe(400);
    expect(gi({ $group_type: 'company', $group_key: 'k'.repeat(400) })?.groupKey).toHaveLength(400);
    expect(gi({ $group_type: 'company', $group_key: 'k'.repeat(401) })).toBeUndefined();
  });

  it('treats a missing or null $group_set as empty', () => {
    expect(gi({ $group_type: 'company', $group_key: 'acme' })?.set).toEqual({});
    expect(gi({ $group_type: 'company', $group_key: 'acme', $group_set: null })?.set).toEqual({});
  });

  it('refuses a $group_set that is not an object', () => {
    for (const $group_set of ['name', 5, true, ['a']]) {
      expect(gi({ $group_type: 'company', $group_key: 'acme', $group_set })).toBeUndefined();
    }
  });

  it('is not parsed when sent with $process_person_profile: false (PostHog drops the event)', () => {
    expect(gi({ $group_type: 'company', $group_key: 'acme', $process_person_profile: false })).toBeUndefined();
    expect(gi({ $group_type: 'company', $group_key: 'acme', $process_person_profile: 'false' })?.groupKey).toBe('acme');
  });

  it('copies $group_set', () => {
    const properties = { $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Acme' } };
    const parsed = gi(properties);
    parsed!.set.name = 'changed';
    expect(properties.$group_set).toEqual({ name: 'Acme' });
  });
});

describe('groupIndexProperties: $groups → $group_N (docs/compatibility.md#groups)', () => {
  const m = mapping([
    ['company', 0],
    ['team', 2],
  ]);

  it('adds $group_<index> for each mapped type', () => {
    expect(groupIndexProperties({ company: 'acme', team: 'core' }, m)).toEqual({ $group_0: 'acme', $group_2: 'core' });
  });

  it('skips types without an index', () => {
    expect(groupIndexProperties({ company: 'acme', project: 'p1' }, m)).toEqual({ $group_0: 'acme' });
  });

  it('ignores arrays, null and non-objects', () => {
    for (const groups of [['acme'], null, undefined, 'company', 5, true]) {
      expect(groupIndexProperties(groups, m)).toEqual({});
    }
  });

  it('writes numeric keys as text and skips null or object keys', () => {
    expect(groupIndexProperties({ company: 42, team: null }, m)).toEqual({ $group_0: '42' });
    expect(groupIndexProperties({ company: { id: 1 }, team: true }, m)).toEqual({ $group_2: 'true' });
  });

  it('keeps an empty-string key as sent', () => {
    expect(groupIndexProperties({ company: '' }, m)).toEqual({ $group_0: '' });
  });

  it('groupTypesOf lists the types to register, object only', () => {
    expect(groupTypesOf({ company: 'acme', team: 'core' })).toEqual(['company', 'team']);
    expect(groupTypesOf(['company'])).toEqual([]);
    expect(groupTypesOf(null)).toEqual([]);
    expect(groupTypesOf('company')).toEqual([]);
  });
});

describe('applyGroupSet', () => {
  it('overwrites differing values and adds new ones', () => {
    expect(applyGroupSet({ name: 'Acme', seats: 5 }, { seats: 10, plan: 'pro' })).toEqual({
      properties: { name: 'Acme', seats: 10, plan: 'pro' },
      changed: true,
    });
  });

  it('reports no change for equal values, compared structurally', () => {
    const current = { name: 'Acme', address: { city: 'Oslo', zip: '0150' }, none: null };
    expect(applyGroupSet(current, { name: 'Acme', address: { zip: '0150', city: 'Oslo' }, none: null })).toEqual({
      properties: current,
      changed: false,
    });
  });

  it('treats 1 and "1" as different', () => {
    expect(applyGroupSet({ seats: 1 }, { seats: '1' })).toEqual({ properties: { seats: '1' }, changed: true });
  });

  it('never removes keys, and an empty set changes nothing', () => {
    expect(applyGroupSet({ a: 1 }, {})).toEqual({ properties: { a: 1 }, changed: false });
  });

  it('never mutates its inputs', () => {
    const current = Object.freeze({ a: 1 });
    const set = Object.freeze({ a: 2 });
    const r = applyGroupSet(current, set);
    expect(r.properties).toEqual({ a: 2 });
    expect(current).toEqual({ a: 1 });
    expect(r.properties).not.toBe(current);
  });
});

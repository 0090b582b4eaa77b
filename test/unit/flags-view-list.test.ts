import { describe, expect, it } from 'vitest';
import type { FeatureFlagRecord } from '../../src/flags/feature-flag.js';
import {
  flagStatus,
  flagType,
  isFullyRolledOut,
  isSimpleFlag,
  isStale,
  normalizedFilters,
  simpleRolloutPercentage,
} from '../../src/flags/flag-view.js';
import { filterFlags, orderNewestFirst } from '../../src/flags/list-filters.js';
import { flagRecordWith } from '../fixtures/flag-record.js';

const NOW = new Date('2024-06-01T00:00:00Z');
const OLD = '2024-04-01T00:00:00.000000Z'; // 61 days before NOW
const RECENT = '2024-05-20T00:00:00.000000Z';

function makeFlag(over: Partial<FeatureFlagRecord> = {}): FeatureFlagRecord {
  return flagRecordWith({ created_by: 1, created_at: RECENT, updated_at: RECENT, last_modified_by: 1, ...over });
}

const variants = (...ps: number[]) => ({ variants: ps.map((p, i) => ({ key: `v${i}`, rollout_percentage: p })) });

describe('normalizedFilters', () => {
  it('returns filters with groups as stored', () => {
    const filters = { groups: [{ rollout_percentage: 65 }], payloads: { true: '1' } };
    expect(normalizedFilters(makeFlag({ filters }))).toBe(filters);
  });

  it('turns empty and legacy filters into one group', () => {
    expect(normalizedFilters(makeFlag())).toEqual({ groups: [{ properties: [], rollout_percentage: null }] });
    const properties = [{ key: 'beta-property', value: 'beta-value' }];
    expect(normalizedFilters(makeFlag({ filters: { properties } }))).toEqual({
      groups: [{ properties, rollout_percentage: null }],
    });
  });
});

describe('is_simple_flag and rollout_percentage', () => {
  it('one condition without properties and no aggregation', () => {
    const simple = makeFlag({ filters: { groups: [{ rollout_percentage: 65 }] } });
    expect(isSimpleFlag(simple)).toBe(true);
    expect(simpleRolloutPercentage(simple)).toBe(65);
    expect(isSimpleFlag(makeFlag())).toBe(true);
    expect(simpleRolloutPercentage(makeFlag())).toBeNull();
    expect(simpleRolloutPercentage(makeFlag({ filters: { groups: [{ properties: [] }] } }))).toBeNull();
  });

  it('not simple: aggregation, properties, several conditions', () => {
    const cases = [
      { groups: [{ rollout_percentage: 65 }], aggregation_group_type_index: 0 },
      { groups: [{ properties: [{ key: 'email', type: 'person', value: 'x' }], rollout_percentage: 65 }] },
      { groups: [{ rollout_percentage: 1 }, { rollout_percentage: 2 }] },
      { groups: [] },
    ];
    for (const filters of cases) {
      const flag = makeFlag({ filters });
      expect(isSimpleFlag(flag)).toBe(false);
      expect(simpleRolloutPercentage(flag)).toBeNull();
    }
    expect(isSimpleFlag(makeFlag({ filters: { groups: [{}], aggregation_group_type_index: null } }))).toBe(true);
  });
});

describe('flagType', () => {
  it('multivariant with non-empty variants, else boolean', () => {
    expect(flagType(makeFlag({ filters: { groups: [], multivariate: variants(100) } }))).toBe('multivariant');
    expect(flagType(makeFlag({ filters: { groups: [], multivariate: { variants: [] } } }))).toBe('boolean');
    expect(flagType(makeFlag({ filters: { groups: [], multivariate: null } }))).toBe('boolean');
    expect(flagType(makeFlag())).toBe('boolean');
  });
});

describe('stale status', () => {
  const full = { groups: [{ properties: [], rollout_percentage: 100 }] };

  it('fully rolled out', () => {
    expect(isFullyRolledOut(makeFlag())).toBe(true);
    expect(isFullyRolledOut(makeFlag({ filters: full }))).toBe(true);
    expect(isFullyRolledOut(makeFlag({ filters: { groups: [{ rollout_percentage: 100 }] } }))).toBe(true);
    expect(isFullyRolledOut(makeFlag({ filters: { groups: [{ properties: [], rollout_percentage: 99 }] } }))).toBe(false);
    const withProps = { groups: [{ properties: [{ key: 'a', type: 'person', value: 1 }], rollout_percentage: 100 }] };
    expect(isFullyRolledOut(makeFlag({ filters: withProps }))).toBe(false);
    expect(isFullyRolledOut(makeFlag({ filters: { ...full, multivariate: variants(50, 50) } }))).toBe(false);
    expect(isFullyRolledOut(makeFlag({ filters: { ...full, multivariate: variants(0, 100) } }))).toBe(true);
    const override = { groups: [{ properties: [], rollout_percentage: 100, variant: 'v1' }], multivariate: variants(50, 50) };
    expect(isFullyRolledOut(makeFlag({ filters: override }))).toBe(true);
    expect(isFullyRolledOut(makeFlag({ filters: { groups: [] } }))).toBe(false);
  });

  it('isStale and flagStatus', () => {
    // never called: old and fully rolled out
    expect(isStale(makeFlag({ created_at: OLD, filters: full }), NOW)).toBe(true);
    expect(isStale(makeFlag({ created_at: RECENT, filters: full }), NOW)).toBe(false);
    expect(isStale(makeFlag({ created_at: OLD, filters: { groups: [{ rollout_percentage: 50 }] } }), NOW)).toBe(false);
    // called: by the last call only
    expect(isStale(makeFlag({ created_at: RECENT, last_called_at: OLD, filters: { groups: [] } }), NOW)).toBe(true);
    expect(isStale(makeFlag({ created_at: OLD, last_called_at: RECENT, filters: full }), NOW)).toBe(false);
    // inactive flags are never stale
    expect(isStale(makeFlag({ active: false, created_at: OLD, filters: full }), NOW)).toBe(false);

    expect(flagStatus(makeFlag({ created_at: OLD }), NOW)).toBe('STALE');
    expect(flagStatus(makeFlag(), NOW)).toBe('ACTIVE');
    expect(flagStatus(makeFlag({ deleted: true, created_at: OLD }), NOW)).toBe('DELETED');
  });
});

describe('filterFlags', () => {
  const flags = [
    makeFlag({ id: 1, key: 'alpha', name: 'First Feature', tags: ['web'], created_by: 1 }),
    makeFlag({ id: 2, key: 'beta', active: false, created_by: 2, evaluation_runtime: 'server', evaluation_tags: ['x'] }),
    makeFlag({ id: 3, key: 'gamma', filters: { groups: [], multivariate: variants(100) }, tags: ['app', 'web'] }),
    makeFlag({ id: 4, key: 'stale', created_at: OLD, is_remote_configuration: true, created_by: null }),
    makeFlag({ id: 5, key: 'gone', deleted: true }),
  ];
  const ids = (q: string) => filterFlags(flags, new URLSearchParams(q), NOW).map((f) => f.id);

  it('drops deleted flags', () => {
    expect(ids('')).toEqual([1, 2, 3, 4]);
  });

  it('active', () => {
    expect(ids('active=true')).toEqual([1, 3, 4]);
    expect(ids('active=false')).toEqual([2]);
    expect(ids('active=yes')).toEqual([2]);
    expect(ids('active=STALE')).toEqual([4]);
    expect(ids('active=false&active=true')).toEqual([1, 3, 4]);
  });

  it('created_by_id', () => {
    expect(ids('created_by_id=2')).toEqual([2]);
    expect(ids('created_by_id=1,2')).toEqual([1, 2, 3]);
    expect(ids('created_by_id=[2]')).toEqual([2]);
    expect(ids('created_by_id=abc')).toEqual([]);
  });

  it('search on key or name', () => {
    expect(ids('search=ALP')).toEqual([1]);
    expect(ids('search=feature')).toEqual([1]);
    expect(ids('search=a')).toEqual([1, 2, 3, 4]);
  });

  it('type', () => {
    expect(ids('type=boolean')).toEqual([1, 2, 4]);
    expect(ids('type=multivariant')).toEqual([3]);
    expect(ids('type=experiment')).toEqual([]);
    expect(ids('type=remote_config')).toEqual([4]);
    expect(ids('type=other')).toEqual([1, 2, 3, 4]);
  });

  it('evaluation_runtime, tags, excluded_properties, has_evaluation_tags', () => {
    expect(ids('evaluation_runtime=server')).toEqual([2]);
    expect(ids('evaluation_runtime=all')).toEqual([1, 3, 4]);
    expect(ids(`tags=${encodeURIComponent('["app"]')}`)).toEqual([3]);
    expect(ids(`tags=${encodeURIComponent('["web","nope"]')}`)).toEqual([1, 3]);
    expect(ids('tags=[oops')).toEqual([1, 2, 3, 4]);
    expect(ids('tags=[]')).toEqual([1, 2, 3, 4]);
    expect(ids(`excluded_properties=${encodeURIComponent('["alpha","beta"]')}`)).toEqual([3, 4]);
    expect(ids('has_evaluation_tags=true')).toEqual([2]);
    expect(ids('has_evaluation_tags=false')).toEqual([1, 3, 4]);
  });

  it('combines filters', () => {
    expect(ids('active=true&search=a&type=boolean')).toEqual([1, 4]);
  });
});

describe('orderNewestFirst', () => {
  it('orders by created_at then id, descending, without mutating', () => {
    const input = [makeFlag({ id: 1, created_at: OLD }), makeFlag({ id: 2, created_at: RECENT }), makeFlag({ id: 3, created_at: RECENT })];
    expect(orderNewestFirst(input).map((f) => f.id)).toEqual([3, 2, 1]);
    expect(input.map((f) => f.id)).toEqual([1, 2, 3]);
  });
});

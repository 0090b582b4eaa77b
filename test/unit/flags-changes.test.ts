import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { flagChanges } from '../../src/flags/activity-changes.js';
import type { FeatureFlagRecord } from '../../src/flags/feature-flag.js';
import { findVersionConflict } from '../../src/flags/version-conflict.js';
import { flagRecordWith } from '../fixtures/flag-record.js';

function makeFlag(over: Partial<FeatureFlagRecord> = {}): FeatureFlagRecord {
  return flagRecordWith({
    key: 'a-feature-flag-that-is-updated',
    name: 'original name',
    created_by: 1,
    created_at: '2021-08-25T22:09:14.252000Z',
    updated_at: '2021-08-25T22:09:14.252000Z',
    last_modified_by: 1,
    ...over,
  });
}

const emailFilters = {
  groups: [
    {
      rollout_percentage: 65,
      properties: [{ key: 'email', type: 'person', value: '@posthog.com', operator: 'icontains' }],
    },
  ],
};

describe('flagChanges', () => {
  it("matches vector 19's changes", () => {
    interface Vector {
      expected: { body_fragment: { results: { detail: { changes: unknown } }[] } };
    }
    const vectors = JSON.parse(readFileSync(new URL('../fixtures/management-vectors.json', import.meta.url), 'utf8')) as Vector[];
    const expected = vectors[19]?.expected.body_fragment.results[0]?.detail.changes;
    const before = makeFlag();
    const after = makeFlag({
      name: 'Updated name',
      filters: emailFilters,
      version: 2,
      updated_at: '2021-08-25T22:19:14.252000Z',
      last_modified_by: 2,
    });
    expect(flagChanges(before, after)).toEqual(expected);
  });

  it('lists changed fields in model order with created/deleted actions', () => {
    const before = makeFlag({ filters: emailFilters, tags: ['a'], usage_dashboard: 3 });
    const after = makeFlag({
      key: 'renamed',
      filters: { ...emailFilters, payloads: {} },
      active: false,
      rollback_conditions: [{ threshold: 1 }],
      usage_dashboard: null,
      tags: ['a', 'b'],
      version: 2,
    });
    expect(flagChanges(before, after)).toEqual([
      { type: 'FeatureFlag', action: 'changed', field: 'key', before: 'a-feature-flag-that-is-updated', after: 'renamed' },
      { type: 'FeatureFlag', action: 'changed', field: 'filters', before: emailFilters, after: after.filters },
      { type: 'FeatureFlag', action: 'changed', field: 'active', before: true, after: false },
      { type: 'FeatureFlag', action: 'created', field: 'rollback_conditions', before: null, after: [{ threshold: 1 }] },
      { type: 'FeatureFlag', action: 'deleted', field: 'usage_dashboard', before: 3, after: null },
      { type: 'FeatureFlag', action: 'changed', field: 'tags', before: ['a'], after: ['a', 'b'] },
      { type: 'FeatureFlag', action: 'changed', field: 'version', before: 1, after: 2 },
    ]);
  });

  it('uses deep equality and ignores unlogged fields', () => {
    const before = makeFlag({ filters: { groups: [{ a: 1, b: 2 }] } });
    const after = makeFlag({
      filters: { groups: [{ b: 2, a: 1 }] },
      updated_at: 'later',
      last_called_at: 'x',
      created_at: 'y',
    });
    expect(flagChanges(before, after)).toEqual([]);
  });

  it('logs bucketing_identifier after evaluation_runtime; a flag stored before the field was kept had distinct_id', () => {
    const before = makeFlag({ evaluation_runtime: 'all' });
    const after = makeFlag({ evaluation_runtime: 'server', bucketing_identifier: 'device_id', version: 2 });
    expect(flagChanges(before, after).map((c) => c.field)).toEqual(['evaluation_runtime', 'bucketing_identifier', 'version']);
    const { bucketing_identifier: _dropped, ...older } = makeFlag();
    expect(flagChanges(older, after)).toContainEqual({
      type: 'FeatureFlag',
      action: 'changed',
      field: 'bucketing_identifier',
      before: 'distinct_id',
      after: 'device_id',
    });
    expect(flagChanges(older, makeFlag())).toEqual([]);
    expect(flagChanges(makeFlag(), makeFlag({ bucketing_identifier: null }))).toContainEqual({
      type: 'FeatureFlag',
      action: 'deleted',
      field: 'bucketing_identifier',
      before: 'distinct_id',
      after: null,
    });
  });

  it('without a before value every set field is created', () => {
    const changes = flagChanges(null, makeFlag());
    expect(changes.every((c) => c.action === 'created' && c.before === null)).toBe(true);
    expect(changes.map((c) => c.field)).toContain('key');
    expect(changes.map((c) => c.field)).not.toContain('usage_dashboard'); // null -> null
  });
});

describe('findVersionConflict', () => {
  const current = makeFlag({ name: 'Another Updated name', version: 2 });
  const original = { name: 'original name', key: current.key, version: 1 };

  it('no check when the version matches or is absent', () => {
    expect(findVersionConflict({ name: 'Mine', version: 2, original_flag: original }, current)).toBe(false);
    expect(findVersionConflict({ name: 'Mine', original_flag: original }, current)).toBe(false);
  });

  it('a stale version without a snapshot is accepted', () => {
    expect(findVersionConflict({ name: 'Mine', version: 1 }, current)).toBe(false);
    expect(findVersionConflict({ name: 'Mine', version: 1, original_flag: {} }, current)).toBe(false);
    expect(findVersionConflict({ name: 'Mine', version: 1, original_flag: null }, current)).toBe(false);
  });

  it('conflicts when both changed the same field differently', () => {
    expect(findVersionConflict({ name: 'Mine', version: 1, original_flag: original }, current)).toBe(true);
  });

  it('no conflict for different fields, unchanged fields or the same change', () => {
    // the client changes active; someone else changed the name
    expect(findVersionConflict({ active: false, version: 1, original_flag: { ...original, active: true } }, current)).toBe(false);
    // the client sends the name it read, unchanged
    expect(findVersionConflict({ name: 'original name', version: 1, original_flag: original }, current)).toBe(false);
    // both made the same change
    expect(findVersionConflict({ name: 'Another Updated name', version: 1, original_flag: original }, current)).toBe(false);
    // fields missing from the snapshot are not compared
    expect(findVersionConflict({ name: 'Mine', version: 1, original_flag: { key: current.key } }, current)).toBe(false);
    // only writable fields count
    expect(findVersionConflict({ version: 1, original_flag: { ...original, version: 0 } }, current)).toBe(false);
  });

  it('compares bucketing_identifier, a flag stored before the field was kept having distinct_id', () => {
    const { bucketing_identifier: _dropped, ...older } = makeFlag({ version: 3 });
    const body = { bucketing_identifier: 'device_id', version: 2, original_flag: { bucketing_identifier: 'distinct_id' } };
    expect(findVersionConflict(body, older)).toBe(false);
    expect(findVersionConflict(body, makeFlag({ version: 3, bucketing_identifier: null }))).toBe(true);
  });

  it('compares filters with their normalised form', () => {
    const stored = makeFlag({ version: 3, filters: {} });
    const read = { groups: [{ properties: [], rollout_percentage: null }] };
    const body = { filters: emailFilters, version: 2, original_flag: { filters: read } };
    expect(findVersionConflict(body, stored)).toBe(false);
    const changed = makeFlag({ version: 3, filters: { groups: [{ properties: [], rollout_percentage: 10 }] } });
    expect(findVersionConflict(body, changed)).toBe(true);
  });

  it('uses the validated write when given', () => {
    const stored = makeFlag({ version: 3, tags: ['b'] });
    const body = { tags: ['A'], version: 2, original_flag: { tags: ['a'] } };
    // raw ['A'] differs from the snapshot, validated ['a'] does not
    expect(findVersionConflict(body, stored)).toBe(true);
    expect(findVersionConflict(body, stored, { tags: ['a'] })).toBe(false);
    // a PATCH whose filters were ignored writes no filters
    const f = { filters: { payloads: {} }, version: 2, original_flag: { filters: { groups: [] } } };
    expect(findVersionConflict(f, makeFlag({ version: 3, filters: emailFilters }), {})).toBe(false);
  });
});

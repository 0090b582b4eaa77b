import { describe, expect, it } from 'vitest';
import { parseBlastRadiusBody, type BlastRadiusRequest } from '../../src/blast-radius/blast-radius-request.js';
import type { PostHogErrorBody } from '../../src/errors.js';
import { validationErrorOf } from '../helpers/errors.js';

const INVALID_GROUP_TYPE_INDEX = 'Invalid group type index for feature flag condition.';

function errorOf(body: Record<string, unknown>): PostHogErrorBody {
  return validationErrorOf(() => parseBlastRadiusBody(body));
}

function detailOf(body: Record<string, unknown>): string {
  const e = errorOf(body);
  expect(e).toMatchObject({ type: 'validation_error', code: 'invalid_input' });
  return e.detail;
}

const personProp = { key: 'email', type: 'person', value: 'a@b.c', operator: 'exact' };
const cohortProp = { key: 'id', type: 'cohort', value: 3 };
const groupProp = (index: number, extra: Record<string, unknown> = {}) => ({
  key: 'name',
  type: 'group',
  value: 'acme',
  operator: 'exact',
  group_type_index: index,
  ...extra,
});

describe('parseBlastRadiusBody', () => {
  it('returns the condition’s properties in person mode', () => {
    expect(parseBlastRadiusBody({ condition: { properties: [personProp, cohortProp] } })).toEqual<BlastRadiusRequest>({
      groupTypeIndex: null,
      properties: [personProp, cohortProp],
    });
  });

  it('requires a condition', () => {
    expect(detailOf({})).toBe('Missing condition for which to get blast radius');
    expect(detailOf({ group_type_index: 0 })).toBe('Missing condition for which to get blast radius');
  });

  it('takes an explicitly undefined condition as present (only the key counts)', () => {
    expect(parseBlastRadiusBody({ condition: undefined })).toEqual({ groupTypeIndex: null, properties: [] });
  });

  it('treats condition: null as a condition without properties', () => {
    expect(parseBlastRadiusBody({ condition: null })).toEqual({ groupTypeIndex: null, properties: [] });
  });

  it('treats missing or null properties as none', () => {
    expect(parseBlastRadiusBody({ condition: {} })).toEqual({ groupTypeIndex: null, properties: [] });
    expect(parseBlastRadiusBody({ condition: { properties: null } })).toEqual({ groupTypeIndex: null, properties: [] });
  });

  it('rejects a condition that is not an object', () => {
    for (const condition of ['x', 1, true, [], [{ properties: [] }]]) {
      expect(detailOf({ condition })).toBe('condition must be an object');
    }
  });

  it('rejects properties that are not a list', () => {
    for (const properties of ['x', 1, false, {}, { 0: personProp }]) {
      expect(detailOf({ condition: { properties } })).toBe('condition.properties must be a list');
    }
  });

  it('ignores rollout_percentage and other keys of the condition', () => {
    expect(parseBlastRadiusBody({ condition: { properties: [personProp], rollout_percentage: 'nonsense', variant: 7 } })).toEqual({
      groupTypeIndex: null,
      properties: [personProp],
    });
    expect(parseBlastRadiusBody({ condition: { rollout_percentage: 150 } })).toEqual({
      groupTypeIndex: null,
      properties: [],
    });
  });

  it('does not check the properties themselves in person mode', () => {
    expect(parseBlastRadiusBody({ condition: { properties: ['x', null, 3] } }).properties).toEqual(['x', null, 3]);
  });

  it('treats a null group_type_index as person mode', () => {
    expect(parseBlastRadiusBody({ condition: { properties: [personProp] }, group_type_index: null })).toEqual({
      groupTypeIndex: null,
      properties: [personProp],
    });
  });

  it('accepts a group mode whose properties all carry that group_type_index', () => {
    const properties = [groupProp(1), groupProp(1, { key: 'plan' })];
    expect(parseBlastRadiusBody({ condition: { properties }, group_type_index: 1 })).toEqual({
      groupTypeIndex: 1,
      properties,
    });
    const zero = parseBlastRadiusBody({ condition: { properties: [groupProp(0)] }, group_type_index: 0 });
    expect(zero.groupTypeIndex).toBe(0);
  });

  it('accepts a group mode without properties', () => {
    for (const condition of [{}, null, { properties: [] }]) {
      expect(parseBlastRadiusBody({ condition, group_type_index: 2 })).toEqual({ groupTypeIndex: 2, properties: [] });
    }
  });

  it('accepts the index as a string of digits', () => {
    expect(parseBlastRadiusBody({ condition: { properties: [groupProp(3)] }, group_type_index: '3' })).toEqual({
      groupTypeIndex: 3,
      properties: [groupProp(3)],
    });
    expect(parseBlastRadiusBody({ condition: {}, group_type_index: '0' }).groupTypeIndex).toBe(0);
  });

  it('rejects a group_type_index that is not a non-negative integer', () => {
    for (const group_type_index of [-1, 1.5, 'x', '', ' 1', '-1', '1.0', '1234', true, false, [], {}, Number.NaN]) {
      expect(detailOf({ condition: {}, group_type_index })).toBe(INVALID_GROUP_TYPE_INDEX);
    }
  });

  it('rejects a group mode with a property of another kind or another index', () => {
    const bad: unknown[] = [
      personProp,
      cohortProp,
      groupProp(0),
      groupProp(2),
      { ...groupProp(1), group_type_index: '1' },
      { key: 'name', type: 'group', value: 'acme' },
      'name',
      null,
    ];
    for (const p of bad) {
      expect(detailOf({ condition: { properties: [groupProp(1), p] }, group_type_index: 1 })).toBe(INVALID_GROUP_TYPE_INDEX);
    }
  });

  it('checks the condition before the group_type_index', () => {
    expect(detailOf({ condition: 'x', group_type_index: -1 })).toBe('condition must be an object');
    expect(detailOf({ condition: { properties: 1 }, group_type_index: 'x' })).toBe('condition.properties must be a list');
  });
});

/**
 * The evaluation engine's rules beyond the SDK vectors (docs/compatibility.md#flag-evaluation):
 * reasons and condition_index, group and mixed flags, variants and payloads, holdouts, early
 * access, continuity and device identifiers, flag dependencies (order, cycles, missing, inactive),
 * cohorts (static, missing, cyclic, negated), and snapshot bookkeeping.
 */

import { describe, expect, it } from 'vitest';
import type { FeatureFlagRecord, FlagFilters } from '../../src/flags/feature-flag.js';
import { compileSnapshot } from '../../src/flags/engine/compile-snapshot.js';
import { evaluateFlags, flagValue } from '../../src/flags/engine/evaluate-flags.js';
import type { EvaluationContext, FlagResult } from '../../src/flags/engine/evaluate-types.js';
import { sha1Fraction } from '../../src/flags/engine/sha1.js';
import type { CohortDefinition } from '../../src/flags/engine/snapshot-types.js';
import { flagRecordWith } from '../fixtures/flag-record.js';

function flagRecord(id: number, key: string, filters: FlagFilters, extra: Partial<FeatureFlagRecord> = {}): FeatureFlagRecord {
  return flagRecordWith({ id, key, filters, ...extra });
}

const MAPPING = { '0': 'company', '1': 'project' };

function evaluate(
  flags: FeatureFlagRecord[],
  ctx: Partial<EvaluationContext> = {},
  cohorts: CohortDefinition[] = [],
): ReadonlyMap<string, FlagResult> {
  const snapshot = compileSnapshot({ flags, cohorts, groupTypeMapping: MAPPING, version: 1 });
  return evaluateFlags(snapshot, {
    distinctId: 'user-1',
    personProperties: {},
    groups: {},
    groupProperties: {},
    now: new Date('2024-06-01T00:00:00Z'),
    ...ctx,
  });
}

function one(flag: FeatureFlagRecord, ctx: Partial<EvaluationContext> = {}, cohorts: CohortDefinition[] = []): FlagResult {
  const r = evaluate([flag], ctx, cohorts).get(flag.key);
  if (!r) throw new Error(`no result for ${flag.key}`);
  return r;
}

const exact = (key: string, value: unknown, type = 'person'): Record<string, unknown> => ({ key, value, operator: 'exact', type });
const dependsOn = (id: number, value: unknown, operator = 'flag_evaluates_to') => ({ key: String(id), type: 'flag', operator, value });
const inCohort = (id: number, operator?: string) => ({ key: 'id', type: 'cohort', value: id, ...(operator ? { operator } : {}) });

/** First identifier `prefix-N` whose hash of `"<key>.<id><salt>"` satisfies `test`. */
function idWhere(key: string, salt: string, test: (h: number) => boolean, prefix = 'user'): string {
  for (let i = 0; i < 10_000; i++) {
    const id = `${prefix}-${i}`;
    if (test(sha1Fraction(`${key}.${id}${salt}`))) return id;
  }
  throw new Error('no identifier found');
}

/** First identifier `prefix-N` whose holdout hash satisfies `test`. */
function holdoutIdWhere(prefix: string, test: (h: number) => boolean): string {
  for (let i = 0; i < 10_000; i++) if (test(sha1Fraction(`holdout-${prefix}-${i}`))) return `${prefix}-${i}`;
  throw new Error('no identifier found');
}

describe('reasons and condition_index (docs/compatibility.md#reasons)', () => {
  it('reports the matched condition with its 1-based description', () => {
    const flag = flagRecord(1, 'f', { groups: [{ properties: [exact('email', 'a@b.c')], rollout_percentage: 100 }, { properties: [] }] });
    expect(one(flag).reason).toEqual({ code: 'condition_match', condition_index: 1, description: 'Matched condition set 2' });
  });

  it('on a tie reports the later condition', () => {
    const flag = flagRecord(1, 'f', { groups: [{ properties: [exact('a', 1)] }, { properties: [exact('b', 2)] }] });
    expect(one(flag)).toEqual({
      enabled: false,
      variant: null,
      reason: { code: 'no_condition_match', condition_index: 1, description: 'No matching condition set' },
      payload: undefined,
    });
  });

  it('prefers out_of_rollout_bound over a later property miss, and a later rollout miss over an earlier one', () => {
    const f1 = flagRecord(1, 'f1', { groups: [{ properties: [], rollout_percentage: 0 }, { properties: [exact('b', 2)] }] });
    expect(one(f1).reason).toEqual({ code: 'out_of_rollout_bound', condition_index: 0, description: 'Out of rollout bound' });
    const f2 = flagRecord(2, 'f2', { groups: [{ properties: [exact('b', 2)] }, { properties: [], rollout_percentage: 0 }] });
    expect(one(f2).reason.condition_index).toBe(1);
    const f3 = flagRecord(3, 'f3', { groups: [{ rollout_percentage: 0 }, { rollout_percentage: 0 }] });
    expect(one(f3).reason).toMatchObject({ code: 'out_of_rollout_bound', condition_index: 1 });
  });

  it('answers no_group_type with a null index when there are no conditions', () => {
    expect(one(flagRecord(1, 'f', { groups: [] })).reason).toEqual({
      code: 'no_group_type',
      condition_index: null,
      description: 'No group type',
    });
  });

  it('reads legacy filters without groups as one condition', () => {
    expect(one(flagRecord(1, 'f', {})).reason).toMatchObject({ code: 'condition_match', condition_index: 0 });
    expect(one(flagRecord(2, 'g', { properties: [exact('plan', 'pro')] }), { personProperties: { plan: 'pro' } }).enabled).toBe(true);
  });

  it('a rollout of 100 or absent needs no hash; 0 excludes (but an empty identifier hashes to 0)', () => {
    expect(one(flagRecord(1, 'f', { groups: [{ rollout_percentage: null }] })).enabled).toBe(true);
    expect(one(flagRecord(1, 'f', { groups: [{ rollout_percentage: 0 }] })).enabled).toBe(false);
    expect(one(flagRecord(1, 'f', { groups: [{ rollout_percentage: 0 }] }), { distinctId: '' }).enabled).toBe(true);
  });

  it('includes the user iff hash <= rollout / 100', () => {
    const inId = idWhere('r', '', (h) => h <= 0.3);
    const outId = idWhere('r', '', (h) => h > 0.3);
    const flag = flagRecord(1, 'r', { groups: [{ rollout_percentage: 30 }] });
    expect(one(flag, { distinctId: inId }).enabled).toBe(true);
    expect(one(flag, { distinctId: outId }).reason.code).toBe('out_of_rollout_bound');
  });
});

describe('early_exit (docs/compatibility.md#evaluation-order; PostHog#57321)', () => {
  const outId = idWhere('e', '', (h) => h > 0.3);
  const inId = idWhere('e', '', (h) => h <= 0.3);
  const groups = [
    { properties: [exact('plan', 'pro')], rollout_percentage: 30 },
    { properties: [], rollout_percentage: 100 },
  ];

  it('ends at a condition whose properties match but whose rollout excludes the user', () => {
    const flag = flagRecord(1, 'e', { groups, early_exit: true, payloads: { true: '1' } });
    expect(one(flag, { distinctId: outId, personProperties: { plan: 'pro' } })).toEqual({
      enabled: false,
      variant: null,
      reason: { code: 'out_of_rollout_bound', condition_index: 0, description: 'Out of rollout bound' },
      payload: undefined,
    });
    expect(one(flag, { distinctId: inId, personProperties: { plan: 'pro' } }).reason).toMatchObject({
      code: 'condition_match',
      condition_index: 0,
    });
  });

  it('goes on past a property miss, and without the flag (or with false) past the rollout too', () => {
    const flag = flagRecord(1, 'e', { groups, early_exit: true });
    expect(one(flag, { distinctId: outId, personProperties: { plan: 'free' } }).reason).toMatchObject({
      code: 'condition_match',
      condition_index: 1,
    });
    for (const early_exit of [false, undefined, 'true']) {
      const f = flagRecord(2, 'e', { groups, ...(early_exit === undefined ? {} : { early_exit }) });
      expect(one(f, { distinctId: outId, personProperties: { plan: 'pro' } }).reason).toMatchObject({
        code: 'condition_match',
        condition_index: 1,
      });
    }
  });

  it('applies to group conditions, not to skipped ones', () => {
    const key = idWhere('g', '', (h) => h > 0.3, 'acme');
    const flag = flagRecord(1, 'g', {
      aggregation_group_type_index: 0,
      early_exit: true,
      groups: [
        { properties: [], rollout_percentage: 30 },
        { properties: [], rollout_percentage: 100 },
      ],
    });
    expect(one(flag, { groups: { company: key } }).reason).toMatchObject({ code: 'out_of_rollout_bound', condition_index: 0 });
    expect(one(flag).reason.code).toBe('no_group_type');
  });
});

describe('group flags: hashed by group key, skipped without the group (docs/compatibility.md#evaluation-order)', () => {
  const groupFlag = (rollout: number, extra: FlagFilters = {}) =>
    flagRecord(1, 'g', { aggregation_group_type_index: 0, groups: [{ properties: [], rollout_percentage: rollout }], ...extra });

  it('answers no_group_type when the group is not given (or empty)', () => {
    expect(one(groupFlag(100)).reason).toEqual({ code: 'no_group_type', condition_index: 0, description: 'No group type' });
    expect(one(groupFlag(100), { groups: { company: '' } }).reason.code).toBe('no_group_type');
    expect(one(groupFlag(100), { groups: { project: 'p' } }).reason.code).toBe('no_group_type');
  });

  it('hashes the group key, not the distinct id', () => {
    const inKey = idWhere('g', '', (h) => h <= 0.5, 'acme');
    const outKey = idWhere('g', '', (h) => h > 0.5, 'acme');
    for (const distinctId of ['a', 'b', 'c']) {
      expect(one(groupFlag(50), { distinctId, groups: { company: inKey } }).enabled).toBe(true);
      expect(one(groupFlag(50), { distinctId, groups: { company: outKey } }).enabled).toBe(false);
    }
  });

  it('picks the variant from the group key', () => {
    const variants = {
      variants: [
        { key: 'a', rollout_percentage: 50 },
        { key: 'b', rollout_percentage: 50 },
      ],
    };
    const keyA = idWhere('g', 'variant', (h) => h < 0.5, 'org');
    const keyB = idWhere('g', 'variant', (h) => h >= 0.5, 'org');
    expect(one(groupFlag(100, { multivariate: variants }), { groups: { company: keyA } }).variant).toBe('a');
    expect(one(groupFlag(100, { multivariate: variants }), { groups: { company: keyB } }).variant).toBe('b');
  });

  it('reads group filters from that group type’s properties', () => {
    const flag = flagRecord(1, 'g', {
      aggregation_group_type_index: 0,
      groups: [{ properties: [{ ...exact('plan', 'pro', 'group'), group_type_index: 0 }] }],
    });
    const groups = { company: 'acme' };
    expect(one(flag, { groups, groupProperties: { company: { plan: 'pro' } } }).enabled).toBe(true);
    expect(one(flag, { groups, groupProperties: { company: { plan: 'free' } }, personProperties: { plan: 'pro' } }).enabled).toBe(false);
  });

  it('an index missing from the mapping can never get its group', () => {
    const flag = flagRecord(1, 'g', { aggregation_group_type_index: 5, groups: [{}] });
    expect(one(flag, { groups: { company: 'acme' } }).reason.code).toBe('no_group_type');
  });

  it('mixed targeting: a skipped group condition enriches no_condition_match', () => {
    const flag = flagRecord(1, 'm', {
      groups: [
        { properties: [exact('email', 'x@y.z')], aggregation_group_type_index: null },
        { properties: [], aggregation_group_type_index: 0 },
      ],
    });
    expect(one(flag).reason).toEqual({
      code: 'no_condition_match',
      condition_index: 0,
      description: 'No matching condition set (group conditions were not evaluated because no group type was provided)',
    });
    expect(one(flag, { groups: { company: 'acme' } }).reason).toMatchObject({ code: 'condition_match', condition_index: 1 });
  });

  it('a condition with explicit null aggregation is a person condition inside a group flag', () => {
    const flag = flagRecord(1, 'm', { aggregation_group_type_index: 0, groups: [{ aggregation_group_type_index: null }] });
    expect(one(flag).enabled).toBe(true);
  });
});

describe('variants and payloads (docs/compatibility.md#hashing-and-bucketing)', () => {
  const variants = {
    variants: [
      { key: 'first', rollout_percentage: 50 },
      { key: 'second', rollout_percentage: 20 },
      { key: 'third', rollout_percentage: 30 },
    ],
  };

  it('walks cumulative ranges with lo <= h < hi', () => {
    const flag = flagRecord(1, 'mv', { groups: [{}], multivariate: variants });
    for (let i = 0; i < 50; i++) {
      const id = `id-${i}`;
      const h = sha1Fraction(`mv.${id}variant`);
      const expected = h < 0.5 ? 'first' : h < 0.7 ? 'second' : 'third';
      expect(one(flag, { distinctId: id }).variant).toBe(expected);
    }
  });

  it('answers enabled with no variant past the last range', () => {
    const short = { variants: [{ key: 'only', rollout_percentage: 10 }] };
    const id = idWhere('mv', 'variant', (h) => h >= 0.1);
    const flag = flagRecord(1, 'mv', { groups: [{}], multivariate: short, payloads: { true: '"t"', only: '"o"' } });
    expect(one(flag, { distinctId: id })).toMatchObject({ enabled: true, variant: null, payload: '"t"' });
  });

  it('uses a valid override and ignores an unknown one', () => {
    const id = idWhere('mv', 'variant', (h) => h < 0.5);
    const valid = flagRecord(1, 'mv', { groups: [{ variant: 'third' }], multivariate: variants });
    expect(one(valid, { distinctId: id }).variant).toBe('third');
    const unknown = flagRecord(1, 'mv', { groups: [{ variant: 'nope' }], multivariate: variants });
    expect(one(unknown, { distinctId: id }).variant).toBe('first');
  });

  it('returns the stored payload of the variant or of "true"; parsed payloads come back as JSON text', () => {
    const id = idWhere('mv', 'variant', (h) => h < 0.5);
    const mv = flagRecord(1, 'mv', { groups: [{}], multivariate: variants, payloads: { first: '{"a":1}', true: 'x' } });
    expect(one(mv, { distinctId: id }).payload).toBe('{"a":1}');
    const bool = flagRecord(2, 'b', { groups: [{}], payloads: { true: { log: 'all' } } });
    expect(one(bool).payload).toBe('{"log":"all"}');
    const off = flagRecord(3, 'o', { groups: [{ rollout_percentage: 0 }], payloads: { true: '1' } });
    expect(one(off).payload).toBeUndefined();
  });
});

describe('holdouts (docs/compatibility.md#evaluation-order)', () => {
  const holdoutFlag = (pct: number, aggregation: number | null = null) =>
    flagRecord(1, 'h', {
      aggregation_group_type_index: aggregation,
      groups: [{ properties: [], rollout_percentage: 100 }],
      holdout: { id: 7, exclusion_percentage: pct },
      payloads: { 'holdout-7': '"held"', true: '"on"' },
    });

  it('holds everyone out at 100 %', () => {
    expect(one(holdoutFlag(100))).toEqual({
      enabled: true,
      variant: 'holdout-7',
      reason: { code: 'holdout_condition_value', condition_index: null, description: 'Holdout condition value' },
      payload: '"held"',
    });
  });

  it('hashes "holdout-<identifier>" without the flag key', () => {
    const heldId = holdoutIdWhere('user', (h) => h <= 0.4);
    const freeId = holdoutIdWhere('user', (h) => h > 0.4);
    expect(one(holdoutFlag(40), { distinctId: heldId }).variant).toBe('holdout-7');
    expect(one(holdoutFlag(40), { distinctId: freeId })).toMatchObject({ variant: null, payload: '"on"' });
    expect(one(holdoutFlag(0), { distinctId: heldId }).reason.code).toBe('condition_match');
  });

  it('uses the flag-level group key for group flags', () => {
    const heldKey = holdoutIdWhere('org', (h) => h <= 0.3);
    const freeKey = holdoutIdWhere('org', (h) => h > 0.3);
    expect(one(holdoutFlag(30, 0), { groups: { company: heldKey } }).variant).toBe('holdout-7');
    expect(one(holdoutFlag(30, 0), { groups: { company: freeKey } }).reason.code).toBe('condition_match');
  });
});

describe('early access (docs/compatibility.md#evaluation-order)', () => {
  const enrollment = flagRecord(1, 'ea', { feature_enrollment: true, groups: [{ rollout_percentage: 0 }], payloads: { true: '"p"' } });
  const superReason = { code: 'super_condition_value', condition_index: 0, description: 'Super condition value' };

  it('feature_enrollment: the person property decides, with the "true" payload either way', () => {
    expect(one(enrollment, { personProperties: { '$feature_enrollment/ea': 'true' } })).toEqual({
      enabled: true,
      variant: null,
      reason: superReason,
      payload: '"p"',
    });
    expect(one(enrollment, { personProperties: { '$feature_enrollment/ea': true } }).enabled).toBe(true);
    expect(one(enrollment, { personProperties: { '$feature_enrollment/ea': 'false' } })).toEqual({
      enabled: false,
      variant: null,
      reason: superReason,
      payload: '"p"',
    });
    expect(one(enrollment).reason.code).toBe('out_of_rollout_bound');
  });

  it('legacy super_groups: evaluated only when one of its keys is present', () => {
    const flag = flagRecord(1, 'sg', {
      super_groups: [
        { properties: [{ key: '$feature_enrollment/sg', operator: 'exact', value: ['true'], type: 'person' }], rollout_percentage: 100 },
      ],
      groups: [{ rollout_percentage: 0 }],
    });
    expect(one(flag, { personProperties: { '$feature_enrollment/sg': 'true' } })).toMatchObject({ enabled: true, reason: superReason });
    expect(one(flag, { personProperties: { '$feature_enrollment/sg': 'false' } })).toMatchObject({ enabled: false, reason: superReason });
    expect(one(flag).reason.code).toBe('out_of_rollout_bound');
  });
});

describe('identifiers: continuity and device id (docs/compatibility.md#hashing-and-bucketing)', () => {
  const inId = idWhere('c', '', (h) => h <= 0.5);
  const outId = idWhere('c', '', (h) => h > 0.5);

  it('hashes the stored continuity hash key for the flag', () => {
    const flag = flagRecord(1, 'c', { groups: [{ rollout_percentage: 50 }] }, { ensure_experience_continuity: true });
    expect(one(flag, { distinctId: outId }).enabled).toBe(false);
    expect(one(flag, { distinctId: outId, hashKeyOverrides: { c: inId } }).enabled).toBe(true);
    expect(one(flag, { distinctId: outId, hashKeyOverrides: { other: inId } }).enabled).toBe(false);
  });

  it('falls back to the request anon id for continuity flags only', () => {
    const cont = flagRecord(1, 'c', { groups: [{ rollout_percentage: 50 }] }, { ensure_experience_continuity: true });
    const plain = flagRecord(1, 'c', { groups: [{ rollout_percentage: 50 }] });
    expect(one(cont, { distinctId: outId, anonDistinctId: inId }).enabled).toBe(true);
    expect(one(plain, { distinctId: outId, anonDistinctId: inId }).enabled).toBe(false);
    expect(one(cont, { distinctId: outId, anonDistinctId: outId, hashKeyOverrides: { c: inId } }).enabled).toBe(true);
  });

  const byDevice = { bucketing_identifier: 'device_id' } as const;

  it('device bucketing hashes the device id, else skips the person condition as out of rollout', () => {
    const flag = flagRecord(1, 'c', { groups: [{ rollout_percentage: 50 }] }, byDevice);
    expect(one(flag, { distinctId: outId, deviceId: inId }).enabled).toBe(true);
    expect(one(flag, { distinctId: inId, deviceId: outId }).enabled).toBe(false);
    expect(one(flag, { distinctId: inId }).reason).toMatchObject({ code: 'out_of_rollout_bound', condition_index: 0 });
    expect(one(flag, { distinctId: inId, deviceId: '' }).reason).toMatchObject({ code: 'out_of_rollout_bound', condition_index: 0 });
  });

  it('reads only the context device id: person properties are for the request parser to read', () => {
    const flag = flagRecord(1, 'c', { groups: [{ rollout_percentage: 100 }] }, byDevice);
    expect(one(flag, { personProperties: { $device_id: inId } }).reason.code).toBe('out_of_rollout_bound');
  });

  it('gives every distinct id sharing a device the same answer', () => {
    const flag = flagRecord(1, 'half', { groups: [{ rollout_percentage: 50 }] }, byDevice);
    for (const device of ['device-a', 'device-b', 'device-c', 'device-d']) {
      const answers = new Set<boolean>();
      for (let i = 0; i < 20; i++) answers.add(one(flag, { distinctId: `user-${i}`, deviceId: device }).enabled);
      expect(answers.size).toBe(1);
    }
    // Without device bucketing the same 20 ids get both answers.
    const plain = flagRecord(1, 'half', { groups: [{ rollout_percentage: 50 }] });
    const answers = new Set<boolean>();
    for (let i = 0; i < 20; i++) answers.add(one(plain, { distinctId: `user-${i}`, deviceId: 'device-a' }).enabled);
    expect(answers).toEqual(new Set([true, false]));
  });

  it('picks variants by the device id', () => {
    const multivariate = { variants: ['a', 'b', 'c', 'd'].map((key) => ({ key, rollout_percentage: 25 })) };
    const flag = flagRecord(1, 'mv', { groups: [{ rollout_percentage: 100 }], multivariate }, byDevice);
    const variantOf = (h: number) => ['a', 'b', 'c', 'd'][Math.floor(h * 4)];
    for (const device of ['device-a', 'device-b', 'device-c']) {
      const expected = variantOf(sha1Fraction(`mv.${device}variant`));
      for (let i = 0; i < 20; i++) expect(one(flag, { distinctId: `user-${i}`, deviceId: device }).variant).toBe(expected);
    }
  });

  it('prefers the device id to continuity hash keys and the anonymous id', () => {
    const flag = flagRecord(1, 'c', { groups: [{ rollout_percentage: 50 }] }, { ...byDevice, ensure_experience_continuity: true });
    expect(one(flag, { distinctId: inId, deviceId: outId, hashKeyOverrides: { c: inId }, anonDistinctId: inId }).enabled).toBe(false);
    expect(one(flag, { distinctId: outId, deviceId: inId, hashKeyOverrides: { c: outId }, anonDistinctId: outId }).enabled).toBe(true);
  });

  it('holds out by the device id', () => {
    const inHoldout = holdoutIdWhere('device', (h) => h <= 0.5);
    const outHoldout = holdoutIdWhere('device', (h) => h > 0.5);
    const flag = flagRecord(1, 'c', { holdout: { id: 7, exclusion_percentage: 50 }, groups: [{ rollout_percentage: 100 }] }, byDevice);
    for (let i = 0; i < 5; i++) {
      expect(one(flag, { distinctId: `user-${i}`, deviceId: inHoldout }).variant).toBe('holdout-7');
      expect(one(flag, { distinctId: `user-${i}`, deviceId: outHoldout }).variant).toBeNull();
    }
  });

  it('ignores filters.bucketing_identifier and null or blank flag-level values', () => {
    const legacy = flagRecord(1, 'c', { bucketing_identifier: 'device_id', groups: [{ rollout_percentage: 50 }] });
    expect(one(legacy, { distinctId: inId, deviceId: outId }).enabled).toBe(true);
    for (const value of [null, '', 'distinct_id'] as const) {
      const flag = flagRecord(1, 'c', { groups: [{ rollout_percentage: 50 }] }, { bucketing_identifier: value });
      expect(one(flag, { distinctId: inId, deviceId: outId }).enabled).toBe(true);
    }
  });

  it('device bucketing does not apply to group conditions', () => {
    const flag = flagRecord(1, 'c', { aggregation_group_type_index: 0, groups: [{}] }, byDevice);
    expect(one(flag, { groups: { company: 'acme' } }).enabled).toBe(true);
  });

  it('a mixed flag without a device id skips its person condition and still matches its group condition', () => {
    const flag = flagRecord(1, 'c', { groups: [{ rollout_percentage: 100 }, { aggregation_group_type_index: 0 }] }, byDevice);
    expect(one(flag, { groups: { company: 'acme' } }).reason).toMatchObject({ code: 'condition_match', condition_index: 1 });
    expect(one(flag).reason).toMatchObject({ code: 'out_of_rollout_bound', condition_index: 0 });
  });
});

describe('flag dependencies (docs/compatibility.md#cohorts-and-flag-dependencies)', () => {
  const base = (active = true, rollout = 100) => flagRecord(1, 'base', { groups: [{ rollout_percentage: rollout }] }, { active });

  it('evaluates dependencies first whatever the stored order', () => {
    const dependent = flagRecord(2, 'dep', { groups: [{ properties: [dependsOn(1, true)] }] });
    const results = evaluate([dependent, base()]);
    expect(results.get('dep')?.enabled).toBe(true);
    expect([...results.keys()]).toEqual(['dep', 'base']);
  });

  it('compares with true (any variant), false, or an exact variant', () => {
    const mv = flagRecord(1, 'mv', {
      groups: [{ variant: 'blue' }],
      multivariate: { variants: [{ key: 'blue', rollout_percentage: 100 }] },
    });
    const flags = [
      mv,
      flagRecord(2, 'any', { groups: [{ properties: [dependsOn(1, true)] }] }),
      flagRecord(3, 'blue', { groups: [{ properties: [dependsOn(1, 'blue')] }] }),
      flagRecord(4, 'Blue', { groups: [{ properties: [dependsOn(1, 'Blue')] }] }),
      flagRecord(5, 'off', { groups: [{ properties: [dependsOn(1, false)] }] }),
      flagRecord(6, 'badop', { groups: [{ properties: [dependsOn(1, true, 'exact')] }] }),
      flagRecord(7, 'number', { groups: [{ properties: [dependsOn(1, 1)] }] }),
    ];
    const r = evaluate(flags);
    expect(Object.fromEntries([...r].map(([k, v]) => [k, flagValue(v)]))).toEqual({
      mv: 'blue',
      any: true,
      blue: true,
      Blue: false,
      off: false,
      badop: false,
      number: false,
    });
  });

  it('an inactive dependency is false (and not reported)', () => {
    const wantsFalse = flagRecord(2, 'wants-false', { groups: [{ properties: [dependsOn(1, false)] }] });
    const wantsTrue = flagRecord(3, 'wants-true', { groups: [{ properties: [dependsOn(1, true)] }] });
    const r = evaluate([base(false), wantsFalse, wantsTrue]);
    expect(r.has('base')).toBe(false);
    expect(r.get('wants-false')?.enabled).toBe(true);
    expect(r.get('wants-true')?.enabled).toBe(false);
  });

  it('a missing or deleted dependency gives missing_dependency, transitively', () => {
    const missing = flagRecord(2, 'missing', { groups: [{ properties: [dependsOn(999, true)] }] });
    const onDeleted = flagRecord(3, 'on-deleted', { groups: [{ properties: [dependsOn(4, true)] }] });
    const deleted = flagRecord(4, 'deleted', { groups: [{}] }, { deleted: true });
    const onMissing = flagRecord(5, 'on-missing', { groups: [{ properties: [dependsOn(2, false)] }] });
    const r = evaluate([missing, onDeleted, deleted, onMissing]);
    const broken = {
      enabled: false,
      variant: null,
      reason: { code: 'missing_dependency', condition_index: null, description: 'Flag cannot be evaluated due to missing dependency' },
      payload: undefined,
    };
    expect(r.get('missing')).toEqual(broken);
    expect(r.get('on-deleted')).toEqual(broken);
    expect(r.get('on-missing')).toEqual(broken);
    expect(r.has('deleted')).toBe(false);
  });

  it('flags in a cycle are missing_dependency and flagged as errors; flags on them are missing_dependency', () => {
    const a = flagRecord(1, 'a', { groups: [{ properties: [dependsOn(2, true)] }] });
    const b = flagRecord(2, 'b', { groups: [{ properties: [dependsOn(1, true)] }] });
    const c = flagRecord(3, 'c', { groups: [{ properties: [dependsOn(1, true)] }] });
    const self = flagRecord(4, 'self', { groups: [{ properties: [dependsOn(4, true)] }] });
    const free = flagRecord(5, 'free', { groups: [{}] });
    const snapshot = compileSnapshot({ flags: [a, b, c, self, free], cohorts: [], groupTypeMapping: {}, version: 3 });
    expect(snapshot.hasFlagCycles).toBe(true);
    const r = evaluateFlags(snapshot, { distinctId: 'u', personProperties: {}, groups: {}, groupProperties: {}, now: new Date() });
    for (const key of ['a', 'b', 'self']) {
      expect(r.get(key)).toMatchObject({ enabled: false, reason: { code: 'missing_dependency' }, error: 'dependency_cycle_flag' });
      expect(r.get(key)?.failed).toBeUndefined();
    }
    expect(r.get('c')).toMatchObject({ enabled: false, reason: { code: 'missing_dependency' } });
    expect(r.get('c')?.error).toBeUndefined();
    expect(r.get('free')?.enabled).toBe(true);
  });

  it('flagKeys evaluates the requested flags and their dependencies only', () => {
    const mid = flagRecord(2, 'mid', { groups: [{ properties: [dependsOn(1, true)] }] });
    const top = flagRecord(3, 'top', { groups: [{ properties: [dependsOn(2, true)] }] });
    const other = flagRecord(4, 'other', { groups: [{}] });
    const off = flagRecord(5, 'off', { groups: [{}] }, { active: false });
    const r = evaluate([base(), mid, top, other, off], { flagKeys: ['top', 'unknown', 'off'] });
    expect([...r.keys()]).toEqual(['base', 'mid', 'top']);
    expect(r.get('top')?.enabled).toBe(true);
  });

  it('a dependency that failed matches nothing', () => {
    const failing = flagRecord(1, 'failing', { groups: [{ properties: [inCohort(404)] }] });
    const wantsFalse = flagRecord(2, 'wants-false', { groups: [{ properties: [dependsOn(1, false)] }] });
    const r = evaluate([failing, wantsFalse]);
    expect(r.get('failing')?.failed).toBe(true);
    expect(r.get('wants-false')?.enabled).toBe(false);
  });
});

describe('cohorts (docs/compatibility.md#cohorts-and-flag-dependencies)', () => {
  const dynamic = (id: number, properties: unknown): CohortDefinition => ({ id, is_static: false, filters: { properties } });

  it('asks static cohort membership once per request', () => {
    const calls: number[] = [];
    const flags = [
      flagRecord(1, 'a', { groups: [{ properties: [inCohort(5)] }] }),
      flagRecord(2, 'b', { groups: [{ properties: [inCohort(5, 'not_in')] }] }),
    ];
    const isInStaticCohort = (id: number) => {
      calls.push(id);
      return true;
    };
    const r = evaluate(flags, { isInStaticCohort }, [{ id: 5, is_static: true, filters: {} }]);
    expect([r.get('a')?.enabled, r.get('b')?.enabled]).toEqual([true, false]);
    expect(calls).toEqual([5]);
    expect(evaluate(flags, {}, [{ id: 5, is_static: true, filters: {} }]).get('a')?.enabled).toBe(false);
  });

  it('fails the flag when the cohort does not exist (or is deleted)', () => {
    const flag = flagRecord(1, 'f', { groups: [{ properties: [inCohort(9)] }] });
    const failed = {
      enabled: false,
      variant: null,
      reason: { code: 'dependency_not_found_cohort', condition_index: null, description: 'Cohort dependency not found' },
      payload: undefined,
      failed: true,
      error: 'dependency_not_found_cohort',
    };
    expect(one(flag)).toEqual(failed);
    expect(one(flag, {}, [{ ...dynamic(9, { type: 'AND', values: [] }), deleted: true }])).toEqual(failed);
    expect(one(flag, {}, [dynamic(9, { type: 'AND', values: [inCohort(10)] })])).toEqual(failed);
  });

  it('evaluates cohort filters after the other filters, so an earlier miss avoids the failure', () => {
    const flag = flagRecord(1, 'f', { groups: [{ properties: [inCohort(9), exact('plan', 'pro')] }] });
    expect(one(flag).reason.code).toBe('no_condition_match');
    expect(one(flag, { personProperties: { plan: 'pro' } }).failed).toBe(true);
  });

  it('fails on a cycle of cohorts', () => {
    const flag = flagRecord(1, 'f', { groups: [{ properties: [inCohort(1)] }] });
    const cohorts = [dynamic(1, { type: 'AND', values: [inCohort(2)] }), dynamic(2, { type: 'OR', values: [inCohort(1)] })];
    expect(one(flag, {}, cohorts)).toMatchObject({
      failed: true,
      error: 'dependency_cycle_cohort',
      reason: { description: 'Cohort dependency cycle detected' },
    });
  });

  it('matches nested AND/OR groups with negation, not_in, and an empty cohort', () => {
    const cohorts = [
      dynamic(1, {
        type: 'OR',
        values: [
          { type: 'AND', values: [exact('plan', 'pro'), { ...exact('country', 'FR'), negation: true }] },
          { type: 'AND', values: [exact('vip', true)] },
        ],
      }),
      dynamic(2, { type: 'AND', values: [] }),
      { id: 3, is_static: false, filters: {} },
    ];
    const flag = flagRecord(1, 'f', { groups: [{ properties: [inCohort(1)] }] });
    expect(one(flag, { personProperties: { plan: 'pro', country: 'DE' } }, cohorts).enabled).toBe(true);
    expect(one(flag, { personProperties: { plan: 'pro', country: 'FR' } }, cohorts).enabled).toBe(false);
    expect(one(flag, { personProperties: { country: 'FR', vip: true } }, cohorts).enabled).toBe(true);
    const notIn = flagRecord(2, 'n', { groups: [{ properties: [inCohort(1, 'not_in')] }] });
    expect(one(notIn, { personProperties: { plan: 'free' } }, cohorts).enabled).toBe(true);
    expect(one(flagRecord(3, 'e', { groups: [{ properties: [inCohort(2), inCohort(3)] }] }), {}, cohorts).enabled).toBe(true);
  });

  it('never matches behavioural filters', () => {
    const cohorts = [
      dynamic(1, { type: 'OR', values: [{ key: 'signed_up', type: 'behavioral', value: 'performed_event', event_type: 'events' }] }),
    ];
    expect(one(flagRecord(1, 'f', { groups: [{ properties: [inCohort(1)] }] }), {}, cohorts).enabled).toBe(false);
  });

  it('follows chains of cohorts far longer than the stack would allow recursion for, with the same answers', () => {
    // Cohort k (k < n) holds when plan = pro AND (cohort k+1, or a static cohort); cohort n when age > 30.
    const chain = (n: number): CohortDefinition[] => [
      ...Array.from({ length: n }, (_, k) =>
        dynamic(k + 1, { type: 'AND', values: [exact('plan', 'pro'), { type: 'OR', values: [inCohort(k + 2), inCohort(100_000)] }] }),
      ),
      dynamic(n + 1, { type: 'AND', values: [{ key: 'age', type: 'person', operator: 'gt', value: 30 }] }),
      { id: 100_000, is_static: true, filters: {} },
    ];
    const flag = flagRecord(1, 'f', { groups: [{ properties: [inCohort(1)] }] });
    for (const n of [3, 31, 33, 10_000]) {
      const cohorts = chain(n);
      expect(one(flag, { personProperties: { plan: 'pro', age: 40 } }, cohorts).enabled, `${n}`).toBe(true);
      expect(one(flag, { personProperties: { plan: 'pro', age: 20 } }, cohorts).enabled, `${n}`).toBe(false);
      expect(one(flag, { personProperties: { plan: 'pro', age: 20 }, isInStaticCohort: () => true }, cohorts).enabled, `${n}`).toBe(true);
      expect(one(flag, { personProperties: { plan: 'free', age: 40 } }, cohorts).enabled, `${n}`).toBe(false);
      // The same chain closed into a cycle, or ending at a missing cohort, fails as before.
      const cycle = [...cohorts.slice(0, n), dynamic(n + 1, { type: 'AND', values: [inCohort(1)] }), cohorts[n + 1]!];
      expect(one(flag, { personProperties: { plan: 'pro' } }, cycle).error, `${n}`).toBe('dependency_cycle_cohort');
      const missing = [...cohorts.slice(0, n), dynamic(n + 1, { type: 'AND', values: [inCohort(99_999)] }), cohorts[n + 1]!];
      expect(one(flag, { personProperties: { plan: 'pro' } }, missing).error, `${n}`).toBe('dependency_not_found_cohort');
    }
  });

  it('orders flags referenced from inside a cohort before the flag using the cohort', () => {
    const cohorts = [dynamic(1, { type: 'AND', values: [dependsOn(2, true)] })];
    const user = flagRecord(1, 'user', { groups: [{ properties: [inCohort(1)] }] });
    const target = flagRecord(2, 'target', { groups: [{}] });
    expect(evaluate([user, target], {}, cohorts).get('user')?.enabled).toBe(true);
  });
});

describe('time budget', () => {
  const flags = Array.from({ length: 10 }, (_, i) => flagRecord(i + 1, `f${i}`, { groups: [{ rollout_percentage: 100 }] }));
  const run = (overBudget: () => boolean) => {
    const snapshot = compileSnapshot({ flags, cohorts: [], groupTypeMapping: MAPPING, version: 1 });
    return evaluateFlags(snapshot, { distinctId: 'u', personProperties: {}, groups: {}, groupProperties: {}, now: new Date(), overBudget });
  };

  it('stops between flags once over budget, keeping the flags done and saying it is incomplete', () => {
    let checks = 0;
    const partial = run(() => ++checks > 1); // the second check (after eight flags) is over
    expect([partial.complete, partial.size, [...partial.keys()]]).toEqual([false, 8, ['f0', 'f1', 'f2', 'f3', 'f4', 'f5', 'f6', 'f7']]);
    expect(checks).toBe(2);
    const none = run(() => true);
    expect([none.complete, none.size]).toEqual([false, 0]);
    const all = run(() => false);
    expect([all.complete, all.size]).toEqual([true, 10]);
  });

  it('checks the budget between the filters of a flag too, and leaves out the flag it stopped in', () => {
    const properties = Array.from({ length: 40 }, (_, i) => ({ key: `p${i}`, type: 'person', operator: 'is_set', value: 'is_set' }));
    const many = [
      flagRecord(1, 'first', { groups: [{ rollout_percentage: 100 }] }),
      flagRecord(2, 'many', { groups: [{ properties }] }),
      flagRecord(3, 'last', { groups: [{ rollout_percentage: 100 }] }),
    ];
    const snapshot = compileSnapshot({ flags: many, cohorts: [], groupTypeMapping: MAPPING, version: 1 });
    const personProperties = Object.fromEntries(properties.map((p) => [p.key, 1]));
    let checks = 0;
    const ctx = { distinctId: 'u', personProperties, groups: {}, groupProperties: {}, now: new Date() };
    // The first check (before the first flag) passes; the next, 16 filters into `many`, does not.
    const partial = evaluateFlags(snapshot, { ...ctx, overBudget: () => ++checks > 1 });
    expect([partial.complete, [...partial.keys()], checks]).toEqual([false, ['first'], 2]);
    const whole = evaluateFlags(snapshot, { ...ctx, overBudget: () => false });
    expect([whole.complete, [...whole.keys()], whole.get('many')?.enabled]).toEqual([true, ['first', 'many', 'last'], true]);
  });

  it("stops once the evaluation's V8-engine regex allowance is spent", () => {
    const regexFlags = [
      flagRecord(1, 'first', { groups: [{ rollout_percentage: 100 }] }),
      flagRecord(2, 'lookbehind', {
        groups: [{ properties: [{ key: 'email', type: 'person', operator: 'regex', value: '(?<=@)example\\.com$' }] }],
      }),
      flagRecord(3, 'last', { groups: [{ rollout_percentage: 100 }] }),
    ];
    const snapshot = compileSnapshot({ flags: regexFlags, cohorts: [], groupTypeMapping: MAPPING, version: 1 });
    const ctx = { distinctId: 'u', personProperties: { email: 'max@example.com' }, groups: {}, groupProperties: {}, now: new Date() };
    const spent = evaluateFlags(snapshot, { ...ctx, regexAllowanceMs: 0 });
    expect([spent.complete, [...spent.keys()]]).toEqual([false, ['first']]);
    const enough = evaluateFlags(snapshot, { ...ctx, regexAllowanceMs: 5 });
    expect([enough.complete, enough.get('lookbehind')?.enabled, enough.size]).toEqual([true, true, 3]);
  });
});

describe('snapshot', () => {
  it('keeps inactive flags for disabled reasons, drops deleted ones, and shares frozen results', () => {
    const flags = [
      flagRecord(1, 'on', { groups: [{}] }),
      flagRecord(2, 'off', { groups: [{}] }, { active: false }),
      flagRecord(3, 'gone', { groups: [{}] }, { deleted: true }),
    ];
    const snapshot = compileSnapshot({ flags, cohorts: [], groupTypeMapping: {}, version: 42 });
    expect(snapshot.version).toBe(42);
    expect(snapshot.inactive.map((f) => f.key)).toEqual(['off']);
    expect(snapshot.flags.map((f) => f.key)).toEqual(['on']);
    const ctx = { distinctId: 'u', personProperties: {}, groups: {}, groupProperties: {}, now: new Date() };
    const first = evaluateFlags(snapshot, ctx).get('on');
    const second = evaluateFlags(snapshot, { ...ctx, distinctId: 'v' }).get('on');
    expect(first).toBe(second);
    expect(Object.isFrozen(first)).toBe(true);
  });
});

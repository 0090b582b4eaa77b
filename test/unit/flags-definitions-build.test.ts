/**
 * The local-evaluation definitions body (src/flags/definitions): the flag dependency vectors of
 * test/fixtures/flags-vectors.json (`local_evaluation_transform_cases`), which flags and cohorts
 * are served, the MinimalFlag shape, and Django's single-cohort inlining without send_cohorts.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { FeatureFlagRecord } from '../../src/flags/feature-flag.js';
import { buildDefinitions, type DefinitionsInput } from '../../src/flags/definitions/build-definitions.js';
import { minimalFlag, type MinimalFlag } from '../../src/flags/definitions/minimal-flag.js';
import type { CohortRecord } from '../../src/store/cohort-store.js';
import { flagRecordWith } from '../fixtures/flag-record.js';

interface TransformCase {
  test: string;
  stored: string;
  expected: Record<string, unknown>;
}

const VECTORS = JSON.parse(readFileSync(new URL('../fixtures/flags-vectors.json', import.meta.url), 'utf8')) as {
  local_evaluation_transform_cases: TransformCase[];
};

type Obj = Record<string, unknown>;

const email = { key: 'email', type: 'person', value: 'test@example.com', operator: 'exact' };
const dependsOn = (ref: string) => ({ key: ref, type: 'flag', value: true, operator: 'flag_evaluates_to' });
const oneGroup = (...properties: Obj[]) => ({ groups: [{ properties, rollout_percentage: 100 }] });

function flag(id: number, key: string, filters: Obj, over: Partial<FeatureFlagRecord> = {}): FeatureFlagRecord {
  return flagRecordWith({ id, key, name: key, filters, ...over });
}

function cohort(id: number, properties: unknown, over: Partial<CohortRecord> = {}): CohortRecord {
  return {
    id,
    project_id: 1,
    name: `cohort ${id}`,
    description: '',
    filters: properties === undefined ? {} : { properties },
    is_static: false,
    deleted: false,
    created_by: null,
    created_at: '2024-01-01T00:00:00.000000Z',
    updated_at: '2024-01-01T00:00:00.000000Z',
    version: 1,
    ...over,
  };
}

function build(flags: FeatureFlagRecord[], over: Partial<DefinitionsInput> = {}) {
  return buildDefinitions({ flags, cohorts: [], groupTypeMapping: {}, sendCohorts: true, ...over });
}

/** The stored flags each vector describes in its `stored` text (ids chosen out of key order). */
const STORED: Record<string, () => FeatureFlagRecord[]> = {
  test_flag_dependency_transformation_complex_chain: () => [
    flag(30, 'flag-a', oneGroup(email)),
    flag(20, 'flag-b', oneGroup(dependsOn('30'))),
    flag(10, 'flag-c', oneGroup(dependsOn('20'))),
  ],
  test_flag_dependency_transformation_circular_dependency: () => [
    flag(7, 'flag-a', oneGroup(dependsOn('8'))),
    flag(8, 'flag-b', oneGroup(dependsOn('7'))),
  ],
  test_flag_dependency_transformation_multiple_dependencies: () => [
    flag(4, 'flag-a', { groups: [{ properties: [], rollout_percentage: 100 }] }),
    flag(3, 'flag-b', { groups: [{ properties: [], rollout_percentage: 100 }] }),
    flag(2, 'flag-c', oneGroup(dependsOn('4'), dependsOn('3'), email)),
    flag(1, 'flag-d', oneGroup(dependsOn('2'), { key: 'country', type: 'person', value: 'US', operator: 'exact' })),
  ],
  test_flag_dependency_transformation_self_dependency: () => [flag(5, 'self-flag', oneGroup(dependsOn('self-flag'), email))],
  test_flag_dependency_transformation_self_referencing_circular_dependency: () => [
    flag(40, 'flag-b', oneGroup(dependsOn('flag-b'))),
    flag(41, 'flag-a', oneGroup(dependsOn('40'))),
  ],
  test_flag_dependency_transformation_missing_dependency: () => [flag(6, 'flag-a', oneGroup(dependsOn('999999'), email))],
};

function served(flags: unknown[], key: string): MinimalFlag {
  const found = (flags as MinimalFlag[]).find((f) => f.key === key);
  if (!found) throw new Error(`flag ${key} not served`);
  return found;
}

function flagProps(f: MinimalFlag): Obj[] {
  const groups = f.filters.groups as { properties: Obj[] }[];
  return groups.flatMap((g) => g.properties).filter((p) => p.type === 'flag');
}

/** Reads one `expected` path of a transform vector from the built flags. */
function readExpected(flags: unknown[], path: string): unknown {
  if (path === 'flags_returned') return flags.length;
  const byKeyRef = /^([^.[]+)\[([^\]]+)\]\.(.+)$/.exec(path);
  if (byKeyRef) {
    const [, flagKey, depKey, field] = byKeyRef as unknown as [string, string, string, string];
    return flagProps(served(flags, flagKey)).find((p) => p.key === depKey)?.[field];
  }
  const [flagKey, what, field] = path.split('.') as [string, string, string | undefined];
  const props = flagProps(served(flags, flagKey));
  if (what === 'flag_property_keys') return props.map((p) => p.key);
  expect(what).toBe('property');
  expect(props).toHaveLength(1);
  return props[0]?.[field as string];
}

describe('local_evaluation_transform_cases (flag dependencies)', () => {
  it('covers every vector', () => {
    expect(VECTORS.local_evaluation_transform_cases.map((c) => c.test).sort()).toEqual(Object.keys(STORED).sort());
  });

  for (const vector of VECTORS.local_evaluation_transform_cases) {
    it(vector.test, () => {
      const stored = STORED[vector.test];
      if (!stored) throw new Error(`no stored flags for ${vector.test}`);
      const { flags } = build(stored());
      for (const [path, want] of Object.entries(vector.expected)) {
        expect(readExpected(flags, path), path).toEqual(want);
      }
    });
  }

  it('shares a dependency chain between dependents and leaves the records untouched', () => {
    const records = [
      flag(1, 'shared', { groups: [{ properties: [], rollout_percentage: 100 }] }),
      flag(2, 'dep-1', oneGroup(dependsOn('1'))),
      flag(3, 'dep-2', oneGroup(dependsOn('1'))),
    ];
    const before = structuredClone(records);
    const { flags } = build(records);
    for (const key of ['dep-1', 'dep-2']) {
      expect(flagProps(served(flags, key))).toEqual([
        { key: 'shared', type: 'flag', value: true, operator: 'flag_evaluates_to', dependency_chain: ['shared'] },
      ]);
    }
    expect(records).toEqual(before);
  });

  it('keeps a self-reference deeper in a chain, as Django does', () => {
    const { flags } = build([
      flag(1, 'flag-b', oneGroup(dependsOn('flag-b'))),
      flag(2, 'flag-a', oneGroup(dependsOn('1'))),
      flag(3, 'flag-c', oneGroup(dependsOn('2'))),
    ]);
    expect(flagProps(served(flags, 'flag-a'))[0]?.dependency_chain).toEqual([]);
    expect(flagProps(served(flags, 'flag-c'))[0]?.dependency_chain).toEqual(['flag-b', 'flag-a']);
  });

  it('does not resolve references to deleted or remote-configuration flags', () => {
    const { flags } = build([
      flag(1, 'gone', {}, { deleted: true }),
      flag(2, 'remote', {}, { is_remote_configuration: true }),
      flag(3, 'user', oneGroup(dependsOn('1'), dependsOn('2'))),
    ]);
    expect(flagProps(served(flags, 'user')).map((p) => [p.key, p.dependency_chain])).toEqual([
      ['1', []],
      ['2', []],
    ]);
  });

  it('gives an inactive dependency its chain (SDKs then evaluate it to false)', () => {
    const { flags } = build([flag(1, 'off', {}, { active: false }), flag(2, 'on', oneGroup(dependsOn('1')))]);
    expect(flagProps(served(flags, 'on'))[0]).toMatchObject({ key: 'off', dependency_chain: ['off'] });
  });

  it('adds no dependency_chain when no flag has a flag dependency', () => {
    const { flags } = build([flag(1, 'a', oneGroup(email))]);
    expect(JSON.stringify(flags)).not.toContain('dependency_chain');
  });
});

describe('which flags are served', () => {
  it('includes inactive flags with active: false; excludes deleted and remote-configuration flags', () => {
    const { flags } = build([
      flag(1, 'on', {}),
      flag(2, 'off', {}, { active: false }),
      flag(3, 'deleted', {}, { deleted: true }),
      flag(4, 'remote', {}, { is_remote_configuration: true }),
    ]);
    expect((flags as MinimalFlag[]).map((f) => [f.key, f.active])).toEqual([
      ['off', false],
      ['on', true],
    ]);
  });

  it('orders flags by key, whatever their ids', () => {
    const { flags } = build([flag(1, 'zeta', {}), flag(2, 'alpha', {}), flag(3, 'Beta', {}), flag(4, 'beta', {})]);
    expect((flags as MinimalFlag[]).map((f) => f.key)).toEqual(['Beta', 'alpha', 'beta', 'zeta']);
  });

  it('serves an empty project as empty lists and maps', () => {
    expect(build([])).toEqual({ flags: [], group_type_mapping: {}, cohorts: {} });
    expect(build([], { sendCohorts: false })).toEqual({ flags: [], group_type_mapping: {}, cohorts: {} });
  });

  it('passes the group type mapping through', () => {
    const groupTypeMapping = { '0': 'organization', '1': 'company' };
    const defs = build([], { groupTypeMapping });
    expect(defs.group_type_mapping).toEqual(groupTypeMapping);
    expect(defs.group_type_mapping).not.toBe(groupTypeMapping);
    expect(JSON.stringify(defs)).toBe('{"flags":[],"group_type_mapping":{"0":"organization","1":"company"},"cohorts":{}}');
  });
});

describe('MinimalFlag', () => {
  it("has PostHog's fields in MinimalFeatureFlagSerializer order", () => {
    const record = flagRecordWith({
      id: 12,
      project_id: 7,
      key: 'k',
      name: 'description',
      filters: { groups: [{ properties: [], rollout_percentage: 50 }], payloads: { true: '{"a":1}' } },
      active: false,
      version: 3,
      ensure_experience_continuity: true,
      has_encrypted_payloads: false,
      evaluation_runtime: 'server',
      bucketing_identifier: 'device_id',
      evaluation_tags: ['web'],
    });
    const out = minimalFlag(record);
    expect(Object.keys(out)).toEqual([
      'id',
      'team_id',
      'name',
      'key',
      'filters',
      'deleted',
      'active',
      'ensure_experience_continuity',
      'has_encrypted_payloads',
      'version',
      'evaluation_runtime',
      'bucketing_identifier',
      'evaluation_tags',
    ]);
    expect(out).toEqual({
      id: 12,
      team_id: 7,
      name: 'description',
      key: 'k',
      filters: record.filters,
      deleted: false,
      active: false,
      ensure_experience_continuity: true,
      has_encrypted_payloads: false,
      version: 3,
      evaluation_runtime: 'server',
      bucketing_identifier: 'device_id',
      evaluation_tags: ['web'],
    });
    expect(out.filters).not.toBe(record.filters);
  });

  it('serves bucketing_identifier as stored, and distinct_id for a flag stored before the field was kept', () => {
    for (const value of ['distinct_id', 'device_id', '', null] as const) {
      expect(minimalFlag(flagRecordWith({ bucketing_identifier: value })).bucketing_identifier).toBe(value);
    }
    const { bucketing_identifier: _dropped, ...older } = flagRecordWith();
    expect(minimalFlag(older).bucketing_identifier).toBe('distinct_id');
  });

  it('normalises legacy filters as the management vector with beta-feature shows', () => {
    // Hedgerow keeps no legacy rollout_percentage column, so the rollout reads back null.
    const properties = [{ key: 'beta-property', value: 'beta-value' }];
    const { flags } = build([
      flag(1, 'beta-feature', { properties }),
      flag(2, 'group-feature', { groups: [{ rollout_percentage: 21 }], aggregation_group_type_index: 0 }),
      flag(3, 'minimal', {}),
    ]);
    expect(served(flags, 'beta-feature').filters).toEqual({ groups: [{ properties, rollout_percentage: null }] });
    expect(served(flags, 'group-feature').filters).toEqual({
      groups: [{ rollout_percentage: 21 }],
      aggregation_group_type_index: 0,
    });
    expect(served(flags, 'minimal').filters).toEqual({ groups: [{ properties: [], rollout_percentage: null }] });
  });
});

describe('cohorts with send_cohorts', () => {
  const inCohort = (id: number | string) => ({ key: 'id', type: 'cohort', value: id });
  const personGroup = (type: 'AND' | 'OR', ...values: Obj[]) => ({ type, values });
  const person = (key: string, value: unknown) => ({ key, type: 'person', value, operator: 'exact' });

  it('serves the referenced cohorts and those they reference, keyed by id, never static or deleted ones', () => {
    const cohorts = [
      cohort(1, personGroup('OR', personGroup('AND', person('plan', 'pro'), inCohort(2)))),
      cohort(2, personGroup('AND', inCohort('3'), inCohort(4), inCohort(5))),
      cohort(3, personGroup('OR', person('country', 'NZ'))),
      cohort(4, undefined, { is_static: true }),
      cohort(5, personGroup('AND', person('x', 1)), { deleted: true }),
      cohort(6, personGroup('AND', person('unused', 1))),
      cohort(7, personGroup('AND', person('static-ref', 1)), { is_static: true }),
    ];
    const flags = [flag(1, 'a', oneGroup(inCohort(1))), flag(2, 'b', oneGroup(inCohort(7)))];
    const defs = build(flags, { cohorts });
    expect(Object.keys(defs.cohorts)).toEqual(['1', '2', '3']);
    expect(defs.cohorts['1']).toEqual(cohorts[0]?.filters.properties);
    expect(defs.cohorts['3']).toEqual({ type: 'OR', values: [person('country', 'NZ')] });
    // Cohort filters are left alone in the flags.
    expect(served(defs.flags, 'a').filters).toEqual(oneGroup(inCohort(1)));
  });

  it('collects cohorts of inactive flags but not of deleted or remote-configuration ones', () => {
    const cohorts = [1, 2, 3].map((id) => cohort(id, personGroup('AND', person('p', id))));
    const flags = [
      flag(1, 'off', oneGroup(inCohort(1)), { active: false }),
      flag(2, 'gone', oneGroup(inCohort(2)), { deleted: true }),
      flag(3, 'remote', oneGroup(inCohort(3)), { is_remote_configuration: true }),
    ];
    expect(Object.keys(build(flags, { cohorts }).cohorts)).toEqual(['1']);
  });

  it('survives cohort reference cycles and skips unknown cohorts', () => {
    const cohorts = [cohort(1, personGroup('AND', inCohort(2))), cohort(2, personGroup('AND', inCohort(1), inCohort(99)))];
    expect(Object.keys(build([flag(1, 'a', oneGroup(inCohort(1)))], { cohorts }).cohorts)).toEqual(['1', '2']);
  });

  it('serves no cohorts without send_cohorts', () => {
    const cohorts = [cohort(1, personGroup('AND', inCohort(2))), cohort(2, personGroup('AND', person('p', 1)))];
    expect(build([flag(1, 'a', oneGroup(inCohort(1)))], { cohorts, sendCohorts: false }).cohorts).toEqual({});
  });
});

describe('single-cohort inlining without send_cohorts', () => {
  const inCohort = (id: number) => ({ key: 'id', type: 'cohort', value: id });
  const person = (key: string, value: unknown, extra: Obj = {}) => ({
    key,
    type: 'person',
    value,
    operator: 'exact',
    ...extra,
  });
  const groupsOf = (cohorts: CohortRecord[], filters: Obj) =>
    served(build([flag(1, 'f', filters)], { cohorts, sendCohorts: false }).flags, 'f').filters.groups;

  it('turns an AND cohort into one condition and an OR cohort into one condition per property', () => {
    const and = cohort(1, { type: 'AND', values: [person('a', 1), person('b', 2)] });
    expect(groupsOf([and], { groups: [{ properties: [inCohort(1)], rollout_percentage: 30 }] })).toEqual([
      { properties: [person('a', 1), person('b', 2)], rollout_percentage: 30 },
    ]);
    const or = cohort(1, { type: 'OR', values: [{ type: 'AND', values: [person('a', 1), person('b', 2)] }] });
    expect(groupsOf([or], oneGroup(inCohort(1)))).toEqual([{ properties: [person('a', 1), person('b', 2)], rollout_percentage: 100 }]);
    const wide = cohort(1, { type: 'OR', values: [person('a', 1), person('b', 2)] });
    expect(groupsOf([wide], oneGroup(inCohort(1)))).toEqual([
      { properties: [person('a', 1)], rollout_percentage: 100 },
      { properties: [person('b', 2)], rollout_percentage: 100 },
    ]);
  });

  it('turns an OR of AND groups into one condition each, after the other conditions', () => {
    const c = cohort(1, {
      type: 'OR',
      values: [
        { type: 'AND', values: [person('a', 1), person('b', 2)] },
        { type: 'OR', values: [person('c', 3)] },
      ],
    });
    const filters = {
      groups: [
        { properties: [inCohort(1)], rollout_percentage: 10 },
        { properties: [person('z', 0)], rollout_percentage: 50 },
      ],
      payloads: { true: '1' },
    };
    expect(groupsOf([c], filters)).toEqual([
      { properties: [person('z', 0)], rollout_percentage: 50 },
      { properties: [person('a', 1), person('b', 2)], rollout_percentage: 50 },
      { properties: [person('c', 3)], rollout_percentage: 50 },
    ]);
  });

  it('re-serializes properties as Django does: no null fields, is_set gets its operator as value', () => {
    const c = cohort(1, {
      type: 'AND',
      values: [
        { key: 'email', type: 'person', operator: 'is_set', value: null, group_type_index: null, label: 'x' },
        person('plan', 'pro', { negation: false }),
      ],
    });
    expect(groupsOf([c], oneGroup(inCohort(1)))).toEqual([
      {
        properties: [
          { key: 'email', operator: 'is_set', type: 'person', value: 'is_set' },
          { key: 'plan', operator: 'exact', type: 'person', negation: false, value: 'pro' },
        ],
        rollout_percentage: 100,
      },
    ]);
  });

  it('leaves the conditions alone when the cohort cannot be inlined', () => {
    const and = (...values: Obj[]) => ({ type: 'AND', values });
    const or = (...values: Obj[]) => ({ type: 'OR', values });
    const simple = cohort(1, and(person('a', 1)));
    const twoCohorts = { groups: [{ properties: [inCohort(1)] }, { properties: [inCohort(2)] }] };
    const cases: [CohortRecord[], Obj][] = [
      // the cohort beside another property
      [[simple], oneGroup(inCohort(1), person('b', 2))],
      // a variant override
      [[simple], { groups: [{ properties: [inCohort(1)], rollout_percentage: 100, variant: 'v' }] }],
      // a cohort referencing another cohort (two cohorts in play)
      [[cohort(1, and(inCohort(2))), cohort(2, and(person('a', 1)))], oneGroup(inCohort(1))],
      // two cohorts
      [[simple, cohort(2, and(person('b', 1)))], twoCohorts],
      // non-person, negated, static and unknown cohorts
      [[cohort(1, and({ key: 'g', type: 'group', group_type_index: 0, value: 1 }))], oneGroup(inCohort(1))],
      [[cohort(1, and(person('a', 1, { negation: true })))], oneGroup(inCohort(1))],
      [[cohort(1, undefined, { is_static: true })], oneGroup(inCohort(1))],
      [[], oneGroup(inCohort(1))],
      // AND of groups, and OR of a wide OR group
      [[cohort(1, and(or(person('a', 1)), or(person('b', 1))))], oneGroup(inCohort(1))],
      [[cohort(1, or(or(person('a', 1), person('b', 1)), and(person('c', 1))))], oneGroup(inCohort(1))],
    ];
    for (const [cohorts, filters] of cases) {
      expect(groupsOf(cohorts, filters), JSON.stringify(filters)).toEqual(filters.groups);
    }
  });

  it('does not inline with send_cohorts', () => {
    const c = cohort(1, { type: 'AND', values: [person('a', 1)] });
    const { flags } = build([flag(1, 'f', oneGroup(inCohort(1)))], { cohorts: [c], sendCohorts: true });
    expect(served(flags, 'f').filters).toEqual(oneGroup(inCohort(1)));
  });
});

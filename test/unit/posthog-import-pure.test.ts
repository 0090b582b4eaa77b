import { describe, expect, it } from 'vitest';
import { NotPostHogDefinitions, readPostHogDefinitions } from '../../src/posthog-import/posthog-definitions.js';
import {
  cohortGroupReferences,
  flagDependencyKeys,
  type ReferenceMaps,
  rewriteCohortGroup,
  rewriteFlagFilters,
} from '../../src/posthog-import/rewrite-references.js';

const refused = (text: string): string => {
  try {
    readPostHogDefinitions(text);
  } catch (err) {
    expect(err).toBeInstanceOf(NotPostHogDefinitions);
    return (err as Error).message;
  }
  throw new Error('accepted');
};

describe('reading PostHog local evaluation answers', () => {
  it('reads flags, group types by index and cohorts by id', () => {
    const defs = readPostHogDefinitions(
      JSON.stringify({
        flags: [{ id: 7, key: 'a', filters: { groups: [] } }, { key: 'b' }],
        group_type_mapping: { '1': 'company', '0': 'organization' },
        cohorts: { '42': { type: 'OR', values: [] } },
      }),
    );
    expect(defs.flags.map((f) => [f.id, f.key])).toEqual([
      [7, 'a'],
      [undefined, 'b'],
    ]);
    expect(defs.groupTypes).toEqual([
      { index: 0, name: 'organization' },
      { index: 1, name: 'company' },
    ]);
    expect([...defs.cohorts.keys()]).toEqual([42]);
    expect(readPostHogDefinitions('{"flags": []}')).toEqual({ flags: [], groupTypes: [], cohorts: new Map() });
  });

  it('refuses what is not such an answer, saying what it found', () => {
    expect(refused('nope')).toMatch(/^not JSON: /);
    expect(refused('"flags"')).toBe('expected a JSON object with "flags", found a string');
    expect(refused('{"flags": {}}')).toBe('expected "flags" to be a list, found an object');
    expect(refused('{"results": []}')).toMatch(/^this is the flag list/);
    expect(refused('{"flags": [3]}')).toBe('flags[0] is a number, not a flag object');
    expect(refused('{"flags": [{"key": ""}]}')).toBe('flags[0] has no "key"');
    expect(refused('{"flags": [{"key": "k", "filters": []}]}')).toBe('flags[0] ("k") has "filters" that are a list, not an object');
    expect(refused('{"flags": [], "group_type_mapping": {"5": "x"}}')).toMatch(/maps "5" to "x"/);
    expect(refused('{"flags": [], "cohorts": {"abc": {}}}')).toBe('"cohorts" has the key "abc": expected cohort ids');
    expect(refused('{"flags": [], "cohorts": {"1": []}}')).toBe('cohort 1 is a list, not a property group');
  });
});

describe('re-pointing references', () => {
  const maps: ReferenceMaps = {
    groupTypeIndex: (i) => ({ 0: 1, 1: 0 })[i],
    cohortId: (id) => ({ 4521: 3, 4522: 4 })[id],
    flagId: (key) => ({ beta: 11 })[key],
  };

  it('re-points cohorts, flag dependencies (dropping the chain) and group type indexes, leaving the input alone', () => {
    const filters = {
      aggregation_group_type_index: 1,
      groups: [
        {
          properties: [
            { key: 'id', type: 'cohort', value: 4521 },
            { key: 'id', type: 'cohort', value: '4522' },
            { key: 'beta', type: 'flag', value: true, operator: 'flag_evaluates_to', dependency_chain: ['beta'] },
            { key: 'employees', type: 'group', group_type_index: 0, value: '5', operator: 'gt' },
          ],
          rollout_percentage: 50,
        },
      ],
      super_groups: [{ properties: [{ key: 'id', type: 'cohort', value: 4521 }] }],
    };
    const before = structuredClone(filters);
    expect(rewriteFlagFilters(filters, maps)).toEqual({
      ok: true,
      value: {
        aggregation_group_type_index: 0,
        groups: [
          {
            properties: [
              { key: 'id', type: 'cohort', value: 3 },
              { key: 'id', type: 'cohort', value: 4 },
              { key: '11', type: 'flag', value: true, operator: 'flag_evaluates_to' },
              { key: 'employees', type: 'group', group_type_index: 1, value: '5', operator: 'gt' },
            ],
            rollout_percentage: 50,
          },
        ],
        super_groups: [{ properties: [{ key: 'id', type: 'cohort', value: 3 }] }],
      },
    });
    expect(filters).toEqual(before);
  });

  it('says which reference could not be re-pointed', () => {
    const one = (p: Record<string, unknown>) => rewriteFlagFilters({ groups: [{ properties: [p] }] }, maps);
    expect(one({ key: 'id', type: 'cohort', value: 77 })).toEqual({
      ok: false,
      reason: 'refers to PostHog cohort 77, which was not imported (the answer holds no such cohort, or it was skipped)',
    });
    expect(one({ key: 'gone', type: 'flag', value: true })).toEqual({
      ok: false,
      reason: 'depends on flag "gone", which is neither imported nor in the project',
    });
    expect(rewriteFlagFilters({ aggregation_group_type_index: 3, groups: [] }, maps)).toEqual({
      ok: false,
      reason: 'uses PostHog group type 3, which was not imported',
    });
    // A cohort value that is not an id is left for validation to refuse.
    expect(one({ key: 'id', type: 'cohort', value: 'x' })).toEqual({
      ok: true,
      value: { groups: [{ properties: [{ key: 'id', type: 'cohort', value: 'x' }] }] },
    });
  });

  it('re-points cohort references inside nested cohort groups, and lists them', () => {
    const group = {
      type: 'OR',
      values: [
        {
          type: 'AND',
          values: [
            { key: 'id', type: 'cohort', value: 4521 },
            { key: 'plan', type: 'person', value: 'pro' },
          ],
        },
      ],
    };
    expect(cohortGroupReferences(group)).toEqual([4521]);
    expect(rewriteCohortGroup(group, maps)).toEqual({
      ok: true,
      value: {
        type: 'OR',
        values: [
          {
            type: 'AND',
            values: [
              { key: 'id', type: 'cohort', value: 3 },
              { key: 'plan', type: 'person', value: 'pro' },
            ],
          },
        ],
      },
    });
  });

  it('lists the flag keys a flag depends on, once each', () => {
    const dep = (key: string) => ({ key, type: 'flag', value: true });
    expect(
      flagDependencyKeys({
        groups: [{ properties: [dep('a'), dep('b')] }, { properties: [dep('a')] }],
        holdout_groups: [{ properties: [dep('c')] }],
      }),
    ).toEqual(['a', 'b', 'c']);
  });
});

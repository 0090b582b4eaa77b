import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { PostHogErrorBody } from '../../src/errors.js';
import type { FeatureFlagRecord, FlagWrite } from '../../src/flags/feature-flag.js';
import { validateFlagWrite, type CohortInfo, type FlagValidationContext } from '../../src/flags/validate-flag-write.js';
import { flagRecordWith } from '../fixtures/flag-record.js';
import { validationErrorOf } from '../helpers/errors.js';

function makeFlag(over: Partial<FeatureFlagRecord> = {}): FeatureFlagRecord {
  return flagRecordWith({
    key: 'red_button',
    created_by: 1,
    created_at: '2021-08-25T22:09:14.252000Z',
    updated_at: '2021-08-25T22:09:14.252000Z',
    last_modified_by: 1,
    ...over,
  });
}

interface Setup {
  mode?: FlagValidationContext['mode'];
  current?: FeatureFlagRecord;
  live?: Record<string, number>;
  cohorts?: CohortInfo[];
}

function ctx(setup: Setup = {}): FlagValidationContext {
  const live = setup.live ?? {};
  const cohorts = new Map((setup.cohorts ?? []).map((c) => [c.id, c]));
  return {
    mode: setup.mode ?? 'create',
    current: setup.current,
    liveFlagIdByKey: (key) => live[key],
    cohort: (id) => cohorts.get(id),
    maxPropertyValues: 10,
    now: new Date('2024-06-01T12:00:00Z'),
  };
}

function validate(body: Record<string, unknown>, setup: Setup = {}): FlagWrite {
  return validateFlagWrite(body, ctx(setup));
}

function errorOf(body: Record<string, unknown>, setup: Setup = {}): PostHogErrorBody {
  return validationErrorOf(() => validate(body, setup));
}

const group = (properties: unknown[], extra: Record<string, unknown> = {}) => ({
  properties,
  rollout_percentage: 50,
  ...extra,
});
const person = (extra: Record<string, unknown>) => ({ key: 'email', type: 'person', value: 'a@b.c', ...extra });
const withFilters = (filters: Record<string, unknown>) => ({ key: 'k', filters });

describe('vectors (management.json cases 0-18, 36-44)', () => {
  interface Vector {
    description: string;
    request: { method: string; body: Record<string, unknown> | null };
    expected: { status: number; body_fragment: Record<string, unknown> | null };
  }
  const vectors = JSON.parse(readFileSync(new URL('../fixtures/management-vectors.json', import.meta.url), 'utf8')) as Vector[];
  const COHORT_ID = 7;
  const setups: Record<number, Setup> = {
    9: { mode: 'patch', current: makeFlag({ id: 3, key: 'red_button' }), live: { red_button: 3 } },
    18: {
      mode: 'patch',
      current: makeFlag({
        filters: {
          groups: [{ properties: [], rollout_percentage: null, variant: 'second-variant' }],
          multivariate: { variants: [{ key: 'second-variant', rollout_percentage: 100 }] },
        },
      }),
    },
    37: { cohorts: [{ id: COHORT_ID, name: 'c', deleted: false, is_static: false, filters: {} }] },
    39: {
      cohorts: [
        {
          id: COHORT_ID,
          name: 'cohort-not-behavioural',
          deleted: false,
          is_static: false,
          filters: {
            properties: {
              type: 'OR',
              values: [{ type: 'AND', values: [{ key: 'id', type: 'cohort', value: 8 }, person({})] }],
            },
          },
        },
        {
          id: 8,
          name: 'cohort-behavioural',
          deleted: false,
          is_static: false,
          filters: {
            properties: {
              type: 'OR',
              values: [
                {
                  type: 'AND',
                  values: [{ key: '$pageview', type: 'behavioral', value: 'performed_event_first_time' }],
                },
              ],
            },
          },
        },
      ],
    },
  };
  const cases = [...Array(19).keys(), ...[36, 37, 38, 39, 40, 41, 42, 43, 44]].filter((i) => i !== 19);
  for (const i of cases) {
    const v = vectors[i] as Vector;
    it(`case ${i}: ${v.description.slice(0, 70)}`, () => {
      const raw = JSON.stringify(v.request.body ?? {}).replaceAll('{cohort_id}', String(COHORT_ID));
      const body = JSON.parse(raw) as Record<string, unknown>;
      const mode = v.request.method === 'POST' ? 'create' : v.request.method === 'PUT' ? 'put' : 'patch';
      const setup = { mode, ...setups[i] } as Setup;
      if (v.expected.status >= 400) {
        const e = errorOf(body, setup);
        if (v.expected.body_fragment) expect(e).toMatchObject(v.expected.body_fragment);
      } else {
        const write = validate(body, setup);
        for (const [k, val] of Object.entries(v.expected.body_fragment ?? {})) {
          if (k in write) expect(write[k as keyof FlagWrite]).toEqual(val);
        }
      }
    });
  }

  it('case 40 with the key still taken reports the duplicate key first', () => {
    const body = vectors[40]?.request.body as Record<string, unknown>;
    expect(errorOf(body, { live: { 'person-flag': 2 } })).toMatchObject({ code: 'unique', attr: 'key' });
    expect(errorOf(body)).toEqual({
      type: 'validation_error',
      code: 'invalid_input',
      detail: "Payload keys must be 'true' for boolean flags",
      attr: 'filters',
    });
  });
});

describe('key', () => {
  it('is required on create and PUT, optional on PATCH', () => {
    const required = { type: 'validation_error', code: 'required', detail: 'This field is required.', attr: 'key' };
    expect(errorOf({})).toEqual(required);
    expect(errorOf({ name: 'x' }, { mode: 'put', current: makeFlag() })).toEqual(required);
    expect(validate({ name: 'x' }, { mode: 'patch', current: makeFlag() })).toEqual({ name: 'x' });
  });

  it('null, blank, too long', () => {
    expect(errorOf({ key: null })).toEqual({
      type: 'validation_error',
      code: 'null',
      detail: 'This field may not be null.',
      attr: 'key',
    });
    expect(errorOf({ key: '' })).toMatchObject({ code: 'blank', detail: 'This field may not be blank.', attr: 'key' });
    expect(errorOf({ key: '   ' })).toMatchObject({ code: 'blank' });
    expect(errorOf({ key: 'a'.repeat(401) })).toEqual({
      type: 'validation_error',
      code: 'max_length',
      detail: 'Ensure this field has no more than 400 characters.',
      attr: 'key',
    });
    expect(validate({ key: 'a'.repeat(400) }).key).toHaveLength(400);
  });

  it('coerces numbers, trims, rejects other types', () => {
    expect(validate({ key: 12 }).key).toBe('12');
    expect(validate({ key: '  abc ' }).key).toBe('abc');
    for (const key of [true, ['a'], { a: 1 }]) {
      expect(errorOf({ key })).toEqual({
        type: 'validation_error',
        code: 'invalid_input',
        detail: 'Not a valid string.',
        attr: 'key',
      });
    }
  });

  it('checks uniqueness among live flags, excluding the flag itself, before the format', () => {
    const unique = {
      type: 'validation_error',
      code: 'unique',
      detail: 'There is already a feature flag with this key.',
      attr: 'key',
    };
    expect(errorOf({ key: 'taken' }, { live: { taken: 5 } })).toEqual(unique);
    expect(errorOf({ key: 'foo.bar' }, { live: { 'foo.bar': 5 } })).toEqual(unique);
    expect(errorOf({ key: 'taken' }, { mode: 'patch', current: makeFlag({ id: 4 }), live: { taken: 5 } })).toEqual(unique);
    expect(validate({ key: 'taken' }, { mode: 'patch', current: makeFlag({ id: 5 }), live: { taken: 5 } })).toEqual({
      key: 'taken',
    });
  });

  it('allows only letters, digits, - and _', () => {
    for (const key of ['foo?bar=baz', 'foo/bar', 'foo\\bar', 'foo.bar', 'foo bar', 'é']) {
      expect(errorOf({ key })).toEqual({
        type: 'validation_error',
        code: 'invalid_key',
        detail: 'Only letters, numbers, hyphens (-) & underscores (_) are allowed.',
        attr: 'key',
      });
    }
    expect(validate({ key: 'Abc_09-x' }).key).toBe('Abc_09-x');
  });

  it('rejects null characters and lone surrogates', () => {
    expect(errorOf({ key: 'a\0b' })).toMatchObject({ code: 'null_characters_not_allowed', attr: 'key' });
    expect(errorOf({ key: 'a\ud800' })).toMatchObject({
      code: 'surrogate_characters_not_allowed',
      detail: 'Surrogate characters are not allowed: U+D800.',
    });
  });
});

describe('field order', () => {
  it('reports the first field in serializer order, then validate(), then create()', () => {
    // name (first field) beats a missing key
    expect(errorOf({ name: true })).toMatchObject({ attr: 'name' });
    // key beats filters
    expect(errorOf({ key: 'a b', filters: 'x' })).toMatchObject({ attr: 'key' });
    // filters beats active
    expect(errorOf({ key: 'k', filters: 'x', active: 'maybe' })).toMatchObject({ attr: 'filters' });
    // active beats evaluation_runtime
    expect(errorOf({ key: 'k', active: 'maybe', evaluation_runtime: 'x' })).toMatchObject({ attr: 'active' });
    // a field error beats the validate() rule
    expect(errorOf({ key: 'k', evaluation_tags: ['a'], evaluation_runtime: 'x' })).toMatchObject({
      attr: 'evaluation_runtime',
    });
    // validate() beats the create() dry run
    const regex = { groups: [group([person({ operator: 'regex', value: '(' })])] };
    expect(errorOf({ key: 'k', filters: regex, evaluation_tags: ['a'] })).toMatchObject({
      detail: 'Evaluation tags must be a subset of tags. Invalid evaluation tags: a',
      attr: null,
    });
  });
});

describe('plain fields', () => {
  it('name may be blank; absent stays absent', () => {
    expect(validate({ key: 'k', name: '' })).toEqual({ key: 'k', name: '' });
    expect(validate({ key: 'k', name: '  x ' }).name).toBe('x');
    expect(validate({ key: 'k' })).toEqual({ key: 'k' });
    expect(errorOf({ key: 'k', name: null })).toMatchObject({ code: 'null', attr: 'name' });
  });

  it('booleans accept the DRF spellings (form-encoded PATCH)', () => {
    const patch = { mode: 'patch' as const, current: makeFlag() };
    expect(validate({ active: 'False', name: 'replaced' }, patch)).toEqual({ active: false, name: 'replaced' });
    for (const t of [true, 'true', 'True', 'TRUE', '1', 1, 'yes', 'on', 't', 'Y']) {
      expect(validate({ deleted: t }, patch).deleted).toBe(true);
    }
    for (const f of [false, 'false', 'False', 'FALSE', '0', 0, 'no', 'off', 'f', 'N']) {
      expect(validate({ deleted: f }, patch).deleted).toBe(false);
    }
    for (const bad of ['maybe', 2, [], {}, '']) {
      expect(errorOf({ active: bad }, patch)).toEqual({
        type: 'validation_error',
        code: 'invalid_input',
        detail: 'Must be a valid boolean.',
        attr: 'active',
      });
    }
    expect(errorOf({ active: null }, patch)).toMatchObject({ code: 'null', attr: 'active' });
  });

  it('nullable booleans take null as false', () => {
    const w = validate({ key: 'k', ensure_experience_continuity: null, has_enriched_analytics: 'null' });
    expect(w.ensure_experience_continuity).toBe(false);
    expect(w.has_enriched_analytics).toBe(false);
    expect(validate({ key: 'k', is_remote_configuration: 'true' }).is_remote_configuration).toBe(true);
  });

  it('active true clears performed_rollback', () => {
    expect(validate({ key: 'k', active: true, performed_rollback: true }).performed_rollback).toBe(false);
    expect(validate({ key: 'k', active: false, performed_rollback: true }).performed_rollback).toBe(true);
  });

  it('evaluation_runtime is a choice', () => {
    expect(validate({ key: 'k', evaluation_runtime: 'server' }).evaluation_runtime).toBe('server');
    expect(validate({ key: 'k', evaluation_runtime: null }).evaluation_runtime).toBe('all');
    expect(errorOf({ key: 'k', evaluation_runtime: 'both' })).toEqual({
      type: 'validation_error',
      code: 'invalid_choice',
      detail: '"both" is not a valid choice.',
      attr: 'evaluation_runtime',
    });
    expect(errorOf({ key: 'k', evaluation_runtime: true })).toMatchObject({ detail: '"True" is not a valid choice.' });
  });

  it('bucketing_identifier is a nullable, blank-allowed choice, kept as sent', () => {
    expect(validate({ key: 'k', bucketing_identifier: 'device_id' }).bucketing_identifier).toBe('device_id');
    expect(validate({ key: 'k', bucketing_identifier: 'distinct_id' }).bucketing_identifier).toBe('distinct_id');
    expect(validate({ key: 'k', bucketing_identifier: null }).bucketing_identifier).toBeNull();
    expect(validate({ key: 'k', bucketing_identifier: '' }).bucketing_identifier).toBe('');
    expect(validate({ key: 'k' }).bucketing_identifier).toBeUndefined();
    expect(errorOf({ key: 'k', bucketing_identifier: 'person_id' })).toEqual({
      type: 'validation_error',
      code: 'invalid_choice',
      detail: '"person_id" is not a valid choice.',
      attr: 'bucketing_identifier',
    });
    expect(errorOf({ key: 'k', bucketing_identifier: 1 })).toMatchObject({ detail: '"1" is not a valid choice.' });
  });

  it('device bucketing may not be newly combined with experience continuity', () => {
    const refused = {
      type: 'validation_error',
      code: 'invalid_input',
      detail: "Cannot enable 'persist across authentication steps' when using device ID bucketing. These features are incompatible.",
      attr: null,
    };
    expect(errorOf({ key: 'k', bucketing_identifier: 'device_id', ensure_experience_continuity: true })).toEqual(refused);
    expect(validate({ key: 'k', bucketing_identifier: 'device_id', ensure_experience_continuity: false }).bucketing_identifier).toBe(
      'device_id',
    );
    // PATCH: the field not sent is the stored one.
    const device = makeFlag({ bucketing_identifier: 'device_id' });
    const continuity = makeFlag({ ensure_experience_continuity: true });
    expect(errorOf({ ensure_experience_continuity: true }, { mode: 'patch', current: device })).toEqual(refused);
    expect(errorOf({ bucketing_identifier: 'device_id' }, { mode: 'patch', current: continuity })).toEqual(refused);
    expect(validate({ bucketing_identifier: null, ensure_experience_continuity: true }, { mode: 'patch', current: device })).toMatchObject({
      bucketing_identifier: null,
    });
    // A flag stored before the field was kept buckets by distinct id.
    const { bucketing_identifier: _dropped, ...older } = continuity;
    expect(validate({ name: 'x' }, { mode: 'patch', current: older }).name).toBe('x');
    expect(errorOf({ bucketing_identifier: 'device_id' }, { mode: 'patch', current: older })).toEqual(refused);
    // A flag that already has both may be saved as it is.
    const both = makeFlag({ bucketing_identifier: 'device_id', ensure_experience_continuity: true });
    expect(validate({ name: 'x', ensure_experience_continuity: true }, { mode: 'patch', current: both }).name).toBe('x');
    // Evaluation tags are checked first (the mixin's validate() runs before this rule).
    expect(
      errorOf({ key: 'k', tags: [], evaluation_tags: ['a'], bucketing_identifier: 'device_id', ensure_experience_continuity: true }),
    ).toMatchObject({
      detail: 'Evaluation tags must be a subset of tags. Invalid evaluation tags: a',
    });
  });

  it('created_at is an ISO datetime stored with microseconds in UTC', () => {
    expect(validate({ key: 'k', created_at: '2021-08-25T22:09:14.252Z' }).created_at).toBe('2021-08-25T22:09:14.252000Z');
    expect(validate({ key: 'k', created_at: '2021-08-25T22:09:14+02:00' }).created_at).toBe('2021-08-25T20:09:14.000000Z');
    expect(validate({ key: 'k', created_at: '2021-08-25' }).created_at).toBe('2021-08-25T00:00:00.000000Z');
    expect(validate({ key: 'k', created_at: '2021-08-25 01:02:03.1234567' }).created_at).toBe('2021-08-25T01:02:03.123456Z');
    for (const bad of ['yesterday', '2021-02-30T00:00:00Z', '2021-08-25T25:00', 5, '']) {
      expect(errorOf({ key: 'k', created_at: bad })).toEqual({
        type: 'validation_error',
        code: 'invalid_input',
        detail: 'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].',
        attr: 'created_at',
      });
    }
  });

  it('tags are tagified; evaluation tags must be a subset', () => {
    expect(validate({ key: 'k', tags: [' Foo', 'foo', 'BAR', '', 3] }).tags).toEqual(['foo', 'bar', '3']);
    expect(errorOf({ key: 'k', tags: 'foo' })).toEqual({
      type: 'validation_error',
      code: 'not_a_list',
      detail: 'Expected a list of items but got type "str".',
      attr: 'tags',
    });
    expect(errorOf({ key: 'k', tags: [{}] })).toMatchObject({ detail: 'Not a valid string.', attr: 'tags' });
    expect(validate({ key: 'k', tags: ['A', 'b'], evaluation_tags: ['a'] }).evaluation_tags).toEqual(['a']);
    expect(errorOf({ key: 'k', tags: ['x'], evaluation_tags: ['z', 'x', 'b'] })).toEqual({
      type: 'validation_error',
      code: 'invalid_input',
      detail: 'Evaluation tags must be a subset of tags. Invalid evaluation tags: b, z',
      attr: null,
    });
    // PATCH without tags compares with the stored tags
    const current = makeFlag({ tags: ['a'] });
    expect(validate({ evaluation_tags: ['a'] }, { mode: 'patch', current }).evaluation_tags).toEqual(['a']);
    expect(validate({ key: 'k', evaluation_tags: [] }).evaluation_tags).toEqual([]);
  });

  it('analytics_dashboards are integer ids', () => {
    expect(validate({ key: 'k', analytics_dashboards: [1, '2'] }).analytics_dashboards).toEqual([1, 2]);
    expect(errorOf({ key: 'k', analytics_dashboards: ['x'] })).toEqual({
      type: 'validation_error',
      code: 'incorrect_type',
      detail: 'Incorrect type. Expected pk value, received str.',
      attr: 'analytics_dashboards',
    });
    expect(errorOf({ key: 'k', analytics_dashboards: 1 })).toMatchObject({
      code: 'not_a_list',
      detail: 'Expected a list of items but got type "int".',
    });
    const c = { ...ctx(), dashboardExists: (id: number) => id === 1 };
    expect(() => validateFlagWrite({ key: 'k', analytics_dashboards: [2] }, c)).toThrow('Invalid pk "2" - object does not exist.');
  });

  it('version must be an integer but is not written', () => {
    const patch = { mode: 'patch' as const, current: makeFlag() };
    expect(validate({ version: '2', name: 'n' }, patch)).toEqual({ name: 'n' });
    expect(errorOf({ version: 'x' }, patch)).toMatchObject({ detail: 'A valid integer is required.', attr: 'version' });
  });

  it('ignores unknown and read-only fields', () => {
    const w = validate({
      key: 'k',
      id: 99,
      created_by: { id: 1 },
      is_simple_flag: false,
      rollout_percentage: 3,
      can_edit: false,
      usage_dashboard: 4,
      experiment_set: [1],
      features: [],
      whatever: 1,
      rollback_conditions: [{ threshold: 1 }],
    });
    expect(w).toEqual({ key: 'k', rollback_conditions: [{ threshold: 1 }] });
  });

  it('checks write-only serializer fields', () => {
    expect(errorOf({ key: 'k', creation_context: 'nope' })).toMatchObject({
      code: 'invalid_choice',
      attr: 'creation_context',
    });
    expect(validate({ key: 'k', creation_context: 'surveys', _should_create_usage_dashboard: 'false' })).toEqual({
      key: 'k',
    });
  });
});

describe('filters', () => {
  it('must be a dictionary', () => {
    expect(errorOf({ key: 'k', filters: [] })).toEqual({
      type: 'validation_error',
      code: 'not_a_dict',
      detail: 'Expected a dictionary of items but got type "list".',
      attr: 'filters',
    });
    expect(errorOf({ key: 'k', filters: null })).toMatchObject({ code: 'null', attr: 'filters' });
  });

  it('PATCH without groups keeps the stored filters; create and PUT need groups', () => {
    const patch = { mode: 'patch' as const, current: makeFlag() };
    expect(validate({ filters: { payloads: {} } }, patch)).toEqual({});
    const noGroups = 'Feature flags must have at least one condition set (group).';
    expect(errorOf(withFilters({}))).toMatchObject({ detail: noGroups, attr: 'filters' });
    expect(errorOf(withFilters({ groups: [] }))).toMatchObject({ detail: noGroups });
    expect(errorOf(withFilters({}), { mode: 'put', current: makeFlag() })).toMatchObject({ detail: noGroups });
    expect(errorOf({ filters: { groups: null } }, patch)).toMatchObject({ detail: noGroups });
    expect(validate({ filters: { groups: [] } }, patch).filters).toEqual({ groups: [] });
  });

  it('returns a copy of the filters as sent', () => {
    const filters = { groups: [group([person({})])], extra: { a: 1 } };
    const w = validate(withFilters(filters));
    expect(w.filters).toEqual(filters);
    expect(w.filters).not.toBe(filters);
  });

  it('allows person, cohort and flag properties only without aggregation', () => {
    const msg = 'Filters are not valid (can only use person and cohort properties)';
    expect(errorOf(withFilters({ groups: [group([{ key: 'id', value: 5 }])] }))).toMatchObject({
      detail: msg,
      code: 'invalid_input',
      attr: 'filters',
    });
    expect(errorOf(withFilters({ groups: [group([{ key: 'x', type: 'group', group_type_index: 0 }])] }))).toMatchObject({ detail: msg });
    expect(errorOf(withFilters({ groups: [group(['not an object'])] }))).toMatchObject({ detail: msg });
    const flagProp = { key: '12', type: 'flag', value: true, operator: 'flag_evaluates_to' };
    expect(validate(withFilters({ groups: [group([flagProp])] })).filters).toBeDefined();
    expect(errorOf(withFilters({ groups: [group([{ ...flagProp, operator: 'exact' }])] }))).toMatchObject({
      detail: "Flag properties must use the 'flag_evaluates_to' operator",
    });
  });

  it('with aggregation_group_type_index allows only group properties of that index', () => {
    const msg = 'Filters are not valid (can only use group properties)';
    const g = (idx: unknown) => ({ key: 'industry', type: 'group', value: 'x', group_type_index: idx });
    expect(validate(withFilters({ aggregation_group_type_index: 1, groups: [group([g(1)])] })).filters).toBeDefined();
    expect(errorOf(withFilters({ aggregation_group_type_index: 1, groups: [group([g(0)])] }))).toMatchObject({
      detail: msg,
    });
    expect(errorOf(withFilters({ aggregation_group_type_index: 0, groups: [group([person({})])] }))).toMatchObject({ detail: msg });
  });

  it('checks the type of every property before any variant or value rule', () => {
    const filters = {
      groups: [group([person({ operator: 'icontains', value: ['x'] })]), group([{ key: 'e', type: 'event' }])],
      multivariate: { variants: [{ key: 'a', rollout_percentage: 5 }] },
    };
    expect(errorOf(withFilters(filters))).toMatchObject({
      detail: 'Filters are not valid (can only use person and cohort properties)',
    });
  });

  it('variants must sum to 100 (missing counts 0); overrides must exist', () => {
    const variants = (...ps: (number | undefined)[]) => ({
      variants: ps.map((p, i) => (p === undefined ? { key: `v${i}` } : { key: `v${i}`, rollout_percentage: p })),
    });
    const sum = 'Invalid variant definitions: Variant rollout percentages must sum to 100.';
    expect(validate(withFilters({ groups: [group([])], multivariate: variants(50, 50, undefined) })).filters).toBeDefined();
    expect(errorOf(withFilters({ groups: [group([])], multivariate: variants(50, 49) }))).toEqual({
      type: 'validation_error',
      code: 'invalid_input',
      detail: sum,
      attr: 'filters',
    });
    expect(errorOf(withFilters({ groups: [group([])], multivariate: variants(50, undefined) }))).toMatchObject({
      detail: sum,
    });
    // an empty variants list is not checked
    expect(validate(withFilters({ groups: [group([])], multivariate: { variants: [] } })).filters).toBeDefined();
    const override = 'Filters are not valid (variant override does not exist)';
    expect(validate(withFilters({ groups: [group([], { variant: 'v1' })], multivariate: variants(50, 50) })).filters).toBeDefined();
    expect(errorOf(withFilters({ groups: [group([], { variant: 'v9' })], multivariate: variants(50, 50) }))).toMatchObject({
      detail: override,
    });
    expect(errorOf(withFilters({ groups: [group([], { variant: 'v0' })] }))).toMatchObject({ detail: override });
    // null or empty override means none
    expect(validate(withFilters({ groups: [group([], { variant: null })] })).filters).toBeDefined();
  });

  it('caps list values', () => {
    const ten = Array.from({ length: 10 }, (_, i) => String(i));
    expect(validate(withFilters({ groups: [group([person({ value: ten })])] })).filters).toBeDefined();
    expect(errorOf(withFilters({ groups: [group([person({ value: [...ten, 'x'] })])] }))).toMatchObject({
      detail: 'Property group expressions of type email cannot contain more than 10 values.',
    });
  });

  it('cohort properties need an existing, non-behavioural cohort', () => {
    const cohort = (id: number, name: string, filters: unknown): CohortInfo => ({
      id,
      name,
      deleted: false,
      is_static: false,
      filters,
    });
    const ref = (id: number) => ({ type: 'AND', values: [{ key: 'id', type: 'cohort', value: id }] });
    const behavioral = { type: 'OR', values: [{ key: '$pageview', type: 'behavioral', value: 'performed_event' }] };
    const cohorts = [
      cohort(1, 'plain', { properties: { type: 'OR', values: [ref(2)] } }),
      cohort(2, 'plain too', { properties: { type: 'OR', values: [] } }),
      cohort(3, 'events', { properties: behavioral }),
      cohort(4, 'outer', { properties: { type: 'OR', values: [ref(5)] } }),
      cohort(5, 'middle', { properties: { type: 'OR', values: [ref(3), ref(4)] } }),
      cohort(6, 'legacy', { groups: [{ action_id: 3, days: 7 }] }),
    ];
    const flag = (value: unknown) => withFilters({ groups: [group([{ key: 'id', type: 'cohort', value }])] });
    expect(validate(flag(1), { cohorts }).filters).toBeDefined();
    expect(validate(flag('2'), { cohorts }).filters).toBeDefined();
    expect(errorOf(flag(99), { cohorts })).toEqual({
      type: 'validation_error',
      code: 'cohort_does_not_exist',
      detail: 'Cohort with id 99 does not exist',
      attr: 'filters',
    });
    expect(errorOf(flag('abc'), { cohorts })).toMatchObject({ detail: 'Cohort with id abc does not exist' });
    expect(errorOf(flag(3), { cohorts })).toEqual({
      type: 'validation_error',
      code: 'behavioral_cohort_found',
      detail: "Cohort 'events' with filters on events cannot be used in feature flags.",
      attr: 'filters',
    });
    expect(errorOf(flag(4), { cohorts })).toMatchObject({
      detail: "Cohort 'events' with filters on events cannot be used in feature flags.",
    });
    expect(errorOf(flag(6), { cohorts })).toMatchObject({ code: 'behavioral_cohort_found' });
  });

  it('date operators need an absolute or relative date', () => {
    const flag = (value: unknown) => withFilters({ groups: [group([person({ key: 'd', operator: 'is_date_before', value })])] });
    for (const ok of ['-10m', '-7d', '-1h', '-2w', '-1y', '3m', '2024-01-15', '2024-01-15T10:00:00Z', '2024/01/15']) {
      expect(validate(flag(ok)).filters, ok).toBeDefined();
    }
    for (const bad of ['1234-02-993284', '-10000d', '-5x', 'soon', null]) {
      expect(errorOf(flag(bad))).toEqual({
        type: 'validation_error',
        code: 'invalid_date',
        detail: `Invalid date value: ${bad === null ? 'None' : bad}`,
        attr: 'filters',
      });
    }
  });

  it('string operators need a string value (detail holds the Python repr)', () => {
    const flag = (operator: string, value: unknown) => withFilters({ groups: [group([person({ operator, value })])] });
    for (const op of ['regex', 'icontains', 'not_regex', 'not_icontains', 'gt', 'gte', 'lt', 'lte']) {
      expect(validate(flag(op, '5')).filters).toBeDefined();
      expect(errorOf(flag(op, 5))).toEqual({
        type: 'validation_error',
        code: 'invalid_value',
        detail: `Invalid value for operator ${op}: 5`,
        attr: 'filters',
      });
    }
    expect(errorOf(flag('gt', [1, 2.5]))).toMatchObject({ detail: 'Invalid value for operator gt: [1, 2.5]' });
    expect(errorOf(flag('lt', true))).toMatchObject({ detail: 'Invalid value for operator lt: True' });
    expect(errorOf(flag('lt', null))).toMatchObject({ detail: 'Invalid value for operator lt: None' });
    expect(errorOf(flag('icontains', ["it's", 'b']))).toMatchObject({
      detail: `Invalid value for operator icontains: ["it's", 'b']`,
    });
    // exact accepts lists
    expect(validate(flag('exact', ['a', 'b'])).filters).toBeDefined();
  });

  it('checks per property in order: list size, cohort, date, string operator', () => {
    const p = { key: 'id', type: 'cohort', value: Array.from({ length: 11 }, () => 'x'), operator: 'lt' };
    expect(errorOf(withFilters({ groups: [group([p])] }))).toMatchObject({
      detail: 'Property group expressions of type id cannot contain more than 10 values.',
    });
    expect(errorOf(withFilters({ groups: [group([{ ...p, value: ['x'] }])] }))).toMatchObject({
      code: 'cohort_does_not_exist',
    });
    const q = person({ operator: 'is_date_after', value: ['x'] });
    expect(errorOf(withFilters({ groups: [group([q])] }))).toMatchObject({ code: 'invalid_date' });
  });

  it('rollout percentages are absent, null or numbers from 0 to 100 (PostHog’s detail, Python type names)', () => {
    const rollout = (r: unknown) => withFilters({ groups: [group([]), { properties: [], rollout_percentage: r }] });
    for (const ok of [0, 100, 33.5, null, undefined]) expect(validate(rollout(ok)).filters).toBeDefined();
    const refused = (detail: string) => ({ type: 'validation_error', code: 'invalid_input', detail, attr: 'filters' });
    expect(errorOf(rollout('abc'))).toEqual(refused('groups[1].rollout_percentage must be a number or null, got str'));
    expect(errorOf(rollout('50'))).toEqual(refused('groups[1].rollout_percentage must be a number or null, got str'));
    expect(errorOf(rollout(true))).toEqual(refused('groups[1].rollout_percentage must be a number or null, got bool'));
    expect(errorOf(rollout([50]))).toEqual(refused('groups[1].rollout_percentage must be a number or null, got list'));
    expect(errorOf(rollout(101))).toEqual(refused('groups[1].rollout_percentage must be between 0 and 100, got 101'));
    expect(errorOf(rollout(-1))).toEqual(refused('groups[1].rollout_percentage must be between 0 and 100, got -1'));
    expect(errorOf(rollout(100.5))).toEqual(refused('groups[1].rollout_percentage must be between 0 and 100, got 100.5'));

    const variants = (...ps: unknown[]) =>
      withFilters({ groups: [group([])], multivariate: { variants: ps.map((p, i) => ({ key: `v${i}`, rollout_percentage: p })) } });
    expect(errorOf(variants(150, -50))).toEqual(refused('multivariate.variants[0].rollout_percentage must be between 0 and 100, got 150'));
    expect(errorOf(variants(50, '50'))).toEqual(refused('multivariate.variants[1].rollout_percentage must be a number or null, got str'));
    // before the property rules, as in PostHog
    const both = withFilters({ groups: [group([{ key: 'e', type: 'event', value: 'x' }], { rollout_percentage: -1 })] });
    expect(errorOf(both)).toMatchObject({ detail: 'groups[0].rollout_percentage must be between 0 and 100, got -1' });
    // PATCH with groups is checked too; without, the stored filters stay
    expect(errorOf(rollout(101), { mode: 'patch', current: makeFlag() })).toMatchObject({ attr: 'filters', code: 'invalid_input' });
    expect(validate({ filters: { rollout_percentage: 101 } }, { mode: 'patch', current: makeFlag() }).filters).toBeUndefined();
  });

  it('operators are the ones flags evaluate (PostHog’s invalid_operator and unsupported_operator)', () => {
    const flag = (operator: unknown, value: unknown = 'x') => withFilters({ groups: [group([person({ operator, value })])] });
    for (const op of ['exact', 'is_not', 'is_set', 'icontains', 'regex', 'starts_with', 'semver_gt', 'is_date_exact', null, undefined]) {
      const value = op === 'semver_gt' ? '1.2.3' : op === 'is_date_exact' ? '2024-01-01' : 'x';
      expect(validate(flag(op, value)).filters).toBeDefined();
    }
    expect(errorOf(flag('bogus'))).toEqual({
      type: 'validation_error',
      code: 'invalid_operator',
      detail: 'Invalid operator: bogus',
      attr: 'filters',
    });
    expect(errorOf(flag(5))).toMatchObject({ code: 'invalid_operator', detail: 'Invalid operator: 5' });
    expect(errorOf(flag('EXACT'))).toMatchObject({ code: 'invalid_operator', detail: 'Invalid operator: EXACT' });
    expect(errorOf(flag('is_cleaned_path_exact'))).toEqual({
      type: 'validation_error',
      code: 'unsupported_operator',
      detail: 'Unsupported operator for feature flags: is_cleaned_path_exact',
      attr: 'filters',
    });
    expect(errorOf(flag('in', 1))).toMatchObject({
      code: 'invalid_operator',
      detail: "The 'in' operator is only valid for cohort properties, not 'person' properties.",
    });
    // min and max are stored as gte and lte, and then need a string value as those do
    const aliased = validate(flag('min', '5')).filters as { groups: { properties: { operator: string }[] }[] };
    expect(aliased.groups[0]?.properties[0]?.operator).toBe('gte');
    expect(errorOf(flag('max', 5))).toMatchObject({ code: 'invalid_value', detail: 'Invalid value for operator lte: 5' });
    // on PATCH as on create
    expect(errorOf(flag('bogus'), { mode: 'patch', current: makeFlag() })).toMatchObject({ code: 'invalid_operator' });
  });

  it('payloads', () => {
    const boolFlag = (payloads: unknown) => withFilters({ groups: [group([])], payloads });
    expect(validate(boolFlag({ true: 300 })).filters?.payloads).toEqual({ true: 300 });
    expect(validate(boolFlag({ true: { key: 'value', n: [1, 'é'] } })).filters?.payloads).toEqual({
      true: '{"key": "value", "n": [1, "\\u00e9"]}',
    });
    expect(validate(boolFlag({ true: '{"a": 1}' })).filters?.payloads).toEqual({ true: '{"a": 1}' });
    expect(validate(boolFlag({})).filters?.payloads).toEqual({});
    expect(errorOf(boolFlag([]))).toMatchObject({ detail: 'Payloads must be passed as a dictionary', attr: 'filters' });
    expect(errorOf(boolFlag(null))).toMatchObject({ detail: 'Payloads must be passed as a dictionary' });
    expect(errorOf(boolFlag({ true: '{invalid_json}' }))).toMatchObject({ detail: 'Payload value is not valid JSON' });
    expect(errorOf(boolFlag({ 'some-fake-key': 300 }))).toMatchObject({
      detail: "Payload keys must be 'true' for boolean flags",
    });
    const mv = { variants: [{ key: 'first-variant', rollout_percentage: 100 }] };
    const mvFlag = (payloads: unknown) => withFilters({ groups: [group([])], multivariate: mv, payloads });
    expect(validate(mvFlag({ 'first-variant': { a: 1 } })).filters?.payloads).toEqual({ 'first-variant': '{"a": 1}' });
    for (const bad of [{ 'first-variant': 1, 'other-variant': 1 }, { true: 1 }]) {
      expect(errorOf(mvFlag(bad))).toMatchObject({
        detail: 'Payload keys must match a variant key for multivariate flags',
      });
    }
    // the JSON check runs before the key check
    expect(errorOf(boolFlag({ nope: '{' }))).toMatchObject({ detail: 'Payload value is not valid JSON' });
  });
});

describe('create() dry run', () => {
  const regexFlag = (value: string, operator = 'regex') => withFilters({ groups: [group([person({ operator, value })])] });

  it('rejects regexes the flag dialect cannot compile, on create only', () => {
    const failed = {
      type: 'validation_error',
      code: 'invalid_input',
      detail: "Can't evaluate flag - please check release conditions",
      attr: null,
    };
    expect(errorOf(regexFlag('2.3.9{0-9}{1}'))).toEqual(failed);
    expect(errorOf(regexFlag('(', 'not_regex'))).toEqual(failed);
    expect(validate(regexFlag('^[a-z]+@posthog\\.com$')).filters).toBeDefined();
    expect(validate(regexFlag('(', 'icontains')).filters).toBeDefined();
    expect(validate(regexFlag('('), { mode: 'patch', current: makeFlag() }).filters).toBeDefined();
  });
});

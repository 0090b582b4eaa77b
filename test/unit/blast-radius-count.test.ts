/**
 * The blast-radius table and counter: `PropertyTable` bookkeeping (rows replaced, removed and
 * reused; null versus absent; values told apart by type), and `countMatching` agreeing with the
 * flag engine person by person: for each scenario, the count equals the number of stored persons
 * (or groups) for which `evaluateFlags` enables a flag whose only condition holds the filters.
 */

import { describe, expect, it } from 'vitest';
import { countMatching, UnsupportedFilterError, type CountOptions } from '../../src/blast-radius/count-matching.js';
import { PropertyTable, type RowId } from '../../src/blast-radius/property-table.js';
import type { FlagFilters } from '../../src/flags/feature-flag.js';
import { compileSnapshot } from '../../src/flags/engine/compile-snapshot.js';
import { EvaluationFailure } from '../../src/flags/engine/evaluate-filters.js';
import { evaluateFlags } from '../../src/flags/engine/evaluate-flags.js';
import type { EvaluationErrorCode } from '../../src/flags/engine/reasons.js';
import type { CohortDefinition, CompiledFilter, FlagSnapshot } from '../../src/flags/engine/snapshot-types.js';
import { flagRecordWith } from '../fixtures/flag-record.js';

type Obj = Record<string, unknown>;

const NOW = new Date('2026-02-01T12:00:00Z');
/** Referenced by no filter, so the engine's `distinct_id` fallback never comes into play. */
const REQUEST_DISTINCT_ID = 'request-distinct-id';

/** The value id and value of `key` in the row of `id`. */
function cell(table: PropertyTable, id: RowId, key: string): { valueId: number; value: unknown } {
  const row = table.rowOf(id);
  if (row === undefined) throw new Error(`no row for ${String(id)}`);
  const column = table.column(key);
  const valueId = column !== undefined && row < column.ids.length ? (column.ids[row] as number) : 0;
  return { valueId, value: column?.values[valueId] };
}

describe('PropertyTable', () => {
  it("keeps a row's thousands of keys no other row has as those keys' entries, not as arrays of every row", () => {
    const table = new PropertyTable();
    for (let i = 0; i < 50_000; i++) table.upsert(i, { plan: i % 2 ? 'pro' : 'free', n: i });
    const made: Record<string, number> = {};
    for (let k = 0; k < 5_000; k++) made[`made-up-${k}`] = k;
    const before = process.memoryUsage().arrayBuffers;
    table.upsert('far', made); // the last row: dense, each key's array would span all 50,001 rows (1 GB)
    table.upsert(25, { plan: 'pro', 'made-up-7': 'x' });
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(32 * 2 ** 20);
    expect(cell(table, 'far', 'made-up-7').value).toBe(7);
    expect(cell(table, 25, 'made-up-7').value).toBe('x');
    expect(cell(table, 25, 'n').valueId).toBe(0); // dropped by the new bag
    table.upsert('far', { plan: 'free' });
    expect(cell(table, 'far', 'made-up-7').valueId).toBe(0);
    expect(cell(table, 'far', 'plan').value).toBe('free');
    // A key most rows hold turns dense and reads the same.
    for (let i = 0; i < 50_000; i += 2) table.upsert(i, { plan: 'free', n: i, later: i % 3 });
    expect(cell(table, 4, 'later').value).toBe(1);
    expect(cell(table, 5, 'later').valueId).toBe(0);
    expect(table.column('later')?.ids.length).toBeGreaterThanOrEqual(49_999);
  });

  it('inserts, replaces (dropped keys become absent), removes, and reuses freed rows', () => {
    const table = new PropertyTable();
    table.upsert('a', { plan: 'pro', age: '30' });
    table.upsert('b', { plan: 'free' });
    expect(table.size).toBe(2);
    expect(cell(table, 'a', 'plan').value).toBe('pro');

    table.upsert('a', { plan: 'free' });
    expect(table.size).toBe(2);
    expect(cell(table, 'a', 'age').valueId).toBe(0);
    expect(cell(table, 'a', 'plan').valueId).toBe(cell(table, 'b', 'plan').valueId);

    const rowOfA = table.rowOf('a');
    expect(table.remove('a')).toBe(true);
    expect(table.remove('a')).toBe(false);
    expect(table.size).toBe(1);
    expect(table.rowOf('a')).toBeUndefined();
    expect(table.liveMask[rowOfA as number]).toBe(0);

    table.upsert('c', { age: '41' });
    expect(table.rowOf('c')).toBe(rowOfA);
    expect(table.liveMask[rowOfA as number]).toBe(1);
    expect(cell(table, 'c', 'plan').valueId).toBe(0);
    expect(cell(table, 'c', 'age').value).toBe('41');
    expect(table.rowLimit).toBe(2);
  });

  it('rewrites a row: unchanged values keep their ids, changed ones move, dropped keys become absent', () => {
    const table = new PropertyTable();
    table.upsert('a', { plan: 'pro', n: 1, tags: ['x'], gone: true });
    table.upsert('b', { plan: 'free', n: 2, tags: ['y'] });
    const before = { plan: cell(table, 'a', 'plan').valueId, tags: cell(table, 'a', 'tags').valueId };
    // Equal values from another parse (new string objects, a new array): the same ids.
    table.upsert('a', JSON.parse('{"plan":"pro","n":2,"tags":["x"],"added":null}') as Record<string, unknown>);
    expect(cell(table, 'a', 'plan')).toEqual({ valueId: before.plan, value: 'pro' });
    expect(cell(table, 'a', 'tags')).toEqual({ valueId: before.tags, value: ['x'] });
    expect(cell(table, 'a', 'n').valueId).toBe(cell(table, 'b', 'n').valueId);
    expect(cell(table, 'a', 'gone').valueId).toBe(0);
    expect(cell(table, 'a', 'added').value).toBeNull();
    expect(cell(table, 'b', 'plan').value).toBe('free');
    // A value equal to another row's joins that row's id.
    table.upsert('a', { plan: 'free', n: 2, tags: ['y'] });
    for (const key of ['plan', 'n', 'tags']) expect(cell(table, 'a', key).valueId).toBe(cell(table, 'b', key).valueId);
    expect(cell(table, 'a', 'added').valueId).toBe(0);
  });

  it('keeps null apart from absent, and 1 apart from "1" (as values and as row ids)', () => {
    const table = new PropertyTable();
    table.upsert(1, { k: null });
    table.upsert('1', { k: 1 });
    table.upsert(2, { k: '1' });
    table.upsert(3, {});
    expect(table.size).toBe(4);
    expect(table.rowOf(1)).not.toBe(table.rowOf('1'));
    const nullCell = cell(table, 1, 'k');
    expect(nullCell.valueId).not.toBe(0);
    expect(nullCell.value).toBeNull();
    expect(cell(table, 3, 'k').valueId).toBe(0);
    expect(cell(table, '1', 'k').value).toBe(1);
    expect(cell(table, 2, 'k').value).toBe('1');
    expect(cell(table, '1', 'k').valueId).not.toBe(cell(table, 2, 'k').valueId);
  });

  it('dictionaries arrays and objects by canonical JSON, keeping the first value seen', () => {
    const table = new PropertyTable();
    const first = { a: 1, b: [1, { y: 2, x: null }] };
    table.upsert('p1', { v: first });
    table.upsert('p2', { v: { b: [1, { x: null, y: 2 }], a: 1 } });
    table.upsert('p3', { v: [1, 2] });
    table.upsert('p4', { v: [2, 1] });
    table.upsert('p5', { v: { a: '1', b: [1, { y: 2, x: null }] } });
    table.upsert('p6', { v: '{"a":1}' });
    table.upsert('p7', { v: {} });
    table.upsert('p8', { v: [] });
    expect(cell(table, 'p2', 'v').valueId).toBe(cell(table, 'p1', 'v').valueId);
    // A copy of the first (detachedCopy), with its keys in the first one's order.
    const kept = cell(table, 'p2', 'v').value;
    expect(kept).toStrictEqual(first);
    expect(JSON.stringify(kept)).toBe(JSON.stringify(first));
    const ids = ['p1', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8'].map((id) => cell(table, id, 'v').valueId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('reads own keys only, `__proto__` and `constructor` as ordinary keys', () => {
    const table = new PropertyTable();
    table.upsert('p', JSON.parse('{"__proto__": "x", "constructor": 1, "plan": "pro"}') as Obj);
    table.upsert('q', Object.assign(Object.create({ inherited: 1 }) as Obj, { plan: 'free' }));
    expect(cell(table, 'p', '__proto__').value).toBe('x');
    expect(cell(table, 'p', 'constructor').value).toBe(1);
    expect(cell(table, 'q', '__proto__').valueId).toBe(0);
    expect(table.column('inherited')).toBeUndefined();
    expect(table.column('toString')).toBeUndefined();
    expect(table.column('hasOwnProperty')).toBeUndefined();
  });

  it('grows columns and rows past their first allocation', () => {
    const table = new PropertyTable();
    for (let i = 0; i < 1000; i++) table.upsert(i, i % 100 === 99 ? { rare: i } : { n: i % 7 });
    expect(table.size).toBe(1000);
    expect(cell(table, 999, 'rare').value).toBe(999);
    expect(cell(table, 998, 'rare').valueId).toBe(0);
    expect(table.column('n')?.values.length).toBe(8);
  });
});

/** Deterministic PRNG (mulberry32). */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const op = (key: string, operator: string, value: unknown, type = 'person'): Obj => ({ key, operator, value, type });
const exact = (key: string, value: unknown): Obj => op(key, 'exact', value);
const inCohort = (id: number, operator?: string): Obj =>
  operator === undefined ? { key: 'id', type: 'cohort', value: id } : { key: 'id', type: 'cohort', value: id, operator };
const dependsOn = (id: number): Obj => ({ key: String(id), type: 'flag', operator: 'flag_evaluates_to', value: true });
const dynamic = (id: number, properties: unknown): CohortDefinition => ({ id, is_static: false, filters: { properties } });

const STATIC_COHORT = 2;

const COHORTS: CohortDefinition[] = [
  dynamic(1, {
    type: 'OR',
    values: [
      { type: 'AND', values: [exact('plan', 'pro'), { ...exact('country', 'FR'), negation: true }] },
      { type: 'AND', values: [exact('vip', true), op('age', 'gt', '20')] },
    ],
  }),
  { id: STATIC_COHORT, is_static: true, filters: {} },
  dynamic(3, {
    type: 'AND',
    values: [
      inCohort(1),
      { ...inCohort(STATIC_COHORT), negation: true },
      { type: 'OR', values: [op('app_version', 'semver_gte', '1.3.0'), op('email', 'icontains', 'example')] },
    ],
  }),
  dynamic(4, { type: 'OR', values: [exact('plan', 'pro'), inCohort(99)] }),
  dynamic(5, { type: 'AND', values: [inCohort(6)] }),
  dynamic(6, { type: 'OR', values: [inCohort(5)] }),
  { id: 7, is_static: false, filters: {} },
  dynamic(8, { type: 'AND', values: [{ type: 'OR', values: [] }, op('plan', 'is_not_set', 'is_not_set')] }),
  dynamic(9, { type: 'AND', values: [inCohort(1, 'not_in'), op('country', 'regex', '^[A-Z]{2}$')] }),
  dynamic(10, { type: 'OR', values: [inCohort(4)] }),
  { ...dynamic(11, { type: 'AND', values: [] }), deleted: true },
  dynamic(12, { type: 'AND', values: [exact('plan', 'pro'), dependsOn(1)] }),
  dynamic(13, { type: 'AND', values: [op('rare', 'is_not_set', 'is_not_set')] }),
];

interface Scenario {
  properties: Obj[];
  /** The engine fails the flag for some persons, with this code. */
  fails?: EvaluationErrorCode;
  /** The count may be 0 or everyone. */
  trivial?: true;
}

const SCENARIOS: Record<string, Scenario> = {
  'exact, scalar': { properties: [exact('plan', 'pro')] },
  'exact, list': { properties: [exact('country', ['DE', 'fr'])] },
  'exact, boolean (truthiness)': { properties: [exact('vip', true)] },
  'exact false': { properties: [exact('vip', false)] },
  'exact, number against numbers and numeric strings': { properties: [exact('id_like', 1)] },
  is_not: { properties: [op('plan', 'is_not', 'free')] },
  icontains: { properties: [op('email', 'icontains', 'EXAMPLE')] },
  'icontains on printed arrays and objects': { properties: [op('tags', 'icontains', '"b"')] },
  regex: { properties: [op('email', 'regex', '^user\\d+@')] },
  'regex on a printed null': { properties: [op('plan', 'regex', '^nu')] },
  'gt on numeric strings': { properties: [op('age', 'gt', '18')] },
  'lt with a number': { properties: [op('age', 'lt', 30)] },
  is_set: { properties: [op('plan', 'is_set', 'is_set')] },
  is_not_set: { properties: [op('plan', 'is_not_set', 'is_not_set')] },
  'is_date_before, relative': { properties: [op('signed_up', 'is_date_before', '-30d')] },
  'is_date_after, absolute': { properties: [op('signed_up', 'is_date_after', '2025-12-15')] },
  semver_gt: { properties: [op('app_version', 'semver_gt', '1.2.0')] },
  'several filters': { properties: [exact('plan', 'pro'), op('age', 'gt', '18'), op('email', 'icontains', 'example')] },
  'in a property cohort': { properties: [inCohort(1)] },
  'not_in a property cohort': { properties: [inCohort(1, 'not_in')] },
  'in a static cohort': { properties: [inCohort(STATIC_COHORT)] },
  'not_in a static cohort': { properties: [inCohort(STATIC_COHORT, 'not_in')] },
  'in a cohort referencing cohorts': { properties: [inCohort(3)] },
  'cohorts and properties': { properties: [op('country', 'is_not', 'US'), inCohort(3, 'not_in'), inCohort(9)] },
  'a cohort without filters': { properties: [inCohort(7)], trivial: true },
  'a cohort with an empty nested group': { properties: [inCohort(8)] },
  'a never-matching filter': {
    properties: [op('plan', 'is_set', 'is_set'), { key: 'x', type: 'behavioral', value: 'performed_event' }],
    trivial: true,
  },
  'no filters': { properties: [], trivial: true },
  'a missing cohort, reached': { properties: [exact('plan', 'pro'), inCohort(99)], fails: 'dependency_not_found_cohort' },
  'a missing cohort, not reached': { properties: [exact('plan', 'nobody'), inCohort(99)], trivial: true },
  'a deleted cohort': { properties: [inCohort(11)], fails: 'dependency_not_found_cohort' },
  'a cohort referencing a missing cohort': { properties: [inCohort(4)], fails: 'dependency_not_found_cohort' },
  'a cohort cycle': { properties: [inCohort(5, 'not_in')], fails: 'dependency_cycle_cohort' },
  'a cohort referencing a failing cohort': { properties: [inCohort(10)], fails: 'dependency_not_found_cohort' },
};

const POOLS: Record<string, readonly unknown[]> = {
  plan: ['free', 'pro', 'Pro', 'enterprise', null, 1],
  country: ['DE', 'FR', 'fr', 'US', 'GB', 'd e'],
  age: ['17', '18', '25', '40', ' 5', 'abc', 30, 18.5, null, '1e2'],
  signed_up: ['2026-01-05', '2025-12-01', '2026-01-20T10:00:00Z', 'not a date', 1735689600, '2025-06-30 12:00:00', null],
  app_version: ['1.2.3', '1.10.0', '2.0.0-beta.1', '1.2', 'v1.3.0', 'junk', 2, null],
  vip: [true, false, 'true', 'TRUE', 'false', 1, '1', null],
  tags: [['a', 'b'], ['b'], [], { k: 1 }, { k: 'b' }, 'b', null],
  id_like: [1, '1', '01', 1.5, null],
};

function randomPerson(rand: () => number, n: number): Obj {
  const person: Obj = {};
  const pick = <T>(pool: readonly T[]): T => pool[Math.floor(rand() * pool.length)] as T;
  for (const [key, pool] of Object.entries(POOLS)) if (rand() < 0.8) person[key] = pick(pool);
  if (rand() < 0.85) person.email = pick([`user${n}@example.com`, `Someone.${n}@PostHog.com`, 'admin@EXAMPLE.org', null]);
  return person;
}

/** A table after churn (replacements, removals, re-additions), and the persons it should hold. */
function churnedPersons(seed: number): { table: PropertyTable; persons: Map<RowId, Obj>; staticMembers: Set<RowId> } {
  const rand = prng(seed);
  const table = new PropertyTable();
  const persons = new Map<RowId, Obj>();
  const put = (id: RowId, person: Obj) => {
    table.upsert(id, person);
    persons.set(id, person);
  };
  const idOf = (i: number): RowId => (i % 2 === 0 ? i : `person-${i}`);
  for (let i = 0; i < 400; i++) put(idOf(i), randomPerson(rand, i));
  for (let i = 0; i < 400; i += 3) put(idOf(i), randomPerson(rand, i + 1000));
  const removed: RowId[] = [];
  for (let i = 1; i < 400; i += 7) {
    table.remove(idOf(i));
    persons.delete(idOf(i));
    removed.push(idOf(i));
  }
  for (let i = 0; i < removed.length; i += 2) put(removed[i] as RowId, randomPerson(rand, i + 2000));
  for (let i = 400; i < 430; i++) put(idOf(i), randomPerson(rand, i));
  const staticMembers = new Set<RowId>([...persons.keys()].filter(() => rand() < 0.25));
  for (const id of removed) staticMembers.add(id); // some removed for good: ignored
  staticMembers.add('not-a-person');
  return { table, persons, staticMembers };
}

function snapshotOf(scenarios: Record<string, { properties: Obj[] }>, extra: Partial<FlagFilters> = {}): FlagSnapshot {
  const flags = Object.entries(scenarios).map(([key, s], i) =>
    flagRecordWith({ id: i + 1, key, filters: { ...extra, groups: [{ properties: s.properties, rollout_percentage: 100 }] } }),
  );
  return compileSnapshot({ flags, cohorts: COHORTS, groupTypeMapping: { '0': 'company' }, version: 1 });
}

function filtersOf(snapshot: FlagSnapshot, key: string): readonly CompiledFilter[] {
  const flag = snapshot.byKey.get(key);
  if (flag === undefined || flag.broken !== null) throw new Error(`flag ${key} not evaluable`);
  return (flag.conditions[0] as (typeof flag.conditions)[number]).filters;
}

/** The engine's context for one person's properties (no groups). */
function personContext(person: Obj, isInStaticCohort: (cohortId: number) => boolean = () => false) {
  return { distinctId: REQUEST_DISTINCT_ID, personProperties: person, groups: {}, groupProperties: {}, now: NOW, isInStaticCohort };
}

/** The engine's answer over every row: persons enabled, and the failure code if any failed. */
function engineCount(snapshot: FlagSnapshot, key: string, contexts: Iterable<Parameters<typeof evaluateFlags>[1]>) {
  let enabled = 0;
  const failures = new Set<string>();
  for (const ctx of contexts) {
    const r = evaluateFlags(snapshot, { ...ctx, flagKeys: [key] }).get(key);
    if (r === undefined) throw new Error(`no result for ${key}`);
    if (r.failed === true) failures.add(r.error as string);
    else if (r.enabled) enabled++;
  }
  return { enabled, failures: [...failures] };
}

function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error('did not throw');
}

describe('countMatching agrees with the flag engine (persons)', () => {
  const { table, persons, staticMembers } = churnedPersons(20260201);
  const snapshot = snapshotOf(SCENARIOS);
  const options: CountOptions = {
    mode: 'person',
    now: NOW,
    staticMembers: (id) => (id === STATIC_COHORT ? staticMembers : []),
  };
  const contexts = [...persons].map(([id, person]) =>
    personContext(person, (cohortId) => cohortId === STATIC_COHORT && staticMembers.has(id)),
  );

  it('holds the persons left after churn', () => {
    expect(table.size).toBe(persons.size);
    expect(table.rowLimit).toBeLessThan(persons.size + 30);
  });

  for (const [key, scenario] of Object.entries(SCENARIOS)) {
    it(key, () => {
      const expected = engineCount(snapshot, key, contexts);
      const filters = filtersOf(snapshot, key);
      if (scenario.fails !== undefined) {
        expect(expected.failures).toEqual([scenario.fails]);
        const thrown = thrownBy(() => countMatching(table, filters, options));
        expect(thrown).toBeInstanceOf(EvaluationFailure);
        expect((thrown as EvaluationFailure).code).toBe(scenario.fails);
        return;
      }
      expect(expected.failures).toEqual([]);
      if (scenario.trivial !== true) {
        expect(expected.enabled).toBeGreaterThan(0);
        expect(expected.enabled).toBeLessThan(persons.size);
      }
      expect(countMatching(table, filters, options)).toBe(expected.enabled);
    });
  }

  it('rejects flag filters, also inside cohorts, and group filters', () => {
    const unsupported = snapshotOf({
      flag: { properties: [dependsOn(3)] },
      'flag in cohort': { properties: [exact('plan', 'pro'), inCohort(12)] },
      group: { properties: [op('employees', 'gt', '10', 'group')] },
    });
    for (const [key, type] of [
      ['flag', 'flag'],
      ['flag in cohort', 'flag'],
      ['group', 'group'],
    ]) {
      const thrown = thrownBy(() => countMatching(table, filtersOf(unsupported, key as string), options));
      expect(thrown).toBeInstanceOf(UnsupportedFilterError);
      expect((thrown as UnsupportedFilterError).filterType).toBe(type);
      expect((thrown as Error).message).toContain(`'${type}'`);
    }
  });

  it('reads rows past the end of a column as absent', () => {
    const sparse = new PropertyTable();
    sparse.upsert('first', { rare: 'x' });
    for (let i = 0; i < 99; i++) sparse.upsert(i, { n: i });
    expect((sparse.column('rare')?.ids.length ?? 0) < sparse.rowLimit).toBe(true);
    const rare = snapshotOf({
      'rare is x': { properties: [exact('rare', 'x')] },
      'rare is not x': { properties: [op('rare', 'is_not', 'x')] },
      'in a cohort of rare is not set': { properties: [inCohort(13)] },
    });
    expect(countMatching(sparse, filtersOf(rare, 'rare is x'), options)).toBe(1);
    expect(countMatching(sparse, filtersOf(rare, 'rare is not x'), options)).toBe(99);
    expect(countMatching(sparse, filtersOf(rare, 'in a cohort of rare is not set'), options)).toBe(99);
  });

  it('follows later upserts and removals', () => {
    const small = new PropertyTable();
    const filters = filtersOf(snapshot, 'exact, scalar');
    small.upsert('a', { plan: 'pro' });
    small.upsert('b', { plan: 'pro' });
    expect(countMatching(small, filters, options)).toBe(2);
    small.upsert('a', { plan: 'free' });
    small.remove('b');
    expect(countMatching(small, filters, options)).toBe(0);
    small.upsert('c', { plan: 'PRO' });
    expect(countMatching(small, filters, options)).toBe(1);
  });

  it('counts a column of values nearly all different (no longer looked up) as the engine matches them', () => {
    const uids = new PropertyTable();
    const people = new Map<RowId, Obj>();
    const put = (id: RowId, props: Obj) => {
      uids.upsert(id, props);
      people.set(id, props);
    };
    for (let i = 0; i < 12_000; i++) put(i, { uid: `u-${i}`, plan: i % 2 ? 'pro' : 'free' });
    // Equal values after the column stopped looking values up: each takes an id of its own.
    for (let i = 0; i < 30; i++) put(20_000 + i, { uid: 'u-7', plan: 'pro' });
    put(3, { uid: 'u-7' });
    const columnValues = uids.column('uid')?.values ?? [];
    expect(columnValues.filter((v) => v === 'u-7').length).toBeGreaterThan(1);
    const uidFlags = snapshotOf({
      'uid is u-7': { properties: [exact('uid', 'u-7')] },
      'uid is u-7 and pro': { properties: [exact('uid', 'u-7'), exact('plan', 'pro')] },
      'uid contains 99': { properties: [op('uid', 'icontains', '99')] },
      'uid is not u-7': { properties: [op('uid', 'is_not', 'u-7')] },
    });
    const contexts = [...people.values()].map((person) => personContext(person));
    for (const key of ['uid is u-7', 'uid is u-7 and pro', 'uid contains 99', 'uid is not u-7']) {
      const expected = engineCount(uidFlags, key, contexts);
      expect(expected.enabled, key).toBeGreaterThan(0);
      expect(countMatching(uids, filtersOf(uidFlags, key), options), key).toBe(expected.enabled);
    }
    expect(engineCount(uidFlags, 'uid is u-7', contexts).enabled).toBe(32);
  });
});

describe('countMatching agrees with the flag engine (groups)', () => {
  const company = (key: string, operator: string, value: unknown): Obj => ({
    ...op(key, operator, value, 'group'),
    group_type_index: 0,
  });
  const GROUP_SCENARIOS: Record<string, { properties: Obj[] }> = {
    'gt on numeric strings': { properties: [company('employees', 'gt', '20')] },
    icontains: { properties: [company('name', 'icontains', 'corp')] },
    is_not_set: { properties: [company('industry', 'is_not_set', 'is_not_set')] },
    'several filters': { properties: [company('plan', 'exact', ['pro', 'enterprise']), company('employees', 'lt', 1000)] },
  };
  const rand = prng(7);
  const groups = new Map<string, Obj>();
  const table = new PropertyTable();
  for (let i = 0; i < 200; i++) {
    const props: Obj = { name: rand() < 0.5 ? `Acme Corp ${i}` : `Shop ${i}` };
    if (rand() < 0.9) props.employees = ['5', '50', '500', 12, '5000', 'n/a', null][Math.floor(rand() * 7)];
    if (rand() < 0.6) props.industry = ['retail', 'tech', null][Math.floor(rand() * 3)];
    if (rand() < 0.8) props.plan = ['free', 'pro', 'enterprise'][Math.floor(rand() * 3)];
    groups.set(`company-${i}`, props);
    table.upsert(`company-${i}`, props);
  }
  const snapshot = snapshotOf(GROUP_SCENARIOS, { aggregation_group_type_index: 0 });
  const options: CountOptions = { mode: 'group', now: NOW, staticMembers: () => [] };
  const contexts = [...groups].map(([key, props]) => ({
    distinctId: REQUEST_DISTINCT_ID,
    personProperties: {},
    groups: { company: key },
    groupProperties: { company: props },
    now: NOW,
  }));

  for (const key of Object.keys(GROUP_SCENARIOS)) {
    it(key, () => {
      const expected = engineCount(snapshot, key, contexts);
      expect(expected.failures).toEqual([]);
      expect(expected.enabled).toBeGreaterThan(0);
      expect(expected.enabled).toBeLessThan(groups.size);
      expect(countMatching(table, filtersOf(snapshot, key), options)).toBe(expected.enabled);
    });
  }

  it('rejects person, cohort and flag filters', () => {
    const persons = snapshotOf({
      person: { properties: [exact('plan', 'pro')] },
      cohort: { properties: [inCohort(1)] },
      flag: { properties: [dependsOn(1)] },
    });
    for (const type of ['person', 'cohort', 'flag']) {
      const thrown = thrownBy(() => countMatching(table, filtersOf(persons, type), options));
      expect(thrown).toBeInstanceOf(UnsupportedFilterError);
      expect((thrown as UnsupportedFilterError).filterType).toBe(type);
    }
  });
});

describe('a chain of cohorts longer than the stack', () => {
  // Cohort 1: plan is pro; cohort i: in cohort i - 1 and age is not "13". Built by recursion, the
  // chain overflowed the stack, and every cohort's bitmap was kept (a row's byte per cohort).
  const length = 10_000;
  const cohorts: CohortDefinition[] = [dynamic(1, { type: 'AND', values: [{ type: 'AND', values: [exact('plan', 'pro')] }] })];
  for (let id = 2; id <= length; id++) {
    cohorts.push(dynamic(id, { type: 'AND', values: [{ type: 'AND', values: [inCohort(id - 1), op('age', 'is_not', '13')] }] }));
  }
  const snapshot = compileSnapshot({
    flags: [flagRecordWith({ id: 1, key: 'deep', filters: { groups: [{ properties: [inCohort(length)], rollout_percentage: 100 }] } })],
    cohorts,
    groupTypeMapping: {},
    version: 1,
  });
  const table = new PropertyTable();
  const persons = new Map<RowId, Obj>();
  const rand = prng(7);
  for (let i = 0; i < 300; i++) {
    const person = { plan: rand() < 0.5 ? 'pro' : 'free', age: String(10 + Math.floor(rand() * 8)) };
    persons.set(`p${i}`, person);
    table.upsert(`p${i}`, person);
  }
  const options: CountOptions = { mode: 'person', now: NOW, staticMembers: () => [] };

  it('counts as the engine evaluates, person by person', () => {
    const contexts = [...persons.values()].map((person) => personContext(person));
    const expected = engineCount(snapshot, 'deep', contexts);
    expect(expected.failures).toEqual([]);
    expect(expected.enabled).toBeGreaterThan(0);
    expect(countMatching(table, filtersOf(snapshot, 'deep'), options)).toBe(expected.enabled);
  });
});

/**
 * What the flag scenarios evaluate (50 active flags, mixed boolean, multivariate, property and
 * cohort conditions): the seeded persons' properties, two cohorts and the 50 flag bodies,
 * as the management API takes them. Pure data; bench/seed-flags.ts writes and posts it.
 */

export const PERSONS = 100_000;

/** `person-000000` … `person-099999`: fixed width, so bench/wrk/flags.lua bodies never change length. */
export function distinctIdOf(i: number): string {
  return `person-${String(i).padStart(6, '0')}`;
}

/** A well-spread number in [0, 1) from a person's index (murmur3's finalizer): no pattern in i mod n. */
function unit(i: number, salt: number): number {
  let h = Math.imul(i ^ salt, 0x9e3779b1);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 2 ** 32;
}

const pick = <T>(items: readonly T[], r: number): T => items[Math.floor(r * items.length)] as T;
const COUNTRIES = ['US', 'GB', 'DE', 'FR', 'IN', 'BR', 'JP', 'CA'] as const;
const DOMAINS = ['example.com', 'gmail.com', 'hedgerow.dev', 'corp.example.org'] as const;

/**
 * Person `i`'s properties, deterministic: plan free 60% / pro 30% / enterprise 10%, an email at
 * one of four domains, a country (missing for 10%, so `is_set` splits them) and an age 18–77.
 */
export function personProperties(i: number): Record<string, unknown> {
  const plan = unit(i, 1);
  return {
    plan: plan < 0.6 ? 'free' : plan < 0.9 ? 'pro' : 'enterprise',
    email: `${distinctIdOf(i)}@${pick(DOMAINS, unit(i, 2))}`,
    ...(unit(i, 3) < 0.9 ? { country: pick(COUNTRIES, unit(i, 4)) } : {}),
    age: 18 + Math.floor(unit(i, 5) * 60),
  };
}

type Json = Record<string, unknown>;
/** Comparison values are strings, as PostHog's API requires (it compares numerically at evaluation). */
type Operator = 'exact' | 'is_not' | 'icontains' | 'gt' | 'lt' | 'is_set';

const person = (key: string, operator: Operator, value: unknown = operator): Json => ({ key, type: 'person', operator, value });
const cohort = (id: number): Json => ({ key: 'id', type: 'cohort', value: id });
const group = (properties: Json[], rollout: number): Json => ({ properties, rollout_percentage: rollout });

/** Cohort filters in PostHog's shape: an OR of AND groups of person properties. */
function cohortBody(name: string, andGroups: Json[][]): Json {
  return { name, filters: { properties: { type: 'OR', values: andGroups.map((values) => ({ type: 'AND', values })) } } };
}

/** The two cohorts the cohort flags reference, created first: their ids go into the flags. */
export const COHORTS: readonly Json[] = [
  cohortBody('bench: pro plan', [[person('plan', 'exact', 'pro')]]),
  cohortBody('bench: US/GB or over 60', [[person('country', 'exact', ['US', 'GB'])], [person('age', 'gt', '60')]]),
];

const ROLLOUTS = [100, 0, 50, 25, 10, 75, 90, 5, 33, 66] as const;
const VARIANT_SPLITS = [
  [50, 50],
  [34, 33, 33],
  [25, 25, 25, 25],
  [90, 10],
  [20, 30, 50],
  [10, 20, 30, 40],
] as const;
const VARIANT_KEYS = ['control', 'test', 'test-2', 'test-3'] as const;

/** Person-property condition sets: several groups; exact, icontains, gt, lt, is_set and is_not. */
const PROPERTY_CONDITIONS: readonly ((scale: number) => Json[])[] = [
  (s) => [group([person('plan', 'exact', ['pro', 'enterprise'])], 100 * s)],
  (s) => [group([person('email', 'icontains', 'hedgerow.dev')], 100 * s), group([person('plan', 'exact', 'enterprise')], 50 * s)],
  (s) => [group([person('age', 'gt', '40')], 100 * s)],
  (s) => [group([person('country', 'is_set')], 30 * s), group([person('plan', 'is_not', 'free')], 10 * s)],
  (s) => [
    group([person('country', 'exact', ['DE', 'FR']), person('age', 'gt', '30')], 100 * s),
    group([person('plan', 'exact', 'pro')], 20 * s),
  ],
  (s) => [
    group([person('email', 'icontains', 'GMAIL')], 100 * s),
    group([person('age', 'lt', '25')], 100 * s),
    group([person('country', 'exact', 'JP')], 100 * s),
  ],
];

function multivariate(i: number): Json {
  const split = VARIANT_SPLITS[i % VARIANT_SPLITS.length] as readonly number[];
  return {
    variants: split.map((rollout_percentage, j) => ({ key: VARIANT_KEYS[j], name: `Variant ${j}`, rollout_percentage })),
  };
}

/**
 * 20 boolean rollouts, 12 multivariate, 12 person-property and 6 cohort flags (`cohortIds` from
 * creating COHORTS), all active. About a quarter carry payloads.
 */
export function flagBodies(cohortIds: readonly number[]): Json[] {
  const [pro, usOrOld] = cohortIds as [number, number];
  const nn = (i: number) => String(i).padStart(2, '0');
  const flags: Json[] = [];
  for (let i = 0; i < 20; i++) {
    flags.push({
      key: `bench-rollout-${nn(i)}`,
      name: `Rollout ${ROLLOUTS[i % ROLLOUTS.length]}%`,
      filters: {
        groups: [group([], ROLLOUTS[i % ROLLOUTS.length] as number)],
        ...(i % 4 === 0 ? { payloads: { true: JSON.stringify({ banner: `banner-${i}` }) } } : {}),
      },
    });
  }
  for (let i = 0; i < 12; i++) {
    flags.push({
      key: `bench-variant-${nn(i)}`,
      name: `Experiment ${i}`,
      filters: {
        groups: i % 3 === 2 ? [group([person('plan', 'exact', 'free')], 100), group([], 50)] : [group([], 100)],
        multivariate: multivariate(i),
        ...(i % 2 === 0 ? { payloads: { control: '"blue"', test: JSON.stringify({ color: 'green', size: i }) } } : {}),
      },
    });
  }
  for (let i = 0; i < 12; i++) {
    const conditions = PROPERTY_CONDITIONS[i % PROPERTY_CONDITIONS.length] as (scale: number) => Json[];
    flags.push({ key: `bench-property-${nn(i)}`, name: `Property flag ${i}`, filters: { groups: conditions(i < 6 ? 1 : 0.5) } });
  }
  const cohortGroups: Json[][] = [
    [group([cohort(pro)], 100)],
    [group([cohort(usOrOld)], 100)],
    [group([cohort(pro)], 50)],
    [group([cohort(usOrOld), person('age', 'gt', '30')], 100), group([cohort(pro)], 25)],
    [group([cohort(pro), person('country', 'exact', 'US')], 100)],
    [group([cohort(usOrOld)], 100)],
  ];
  cohortGroups.forEach((groups, i) => {
    flags.push({
      key: `bench-cohort-${nn(i)}`,
      name: `Cohort flag ${i}`,
      filters: { groups, ...(i === 5 ? { multivariate: multivariate(i) } : {}) },
    });
  });
  return flags;
}

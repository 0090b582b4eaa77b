/**
 * Property matching for remote evaluation against the flag vectors (test/fixtures/flags-vectors.json):
 * `operator_cases['server-rust']` must all pass; `operator_cases['posthog-node']` pass except the
 * named list below, where the Rust flags service answers differently
 * (docs/compatibility.md#property-matching); `relative_date_cases` and `semver_parse_cases`
 * likewise, with their exceptions named.
 */

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseFlagRelativeDate } from '../../src/compat/relative-date.js';
import { compilePropertyMatcher, NEVER_MATCHES, PROPERTY_OPERATORS } from '../../src/flags/engine/match-property.js';
import { resolveRelativeDate } from '../../src/flags/engine/property-date.js';
import type { PropertyFilter, PropertyMatcher } from '../../src/flags/engine/property-matcher.js';
import { toSemver } from '../../src/flags/engine/semver.js';

/**
 * Full-properties mode (what `/flags` uses once person properties are loaded): the filter's key
 * is looked up as an own property, so a missing key is `present: false`.
 */
function matchInProperties(matcher: PropertyMatcher, key: string, properties: Readonly<Record<string, unknown>>, now: Date): boolean {
  const present = Object.hasOwn(properties, key);
  return matcher(present ? properties[key] : undefined, present, now);
}

/**
 * The Rust service's partial-properties mode (docs/compatibility.md#property-matching), used when
 * only the request's override properties are known: a filter whose key is absent cannot be
 * decided (`undefined`; the caller loads the stored properties and evaluates in full mode). A
 * present key matches as usual.
 */
function matchOverridesOnly(
  matcher: PropertyMatcher,
  key: string,
  overrides: Readonly<Record<string, unknown>>,
  now: Date,
): boolean | undefined {
  if (!Object.hasOwn(overrides, key)) return undefined;
  return matcher(overrides[key], true, now);
}

interface OperatorCase {
  source: string;
  test: string;
  property: PropertyFilter;
  property_values: Record<string, unknown>;
  expected: boolean | 'inconclusive' | 'not_inconclusive' | 'error(inconclusive)';
  /** Rust's partial-properties mode: only request overrides are known. */
  partial_props?: boolean;
  frozen_now?: string;
}

interface RelativeDateCase {
  source: string;
  input: string;
  frozen_now: string;
  expected?: string | null;
  expected_equal_to_input?: string;
  expected_not_equal_to_input?: string;
}

interface SemverParseCase {
  source: string;
  input: string;
  expected: [number, number, number] | 'inconclusive';
}

const vectors = JSON.parse(readFileSync(new URL('../fixtures/flags-vectors.json', import.meta.url), 'utf8')) as {
  operator_cases: { 'server-rust': OperatorCase[]; 'posthog-node': OperatorCase[] };
  relative_date_cases: RelativeDateCase[];
  semver_parse_cases: SemverParseCase[];
};

const DEFAULT_NOW = new Date('2024-01-01T00:00:00Z');

/**
 * The posthog-node vectors encode JavaScript-only values: `{"$undefined": true}` is a property
 * set to `undefined`, which JSON cannot carry (a request has no such key), and `{"$date": iso}`
 * is a `Date`, which JSON carries as its ISO string.
 */
function wireProperties(values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      if ('$undefined' in value) continue;
      if ('$date' in value) {
        out[key] = (value as { $date: string }).$date;
        continue;
      }
    }
    out[key] = value;
  }
  return out;
}

function evaluate(c: OperatorCase): boolean | 'error(inconclusive)' {
  const matcher = compilePropertyMatcher(c.property);
  const now = c.frozen_now === undefined ? DEFAULT_NOW : new Date(c.frozen_now);
  const properties = wireProperties(c.property_values);
  if (c.partial_props === true) {
    return matchOverridesOnly(matcher, c.property.key, properties, now) ?? 'error(inconclusive)';
  }
  return matchInProperties(matcher, c.property.key, properties, now);
}

const label = (c: OperatorCase, i: number): string =>
  `#${i} ${c.test}: ${c.property.operator ?? 'exact'} ${JSON.stringify(c.property.value)} vs ${JSON.stringify(c.property_values)}`;

describe('operator_cases server-rust', () => {
  const cases = vectors.operator_cases['server-rust'];

  it('has the cases', () => {
    expect(cases.length).toBe(93);
  });

  it.each(cases.map((c, i) => [label(c, i), c] as const))('%s', (_name, c) => {
    expect(evaluate(c)).toBe(c.expected);
  });
});

/** Why the server's answer differs from posthog-node's local evaluation. */
const WHY = {
  missingKey:
    'SDK: a missing property is inconclusive (fall back to the server); the server with full properties ' +
    'answers: negative operators true, the rest false (docs/compatibility.md#property-matching)',
  undefinedIsAbsent:
    'a property set to undefined cannot travel in JSON, so the server sees no key: is_set false, ' +
    'negative operators true (docs/compatibility.md#property-matching); node treats undefined like null',
  nullIsText:
    'the server prints null as "null" and matches it as text; node answers false for null ' + '(docs/compatibility.md#property-matching)',
  numericOnly:
    'the server compares gt/gte/lt/lte numerically only; node falls back to parseFloat prefixes and ' +
    'string order (docs/compatibility.md#property-matching)',
  invalidDate: 'an unreadable date is a non-match on the server, inconclusive in the SDK (docs/compatibility.md#dates-and-versions)',
  realSemver:
    'the server uses real semver: pre-release ordering, more than three parts is not a version, an ' +
    'unreadable version is a non-match (docs/compatibility.md#dates-and-versions)',
  leadingZeros: 'the server strips leading zeros from version parts; the SDK rejects them (docs/compatibility.md#dates-and-versions)',
  unknownOperator:
    'SDK: an unknown operator is inconclusive (fall back to the server); the server itself has no ' +
    'fallback and Hedgerow never matches it (docs/compatibility.md#property-matching)',
} as const;

/** [vector index, operator, the server's answer, why it differs from the node expectation]. */
const NODE_EXCEPTIONS: ReadonlyArray<readonly [number, string, boolean, keyof typeof WHY]> = [
  [4, 'exact', false, 'missingKey'],
  [5, 'exact', false, 'missingKey'],
  [12, 'exact', false, 'missingKey'],
  [17, 'is_not', true, 'missingKey'],
  [18, 'is_not', true, 'missingKey'],
  [26, 'is_not', true, 'missingKey'],
  [30, 'is_set', false, 'undefinedIsAbsent'],
  [31, 'is_set', false, 'missingKey'],
  [32, 'is_set', false, 'missingKey'],
  [41, 'icontains', false, 'missingKey'],
  [42, 'icontains', false, 'missingKey'],
  [53, 'starts_with', false, 'missingKey'],
  [54, 'starts_with', false, 'missingKey'],
  [63, 'not_starts_with', true, 'missingKey'],
  [64, 'not_starts_with', true, 'missingKey'],
  [67, 'not_starts_with', true, 'nullIsText'],
  [68, 'not_starts_with', true, 'undefinedIsAbsent'],
  [75, 'ends_with', false, 'missingKey'],
  [76, 'ends_with', false, 'missingKey'],
  [86, 'not_ends_with', true, 'missingKey'],
  [87, 'not_ends_with', true, 'missingKey'],
  [90, 'not_ends_with', true, 'nullIsText'],
  [91, 'not_ends_with', true, 'undefinedIsAbsent'],
  [99, 'regex', false, 'missingKey'],
  [100, 'regex', false, 'missingKey'],
  [140, 'gt', false, 'numericOnly'], // "123aloha" is not a number
  [150, 'is_date_before', false, 'invalidDate'], // 62802180000012344 seconds is out of range
  [151, 'is_date_before', false, 'invalidDate'],
  [152, 'is_date_before', false, 'invalidDate'],
  [158, 'is_date_before', false, 'invalidDate'],
  [165, 'is_set', false, 'undefinedIsAbsent'],
  [191, 'is_set', false, 'undefinedIsAbsent'],
  [197, 'regex', true, 'nullIsText'], // ".+" finds "null"
  [209, 'gte', false, 'numericOnly'],
  [212, 'lte', false, 'numericOnly'],
  [215, 'lte', false, 'numericOnly'],
  [220, 'is_unknown', false, 'unknownOperator'],
  [221, 'gt', false, 'numericOnly'],
  [222, 'lt', false, 'numericOnly'],
  [223, 'gt', false, 'numericOnly'],
  [224, 'lt', false, 'numericOnly'],
  [228, 'exact', false, 'missingKey'],
  [230, 'is_set', false, 'undefinedIsAbsent'],
  [232, 'is_set', false, 'missingKey'],
  [237, 'semver_eq', false, 'realSemver'], // 1.2.3-alpha < 1.2.3
  [238, 'semver_eq', false, 'realSemver'],
  [305, 'semver_eq', false, 'missingKey'],
  [312, 'semver_eq', false, 'realSemver'],
  [313, 'semver_eq', false, 'realSemver'],
  [314, 'semver_eq', false, 'realSemver'],
  [320, 'semver_eq', false, 'realSemver'], // 1.2.3.4 is not a version
  [321, 'semver_eq', false, 'realSemver'],
  [323, 'semver_eq', false, 'realSemver'], // beta.1 and alpha.2 differ
  [372, 'semver_eq', true, 'leadingZeros'],
  [373, 'semver_eq', true, 'leadingZeros'],
  [374, 'semver_eq', true, 'leadingZeros'],
  [375, 'semver_eq', false, 'leadingZeros'], // 1.07.3 is 1.7.3
  [376, 'semver_eq', true, 'leadingZeros'],
  [377, 'semver_eq', false, 'leadingZeros'], // filter 1.07.3 is 1.7.3, property 1.8.0
  [378, 'semver_neq', true, 'leadingZeros'],
  [379, 'semver_gt', true, 'leadingZeros'],
  [380, 'semver_gte', true, 'leadingZeros'],
  [381, 'semver_lt', false, 'leadingZeros'],
  [382, 'semver_lte', false, 'leadingZeros'],
  [383, 'semver_tilde', false, 'leadingZeros'], // ~1.7.3 is <1.8.0
  [384, 'semver_caret', true, 'leadingZeros'],
  [385, 'semver_wildcard', true, 'leadingZeros'], // 01.* is 1.*
  [386, 'semver_wildcard', false, 'leadingZeros'], // 1.07.* is 1.7.*
];

describe('operator_cases posthog-node', () => {
  const cases = vectors.operator_cases['posthog-node'];
  const exceptions = new Map(NODE_EXCEPTIONS.map(([i, operator, server, why]) => [i, { operator, server, why }]));

  it('has the cases and a well-formed exception list', () => {
    expect(cases.length).toBe(387);
    expect(exceptions.size).toBe(NODE_EXCEPTIONS.length);
  });

  const agreeing = cases.flatMap((c, i) => (exceptions.has(i) ? [] : [[label(c, i), c] as const]));
  it.each(agreeing)('%s', (_name, c) => {
    const got = evaluate(c);
    if (c.expected === 'not_inconclusive') expect(typeof got).toBe('boolean');
    else expect(got).toBe(c.expected);
  });

  const differing = NODE_EXCEPTIONS.map(([i, operator, server, why]) => {
    const c = cases[i] as OperatorCase;
    return [`${label(c, i)} → server ${String(server)} (${why})`, c, operator, server] as const;
  });
  it.each(differing)('%s', (_name, c, operator, server) => {
    expect(c.property.operator ?? 'exact').toBe(operator);
    expect(c.expected).not.toBe(server); // the difference is real: a stale entry fails here
    expect(evaluate(c)).toBe(server);
  });
});

describe('relative_date_cases', () => {
  /**
   * Vector corrections: the "year parsing" block (feature-flags.spec.ts:4148-4154) runs with the
   * suite's clock, 2020-01-01T12:01:20.134Z; the extractor carried over the previous block's
   * `setSystemTime('2020-04-03')`. The expected dates only make sense with the suite's clock.
   */
  const FROZEN_NOW_CORRECTIONS: Readonly<Record<string, string>> = {
    'feature-flags.spec.ts:4148': '2020-01-01T12:01:20.134Z',
    'feature-flags.spec.ts:4149': '2020-01-01T12:01:20.134Z',
    'feature-flags.spec.ts:4150': '2020-01-01T12:01:20.134Z',
    'feature-flags.spec.ts:4151': '2020-01-01T12:01:20.134Z',
    'feature-flags.spec.ts:4153': '2020-01-01T12:01:20.134Z',
    'feature-flags.spec.ts:4154': '2020-01-01T12:01:20.134Z',
  };
  const nowOf = (c: RelativeDateCase): string => {
    const line = /feature-flags\.spec\.ts:\d+/.exec(c.source)?.[0];
    return (line !== undefined ? FROZEN_NOW_CORRECTIONS[line] : undefined) ?? c.frozen_now;
  };
  const resolve = (input: string, now: string): string | null => {
    const rel = parseFlagRelativeDate(input);
    const instant = rel === undefined ? undefined : resolveRelativeDate(rel, Date.parse(now), undefined);
    return instant === undefined ? null : new Date(instant).toISOString();
  };

  it('has the cases; every correction names a case', () => {
    expect(vectors.relative_date_cases.length).toBe(54);
    for (const line of Object.keys(FROZEN_NOW_CORRECTIONS)) {
      expect(vectors.relative_date_cases.some((c) => c.source.includes(`${line} `))).toBe(true);
    }
  });

  it.each(vectors.relative_date_cases.map((c) => [`${c.source}: ${c.input}`, c] as const))('%s', (_name, c) => {
    const now = nowOf(c);
    const got = resolve(c.input, now);
    if (c.expected_equal_to_input !== undefined) expect(got).toBe(resolve(c.expected_equal_to_input, now));
    else if (c.expected_not_equal_to_input !== undefined) {
      expect(got).not.toBe(resolve(c.expected_not_equal_to_input, now));
    } else if (c.expected === 'not_null') expect(got).not.toBeNull();
    else expect(got).toBe(c.expected);
  });
});

describe('semver_parse_cases', () => {
  /**
   * Vector correction: feature-flags.spec.ts:3634 writes '\t1.2.3\n' (a real tab and newline);
   * the extractor kept the escapes as text.
   */
  const realEscapes = (c: SemverParseCase): string =>
    c.source.includes('feature-flags.spec.ts:3634 ') ? c.input.replace('\\t', '\t').replace('\\n', '\n') : c.input;

  /**
   * posthog-node parsing vs the server's (docs/compatibility.md#dates-and-versions): input → the
   * server's answer.
   */
  const SERVER_DIFFERS: ReadonlyArray<readonly [string, [number, number, number] | 'inconclusive', string]> = [
    ['V1.2.3', 'inconclusive', 'the server strips only a lower-case v'],
    ['1.2.3.4', 'inconclusive', 'more than three parts is not a version on the server'],
    ['1.2.3.4.5.6', 'inconclusive', 'more than three parts is not a version on the server'],
    ['01.02.03', [1, 2, 3], 'the server strips leading zeros'],
    ['1.07.3', [1, 7, 3], 'the server strips leading zeros'],
    ['001.2.3', [1, 2, 3], 'the server strips leading zeros'],
  ];
  const differs = new Map(SERVER_DIFFERS.map(([input, server]) => [input, server]));
  const parse = (input: string): [number, number, number] | 'inconclusive' => {
    const v = toSemver(input);
    return v === undefined ? 'inconclusive' : [Number(v.major), Number(v.minor), Number(v.patch)];
  };

  it('has the cases', () => {
    expect(vectors.semver_parse_cases.length).toBe(30);
    for (const [input] of SERVER_DIFFERS) expect(vectors.semver_parse_cases.some((c) => c.input === input)).toBe(true);
  });

  it.each(vectors.semver_parse_cases.map((c) => [`${JSON.stringify(c.input)} → ${JSON.stringify(c.expected)}`, c] as const))(
    '%s',
    (_name, c) => {
      const server = differs.get(c.input);
      if (server === undefined) {
        expect(parse(realEscapes(c))).toEqual(c.expected);
      } else {
        expect(server).not.toEqual(c.expected);
        expect(parse(c.input)).toEqual(server);
      }
    },
  );

  it('keeps pre-release and build parts (they order versions on the server)', () => {
    expect(toSemver('1.2.3-rc.1+build.123')).toEqual({
      major: '1',
      minor: '2',
      patch: '3',
      pre: ['rc', '1'],
      build: ['build', '123'],
    });
  });
});

describe('compilePropertyMatcher rules beyond the vectors', () => {
  const NOW = new Date('2024-06-10T12:00:00Z');
  const match = (filter: Omit<PropertyFilter, 'key'>, properties: Record<string, unknown>, now = NOW): boolean =>
    matchInProperties(compilePropertyMatcher({ key: 'k', ...filter }), 'k', properties, now);

  it('leaves cohort and flag filters, and in/not_in/flag_evaluates_to, to the engine: never a match', () => {
    expect(compilePropertyMatcher({ key: 'id', type: 'cohort', value: 3, operator: 'in' })).toBe(NEVER_MATCHES);
    expect(compilePropertyMatcher({ key: 'id', type: 'cohort', value: 3, operator: 'not_in' })).toBe(NEVER_MATCHES);
    expect(compilePropertyMatcher({ key: '7', type: 'flag', value: true, operator: 'flag_evaluates_to' })).toBe(NEVER_MATCHES);
    expect(match({ operator: 'not_in', value: 3 }, {})).toBe(false);
    expect(match({ operator: 'flag_evaluates_to', value: true }, { k: true })).toBe(false);
  });

  it('a filter without a value matches nothing, negative operators included; is_set/is_not_set ignore it', () => {
    expect(match({ operator: 'is_not', value: null }, {})).toBe(false);
    expect(match({ operator: 'not_icontains' }, { k: 'x' })).toBe(false);
    expect(match({ operator: 'exact', value: null }, { k: null })).toBe(false);
    expect(match({ operator: 'is_set', value: null }, { k: 1 })).toBe(true);
    expect(match({ operator: 'is_not_set' }, {})).toBe(true);
  });

  it('looks keys up as own properties only', () => {
    expect(match({ operator: 'is_set', value: 'x' }, {})).toBe(false);
    expect(matchInProperties(compilePropertyMatcher({ key: 'toString', operator: 'is_set' }), 'toString', {}, NOW)).toBe(false);
    expect(matchOverridesOnly(compilePropertyMatcher({ key: 'constructor', value: 'x' }), 'constructor', {}, NOW)).toBe(undefined);
  });

  it('exact compares booleans and "true"/"false" as truthiness (Rust), lists and case-insensitively otherwise', () => {
    expect(match({ value: true }, { k: 'True' })).toBe(true);
    expect(match({ value: 'TRUE' }, { k: true })).toBe(true);
    expect(match({ value: ['true'] }, { k: true })).toBe(true);
    expect(match({ value: false }, { k: 'false' })).toBe(true);
    // Everything that is not truthy equals false, as in the Rust service.
    expect(match({ value: false }, { k: 'anything' })).toBe(true);
    expect(match({ value: 'false' }, { k: null })).toBe(true);
    expect(match({ value: true }, { k: 1 })).toBe(false);
    expect(match({ operator: 'is_not', value: true }, { k: 'yes' })).toBe(true);
    expect(match({ value: 1 }, { k: '1' })).toBe(true);
    expect(match({ value: [1, 'Two'] }, { k: 'two' })).toBe(true);
    expect(match({ value: 'ÉCOLE' }, { k: 'école' })).toBe(true);
    expect(match({ value: 'null' }, { k: null })).toBe(true);
    // The empty list is vacuously a list of booleans, so it stands for `true` (Rust's `all`).
    expect(match({ value: [] }, { k: 'us' })).toBe(false);
    expect(match({ value: [] }, { k: 'TRUE' })).toBe(true);
  });

  it('the icontains family lower-cases ASCII only', () => {
    expect(match({ operator: 'icontains', value: 'É' }, { k: 'école' })).toBe(false);
    expect(match({ operator: 'icontains', value: 'ÉC' }, { k: 'Éc' })).toBe(true);
    expect(match({ operator: 'not_icontains', value: 'x' }, {})).toBe(true);
    expect(match({ operator: 'icontains', value: 'true' }, { k: true })).toBe(true);
  });

  it('icontains_multi / not_icontains_multi', () => {
    expect(match({ operator: 'icontains_multi', value: ['foo', 'BAR'] }, { k: 'xbarx' })).toBe(true);
    expect(match({ operator: 'icontains_multi', value: ['foo'] }, { k: 'xbarx' })).toBe(false);
    expect(match({ operator: 'icontains_multi', value: [] }, { k: 'x' })).toBe(false);
    expect(match({ operator: 'icontains_multi', value: 'BA' }, { k: 'bar' })).toBe(true);
    expect(match({ operator: 'not_icontains_multi', value: ['foo'] }, { k: 'bar' })).toBe(true);
    expect(match({ operator: 'not_icontains_multi', value: ['foo'] }, {})).toBe(true);
  });

  it('an invalid regex matches nothing when the property is present; not_regex still matches a missing one', () => {
    expect(match({ operator: 'regex', value: '(' }, { k: '(' })).toBe(false);
    expect(match({ operator: 'not_regex', value: '(' }, { k: 'x' })).toBe(false);
    expect(match({ operator: 'not_regex', value: '(' }, {})).toBe(true);
    expect(match({ operator: 'regex', value: '^\\[1,"a"\\]$' }, { k: [1, 'a'] })).toBe(true);
    expect(match({ operator: 'regex', value: '^1\\.5$' }, { k: 1.5 })).toBe(true);
  });

  it('a pattern that backtracks exponentially answers at once, as fancy_regex bounds it (linear-time engine)', () => {
    const evil = 'a'.repeat(5000) + '!';
    const started = performance.now();
    expect(match({ operator: 'regex', value: '^(a+)+$' }, { k: evil })).toBe(false);
    expect(match({ operator: 'not_regex', value: '^(\\w+\\s?)*$' }, { k: evil })).toBe(true);
    expect(match({ operator: 'regex', value: '(x+x+)+y' }, { k: 'x'.repeat(5000) })).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(match({ operator: 'regex', value: '^(a+)+$' }, { k: 'aaaa' })).toBe(true);
  });

  it('back-references and lookaround, which fancy_regex supports, still match', () => {
    expect(match({ operator: 'regex', value: '^(\\w)\\1' }, { k: 'aab' })).toBe(true);
    expect(match({ operator: 'regex', value: '^(\\w)\\1' }, { k: 'abb' })).toBe(false);
    expect(match({ operator: 'regex', value: '^(?!test)' }, { k: 'prod' })).toBe(true);
    expect(match({ operator: 'regex', value: '^(?!test)' }, { k: 'testing' })).toBe(false);
    expect(match({ operator: 'regex', value: '(?<=@)example\\.com$' }, { k: 'a@example.com' })).toBe(true);
    expect(match({ operator: 'not_regex', value: '^(\\w)\\1' }, { k: 'abb' })).toBe(true);
    expect(match({ operator: 'not_regex', value: '(?<=@)example\\.com$' }, { k: 'a@example.com' })).toBe(false);
  });

  it('a back-reference or lookaround pattern gives up at the backtrack limit, matching nothing for regex or not_regex (the Rust service errors)', () => {
    // Unbounded, each of these takes V8 hours: 2^40 ways to split the a's.
    const evil = 'a'.repeat(40) + '!';
    const started = performance.now();
    expect(match({ operator: 'regex', value: '^(?=(a+)+$)' }, { k: evil })).toBe(false);
    expect(match({ operator: 'not_regex', value: '^(?=(a+)+$)' }, { k: evil })).toBe(false);
    expect(match({ operator: 'regex', value: '(?<=^(a+)+)!' }, { k: `b${evil}` })).toBe(false);
    expect(match({ operator: 'not_regex', value: '^((a+)+)\\1$' }, { k: evil })).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
    // The same patterns, where they need few steps, answer as usual.
    expect(match({ operator: 'regex', value: '^(?=(a+)+$)' }, { k: 'aaaa' })).toBe(true);
    expect(match({ operator: 'not_regex', value: '^(?=(a+)+$)' }, { k: 'aaab' })).toBe(true);
    expect(match({ operator: 'regex', value: '^((a+)+)\\1$' }, { k: 'aaaa' })).toBe(true);
    expect(match({ operator: 'regex', value: '(?<=^(a+)+)!' }, { k: 'aaa!' })).toBe(true);
  });

  it('matches code points, not UTF-16 halves, and keeps the JavaScript dialect checks', () => {
    expect(match({ operator: 'regex', value: '^.$' }, { k: '😀' })).toBe(true);
    expect(match({ operator: 'regex', value: '^\\p{L}+$' }, { k: 'Zürich' })).toBe(true);
    expect(match({ operator: 'regex', value: '2.3.9{0-9}{1}' }, { k: '2.3.9{0-9}' })).toBe(false); // invalid: vector 44
  });

  it('gt/gte/lt/lte are numeric only, on both sides', () => {
    expect(match({ operator: 'gt', value: '1e2' }, { k: 101 })).toBe(true);
    expect(match({ operator: 'lt', value: 10 }, { k: '-5' })).toBe(true);
    expect(match({ operator: 'gt', value: 'abc' }, { k: 'abd' })).toBe(false);
    expect(match({ operator: 'gt', value: 1 }, { k: true })).toBe(false);
    expect(match({ operator: 'gt', value: 1 }, { k: ' 2' })).toBe(false); // Rust does not trim numbers
    expect(match({ operator: 'lt', value: 1 }, { k: 'NaN' })).toBe(false);
    expect(match({ operator: 'gt', value: 1 }, { k: 'inf' })).toBe(true);
  });

  it('between / not_between: inclusive numeric range; malformed ranges match nothing', () => {
    for (const [value, inside] of [
      [70000, true],
      [80000, true],
      [75000, true],
      ['75000', true],
      [69999, false],
      [80001, false],
    ] as const) {
      expect(match({ operator: 'between', value: [70000, 80000] }, { k: value })).toBe(inside);
      expect(match({ operator: 'not_between', value: [70000, 80000] }, { k: value })).toBe(!inside);
    }
    expect(match({ operator: 'between', value: ['70000', '80000'] }, { k: 75000 })).toBe(true);
    expect(match({ operator: 'between', value: [1, 2] }, {})).toBe(false);
    expect(match({ operator: 'not_between', value: [1, 2] }, {})).toBe(true);
    expect(match({ operator: 'between', value: [1, 2] }, { k: 'abc' })).toBe(false);
    expect(match({ operator: 'not_between', value: [1, 2] }, { k: 'abc' })).toBe(false);
    expect(match({ operator: 'not_between', value: [1, 2] }, { k: 'NaN' })).toBe(false);
    for (const bad of [75000, [1], [1, 2, 3], ['a', 'b'], [2, 1], ['NaN', 3]]) {
      expect(match({ operator: 'between', value: bad }, { k: 1.5 })).toBe(false);
      expect(match({ operator: 'not_between', value: bad }, { k: 1.5 })).toBe(false);
    }
  });

  it('semver operators follow the Rust service', () => {
    const semver = (operator: string, value: unknown, version: unknown): boolean => match({ operator, value }, { k: version });
    expect(semver('semver_gt', '1.0.0', '1.0.0-alpha.1')).toBe(false);
    expect(semver('semver_gt', '1.0.0', '1.0.1-beta.2')).toBe(true);
    expect(semver('semver_lt', '1.0.0-alpha.1', '1.0.0-alpha.0')).toBe(true);
    expect(semver('semver_gt', 'v1.0.0', 'v1.0.1')).toBe(true);
    expect(semver('semver_gt', '1.0.0', ' 1.2.3')).toBe(true);
    expect(semver('semver_gt', '1.0.0', '1.2.3.4')).toBe(false);
    expect(semver('semver_gt', '1.0.0', '1..2.3')).toBe(false);
    expect(semver('semver_gt', '1.0.0', '1.-2.3')).toBe(false);
    expect(semver('semver_gt', '1.0.0', '01.02.03')).toBe(true);
    expect(semver('semver_gt', '3.9', '3.10')).toBe(true);
    for (const v of ['3.08', '3.8', '3.8.0', '3.9', '3.10', '4.0.0']) {
      expect(semver('semver_gte', '3.08', v)).toBe(true);
    }
    for (const v of ['3.07', '3.7', '2.48', '3.0']) expect(semver('semver_gte', '3.08', v)).toBe(false);
    expect(semver('semver_tilde', '3.08', '3.8.5')).toBe(true);
    expect(semver('semver_tilde', '3.08', '3.9.0')).toBe(false);
    expect(semver('semver_tilde', '1.2.3', '1.2.10')).toBe(true);
    expect(semver('semver_tilde', 'v1.2.3', 'v1.2.5')).toBe(true);
    expect(semver('semver_caret', '1.2.3', '1.10.5')).toBe(true);
    expect(semver('semver_tilde', '1.2.3-beta.1', '1.2.3-beta.2')).toBe(true);
    expect(semver('semver_tilde', '1.2.3-beta.1', '1.2.3')).toBe(true);
    expect(semver('semver_tilde', '1.2.3', '1.2.4-beta')).toBe(false); // pre-releases only match their own triple
    expect(semver('semver_caret', '1.2.3-beta.1', '1.2.3-beta.2')).toBe(true);
    expect(semver('semver_wildcard', '1.*.*', '1.99.99')).toBe(true);
    expect(semver('semver_wildcard', '*', '99.99.99')).toBe(true);
    expect(semver('semver_wildcard', '*', '1.0.0-alpha')).toBe(false);
    expect(semver('semver_wildcard', '1.*.3', '1.2.3')).toBe(false); // invalid pattern
    expect(semver('semver_wildcard', '3.*', '3.08')).toBe(true);
    expect(semver('semver_wildcard', '3.08.*', '3.8.5')).toBe(true);
    expect(semver('semver_wildcard', '3.08.*', '3.9.0')).toBe(false);
    expect(semver('semver_wildcard', '1.2', '1.9.0')).toBe(true); // no wildcard: a caret requirement
    expect(semver('semver_eq', '1.0.0+build.1', '1.0.0+build.2')).toBe(false); // build metadata takes part
    expect(semver('semver_gt', 'invalid-semver', '1.0.0')).toBe(false);
    expect(semver('semver_tilde', 'not-a-version', '1.0.0')).toBe(false);
    expect(semver('semver_eq', '1.0.0', 1)).toBe(true);
    expect(semver('semver_eq', '1.5.0', 1.5)).toBe(true);
  });

  it('dates: Unix seconds (numbers or numeric strings), RFC 3339, exact instants', () => {
    const exact = { operator: 'is_date_exact', value: '2024-03-21T00:00:00Z' };
    expect(match(exact, { k: '2024-03-21T00:00:00Z' })).toBe(true);
    expect(match(exact, { k: '2024-03-22T00:00:00Z' })).toBe(false);
    expect(match(exact, { k: 1710979200 })).toBe(true);
    expect(match(exact, { k: '1710979200' })).toBe(true);
    expect(match(exact, { k: 1710979200.0 })).toBe(true);
    expect(match(exact, { k: '2024-03-21T01:00:00+01:00' })).toBe(true);
    expect(match(exact, { k: '2024-03-21' })).toBe(true); // offset-less: team time zone (UTC here)
    expect(match(exact, { k: 'invalid-date' })).toBe(false);
    expect(match(exact, { k: true })).toBe(false);
    const after = { operator: 'is_date_after', value: '2027-03-21T00:00:00Z' };
    expect(match(after, { k: 1836277747 })).toBe(true);
    expect(match(after, { k: '1836277747' })).toBe(true);
    expect(match(after, { k: 1747793088 })).toBe(false);
    expect(match(after, { k: '1747793088' })).toBe(false);
    const joined = { operator: 'is_date_after', value: '2023-06-04' };
    expect(match(joined, { k: '2025-01-24T23:20:24.865148+00:00' })).toBe(true);
    expect(match(joined, { k: '2023-01-24T23:20:24.865148+00:00' })).toBe(false);
    // The filter value must be text.
    expect(match({ operator: 'is_date_before', value: 20220501 }, { k: '2020-01-01' })).toBe(false);
    expect(match({ operator: 'is_date_exact', value: '2024-03-21T00:00:00.0000001Z' }, { k: '2024-03-21T00:00:00Z' })).toBe(false);
  });

  it('dates: relative filter values against now, null and missing never match', () => {
    const before3d = { operator: 'is_date_before', value: '-3d' };
    expect(match(before3d, { k: new Date(NOW.getTime() - 4 * 86_400_000).toISOString() })).toBe(true);
    expect(match(before3d, { k: new Date(NOW.getTime() - 2 * 86_400_000).toISOString() })).toBe(false);
    expect(match(before3d, { k: (NOW.getTime() - 4 * 86_400_000) / 1000 })).toBe(true);
    expect(match(before3d, { k: null })).toBe(false);
    expect(match(before3d, {})).toBe(false);
    // The same compiled matcher follows `now`.
    const matcher = compilePropertyMatcher({ key: 'k', ...before3d });
    expect(matcher('2024-06-06T00:00:00Z', true, NOW)).toBe(true);
    expect(matcher('2024-06-06T00:00:00Z', true, new Date('2024-06-08T00:00:00Z'))).toBe(false);
  });

  it('dates: offset-less values and relative dates are read in the team time zone', () => {
    const la = { timezone: 'America/Los_Angeles' };
    const exactLa = compilePropertyMatcher({ key: 'k', operator: 'is_date_exact', value: '2024-06-03' }, la);
    expect(exactLa('2024-06-03T07:00:00Z', true, NOW)).toBe(true); // midnight PDT
    expect(exactLa('2024-06-03 00:00', true, NOW)).toBe(true); // both sides in the zone
    expect(exactLa('2024-06-03T00:00:00Z', true, NOW)).toBe(false);
    // -7d from 2024-06-10 02:00 Pacific is 2024-06-03 02:00 Pacific = 09:00 UTC.
    const exact7d = compilePropertyMatcher({ key: 'k', operator: 'is_date_exact', value: '-7d' }, la);
    expect(exact7d('2024-06-03T09:00:00Z', true, new Date('2024-06-10T09:00:00Z'))).toBe(true);
    // 02:30 on 2024-03-10 never happens in Los Angeles: no match; 01:30 on 2024-11-03 happens twice: the earlier.
    const gap = compilePropertyMatcher({ key: 'k', operator: 'is_date_before', value: '2030-01-01' }, la);
    expect(gap('2024-03-10 02:30:00', true, NOW)).toBe(false);
    expect(gap('2024-03-10 03:30:00', true, NOW)).toBe(true);
    const overlap = compilePropertyMatcher({ key: 'k', operator: 'is_date_exact', value: '2024-11-03 01:30:00' }, la);
    expect(overlap('2024-11-03T08:30:00Z', true, NOW)).toBe(true);
    expect(overlap('2024-11-03T09:30:00Z', true, NOW)).toBe(false);
    // An unknown zone name falls back to UTC.
    const unknown = compilePropertyMatcher({ key: 'k', operator: 'is_date_exact', value: '2024-06-03' }, { timezone: 'Mars/Olympus' });
    expect(unknown('2024-06-03T00:00:00Z', true, NOW)).toBe(true);
  });
});

describe('PROPERTY_OPERATORS (what flag writes accept)', () => {
  /** A filter value each operator can read. */
  const valueFor = (op: string): unknown => {
    if (op.includes('semver')) return op === 'semver_wildcard' ? '1.*' : '1.2.3';
    if (op.includes('date')) return '2024-01-01';
    if (op.includes('between')) return [1, 2];
    if (op.includes('multi')) return ['a'];
    if (['gt', 'gte', 'lt', 'lte'].includes(op)) return '5';
    return 'a';
  };

  it('lists exactly the operators that compile to a real matcher', () => {
    for (const operator of PROPERTY_OPERATORS) {
      const matcher = compilePropertyMatcher({ key: 'k', type: 'person', operator, value: valueFor(operator) } as PropertyFilter);
      expect({ operator, evaluated: matcher !== NEVER_MATCHES }).toEqual({ operator, evaluated: true });
    }
    for (const operator of ['bogus', 'min', 'max', 'is_cleaned_path_exact', 'in', 'flag_evaluates_to']) {
      expect(PROPERTY_OPERATORS.has(operator)).toBe(false);
      const matcher = compilePropertyMatcher({ key: 'k', type: 'person', operator, value: 'a' } as PropertyFilter);
      expect({ operator, evaluated: matcher !== NEVER_MATCHES }).toEqual({ operator, evaluated: false });
    }
  });
});

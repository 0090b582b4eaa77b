/**
 * Property filters compiled into matchers for remote evaluation, with the Rust flags service's
 * answers (docs/compatibility.md#property-matching).
 *
 * Compiling resolves the operator and prepares the filter value once: regex compiled, list
 * values printed and lower-cased, numbers, versions, requirements and absolute dates parsed.
 * The matcher then only reads the property value.
 *
 * Rules worth knowing (all from the Rust service):
 * * A missing property (`present` false) never matches, except the negative operators
 *   `is_not`, `not_icontains`, `not_regex`, `not_starts_with`, `not_ends_with`,
 *   `not_icontains_multi`, `not_between` and `is_not_set`, which match.
 * * A present null is the text `"null"`: `is_set` matches, `is_not "null"` does not,
 *   `icontains "nu"` does. Other non-strings are printed as JSON (`coerce.ts`).
 * * A filter whose `value` is null or absent matches nothing (`is_set`/`is_not_set` aside),
 *   even with a negative operator.
 * * `exact`/`is_not` compare lower-cased (Unicode) text; a list matches any element. If the filter
 *   value is a boolean, `"true"`/`"false"` (any case), or a list of only those (the empty list
 *   included), both sides are compared as truthiness instead: a property is truthy only when it
 *   is `true`, `"true"` (any case) or a list of truthy values, so `exact false` matches every
 *   other property value.
 * * `icontains`, `starts_with`, `ends_with` and their negations lower-case ASCII only.
 * * `regex`/`not_regex`: unanchored search in the printed value, case-sensitive; an invalid
 *   pattern, or a search that gives up (at its backtrack limit, or on a value too long for its
 *   bound: bounded-backtracking.ts), matches nothing for either operator (when the property is
 *   present).
 * * `gt`/`gte`/`lt`/`lte`/`between`: numbers only (JSON numbers or numeric strings, both sides);
 *   anything else does not match. `between` takes `[min, max]`, inclusive.
 * * Dates and semantic versions: `property-date.ts`, `semver.ts`; unreadable values do not match.
 * * Errors the Rust service raises while matching (unparsable numbers, versions or dates, an
 *   invalid `between` range) count as "no match", as its callers treat them.
 *
 * Not handled here (the engine's job): `type: "cohort"` and `type: "flag"` filters, and the
 * `in`/`not_in`/`flag_evaluates_to` operators, compile to a matcher that never matches; unknown
 * operators likewise. `negation` is ignored (cohort evaluation applies it to the result).
 */

import { parseDateparserForm } from '../../compat/dateparser-forms.js';
import { parseFlagRelativeDate } from '../../compat/relative-date.js';
import { compileFlagRegex } from '../flag-regex.js';
import { asciiLower, rustAsF64, rustValueString } from './coerce.js';
import {
  compareInstants,
  type Instant,
  instantOfMs,
  parseAbsoluteDateText,
  propertyDateInstant,
  resolveRelativeDate,
} from './property-date.js';
import type { PropertyFilter, PropertyMatcher } from './property-matcher.js';
import { compareSemver, semverRangeRequirement, semverSatisfies, toSemver } from './semver.js';
import { resolveTimeZone, type TimeZone } from './wall-clock.js';

export interface PropertyMatcherOptions {
  /** The team's IANA time zone: offset-less dates and relative dates are read in it. Default UTC. */
  timezone?: string;
}

/** The matcher of filters this module does not decide. */
export const NEVER_MATCHES: PropertyMatcher = () => false;

/** `true`, `"true"` in any case, or a list whose elements are all truthy (the empty list too). */
function isTruthy(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') return value.toLowerCase() === 'true';
  if (Array.isArray(value)) return value.every(isTruthy);
  return false;
}

function isTruthyOrFalsy(value: unknown): boolean {
  if (typeof value === 'boolean') return true;
  if (typeof value === 'string') {
    const lower = value.toLowerCase();
    return lower === 'true' || lower === 'false';
  }
  if (Array.isArray(value)) return value.every(isTruthyOrFalsy);
  return false;
}

/** `exact` (or `is_not` when `negate`). */
function exactMatcher(expected: unknown, negate: boolean): PropertyMatcher {
  if (isTruthyOrFalsy(expected)) {
    const want = isTruthy(expected);
    return (value, present) => (present ? isTruthy(value) === want : false) !== negate;
  }
  if (Array.isArray(expected)) {
    const options = new Set(expected.map((e) => rustValueString(e).toLowerCase()));
    return (value, present) => (present ? options.has(rustValueString(value).toLowerCase()) : false) !== negate;
  }
  const target = rustValueString(expected).toLowerCase();
  return (value, present) => (present ? rustValueString(value).toLowerCase() === target : false) !== negate;
}

type TextTest = (haystack: string, needle: string) => boolean;
const contains: TextTest = (h, n) => h.includes(n);
const startsWith: TextTest = (h, n) => h.startsWith(n);
const endsWith: TextTest = (h, n) => h.endsWith(n);

/** `icontains`/`starts_with`/`ends_with` (negated: `not_…`), ASCII case-insensitive. */
function textMatcher(expected: unknown, test: TextTest, negate: boolean): PropertyMatcher {
  const needle = asciiLower(rustValueString(expected));
  return (value, present) => (present ? test(asciiLower(rustValueString(value)), needle) : false) !== negate;
}

/** `icontains_multi` (negated: `not_icontains_multi`): any of the values is contained. */
function multiContainsMatcher(expected: unknown, negate: boolean): PropertyMatcher {
  const needles = (Array.isArray(expected) ? expected : [expected]).map((e) => asciiLower(rustValueString(e)));
  return (value, present) => {
    if (!present) return negate;
    const haystack = asciiLower(rustValueString(value));
    return needles.some((n) => haystack.includes(n)) !== negate;
  };
}

function regexMatcher(expected: unknown, negate: boolean): PropertyMatcher {
  const re = compileFlagRegex(rustValueString(expected));
  if (re === undefined) return (_value, present) => !present && negate;
  return (value, present) => {
    if (!present) return negate;
    const found = re.search(rustValueString(value));
    // A search that gave up is an error in the Rust service: no match for either operator.
    return found !== undefined && found !== negate;
  };
}

type NumberTest = (property: number, filter: number) => boolean;
const NUMBER_TESTS: Readonly<Record<string, NumberTest>> = {
  gt: (p, f) => p > f,
  gte: (p, f) => p >= f,
  lt: (p, f) => p < f,
  lte: (p, f) => p <= f,
};

function numberMatcher(expected: unknown, test: NumberTest): PropertyMatcher {
  const target = rustAsF64(expected);
  if (target === undefined) return NEVER_MATCHES;
  return (value, present) => {
    if (!present) return false;
    const n = rustAsF64(value);
    return n !== undefined && test(n, target);
  };
}

/** `between` (negated: `not_between`): `[min, max]`, inclusive, numbers only. */
function betweenMatcher(expected: unknown, negate: boolean): PropertyMatcher {
  let low: number | undefined;
  let high: number | undefined;
  if (Array.isArray(expected) && expected.length === 2) {
    low = rustAsF64(expected[0]);
    high = rustAsF64(expected[1]);
  }
  const valid = low !== undefined && high !== undefined && !Number.isNaN(low) && !Number.isNaN(high) && low <= high;
  return (value, present) => {
    if (!present) return negate;
    if (!valid) return false;
    const n = rustAsF64(value);
    if (n === undefined || Number.isNaN(n)) return false;
    return (n >= (low as number) && n <= (high as number)) !== negate;
  };
}

type SemverTest = (order: number) => boolean;
const SEMVER_TESTS: Readonly<Record<string, SemverTest>> = {
  semver_eq: (o) => o === 0,
  semver_neq: (o) => o !== 0,
  semver_gt: (o) => o > 0,
  semver_gte: (o) => o >= 0,
  semver_lt: (o) => o < 0,
  semver_lte: (o) => o <= 0,
};

function semverMatcher(expected: unknown, test: SemverTest): PropertyMatcher {
  const target = toSemver(expected);
  if (target === undefined) return NEVER_MATCHES;
  return (value, present) => {
    if (!present) return false;
    const version = toSemver(value);
    return version !== undefined && test(compareSemver(version, target));
  };
}

function semverRangeMatcher(expected: unknown, kind: 'tilde' | 'caret' | 'wildcard'): PropertyMatcher {
  const requirement = semverRangeRequirement(kind, expected);
  if (requirement === undefined) return NEVER_MATCHES;
  return (value, present) => {
    if (!present) return false;
    const version = toSemver(value);
    return version !== undefined && semverSatisfies(requirement, version);
  };
}

type DateTest = (order: number) => boolean;
const DATE_TESTS: Readonly<Record<string, DateTest>> = {
  is_date_before: (o) => o < 0,
  is_date_after: (o) => o > 0,
  is_date_exact: (o) => o === 0,
};

/**
 * The filter date at `nowMs`. Relative dates, and the `dateparser` forms that take the time of
 * day from `now` (compat/dateparser-forms.ts), are resolved once per distinct `now`.
 */
function filterDate(expected: string, zone: TimeZone): ((nowMs: number) => Instant | undefined) | undefined {
  const rel = parseFlagRelativeDate(expected);
  if (rel !== undefined) {
    return oncePerNow((nowMs) => {
      const ms = resolveRelativeDate(rel, nowMs, zone);
      return ms === undefined ? undefined : instantOfMs(ms);
    });
  }
  const instant = parseAbsoluteDateText(expected, zone);
  if (instant !== undefined) return () => instant;
  if (parseDateparserForm(expected, Date.now()) === undefined) return undefined;
  return oncePerNow((nowMs) => parseDateparserForm(expected, nowMs));
}

function oncePerNow(at: (nowMs: number) => Instant | undefined): (nowMs: number) => Instant | undefined {
  let lastNow = NaN;
  let last: Instant | undefined;
  return (nowMs) => {
    if (nowMs !== lastNow) {
      lastNow = nowMs;
      last = at(nowMs);
    }
    return last;
  };
}

function dateMatcher(expected: unknown, test: DateTest, zone: TimeZone): PropertyMatcher {
  if (typeof expected !== 'string') return NEVER_MATCHES;
  const target = filterDate(expected, zone);
  if (target === undefined) return NEVER_MATCHES;
  return (value, present, now) => {
    if (!present) return false;
    const nowMs = now.getTime();
    const instant = propertyDateInstant(value, zone, nowMs);
    if (instant === undefined) return false;
    const filterInstant = target(nowMs);
    return filterInstant !== undefined && test(compareInstants(instant, filterInstant));
  };
}

/**
 * Every operator `compilePropertyMatcher` evaluates (the Rust service's `OperatorType`, less the
 * engine's own `in`, `not_in` and `flag_evaluates_to`). Flag writes refuse any other (flag-filters.ts).
 */
export const PROPERTY_OPERATORS: ReadonlySet<string> = new Set([
  'exact',
  'is_not',
  'is_set',
  'is_not_set',
  'icontains',
  'not_icontains',
  'starts_with',
  'not_starts_with',
  'ends_with',
  'not_ends_with',
  'icontains_multi',
  'not_icontains_multi',
  'regex',
  'not_regex',
  'between',
  'not_between',
  'semver_tilde',
  'semver_caret',
  'semver_wildcard',
  ...Object.keys(NUMBER_TESTS),
  ...Object.keys(SEMVER_TESTS),
  ...Object.keys(DATE_TESTS),
]);

/** Compile one property filter of a condition (or of a cohort) for remote evaluation. */
export function compilePropertyMatcher(filter: PropertyFilter, options: PropertyMatcherOptions = {}): PropertyMatcher {
  if (filter.type === 'cohort' || filter.type === 'flag') return NEVER_MATCHES;
  const operator = filter.operator ?? 'exact';
  if (operator === 'is_set') return (_value, present) => present;
  if (operator === 'is_not_set') return (_value, present) => !present;
  const expected = filter.value;
  if (expected === undefined || expected === null) return NEVER_MATCHES;
  switch (operator) {
    case 'exact':
      return exactMatcher(expected, false);
    case 'is_not':
      return exactMatcher(expected, true);
    case 'icontains':
      return textMatcher(expected, contains, false);
    case 'not_icontains':
      return textMatcher(expected, contains, true);
    case 'starts_with':
      return textMatcher(expected, startsWith, false);
    case 'not_starts_with':
      return textMatcher(expected, startsWith, true);
    case 'ends_with':
      return textMatcher(expected, endsWith, false);
    case 'not_ends_with':
      return textMatcher(expected, endsWith, true);
    case 'icontains_multi':
      return multiContainsMatcher(expected, false);
    case 'not_icontains_multi':
      return multiContainsMatcher(expected, true);
    case 'regex':
      return regexMatcher(expected, false);
    case 'not_regex':
      return regexMatcher(expected, true);
    case 'between':
      return betweenMatcher(expected, false);
    case 'not_between':
      return betweenMatcher(expected, true);
    case 'semver_tilde':
      return semverRangeMatcher(expected, 'tilde');
    case 'semver_caret':
      return semverRangeMatcher(expected, 'caret');
    case 'semver_wildcard':
      return semverRangeMatcher(expected, 'wildcard');
    default:
      break;
  }
  const numberTest = NUMBER_TESTS[operator];
  if (numberTest !== undefined) return numberMatcher(expected, numberTest);
  const semverTest = SEMVER_TESTS[operator];
  if (semverTest !== undefined) return semverMatcher(expected, semverTest);
  const dateTest = DATE_TESTS[operator];
  if (dateTest !== undefined) return dateMatcher(expected, dateTest, resolveTimeZone(options.timezone));
  return NEVER_MATCHES; // in, not_in, flag_evaluates_to, unknown operators
}

/**
 * Semantic versions for the `semver_*` operators as the Rust flags service reads them
 * (docs/compatibility.md#dates-and-versions): real SemVer 2.0 (pre-release ordering applies,
 * `1.2.3-alpha < 1.2.3`), not the SDKs' (major, minor, patch) tuples.
 *
 * A value is read as: its string form (numbers printed, `coerce.ts`), one leading lower-case `v`
 * dropped, whitespace trimmed, then canonicalised: the numeric core (before the first `-` or
 * `+`) has leading zeros stripped from all-digit parts and is padded to three parts
 * (`3.08` → `3.8.0`, `1` → `1.0.0`), the `-pre`/`+build` suffix is kept. The result must be
 * strict SemVer: `1.2.3.4`, `1..2`, `V1.2.3` and `1.2.3alpha` are not versions.
 *
 * `semver_tilde`/`semver_caret` build the requirement `~<canonical>`/`^<canonical>`;
 * `semver_wildcard` uses the value itself (zeros stripped per part, `*` read as `x`), so `1.*`,
 * `1.2.*`, `1.*.*` and `*` are ranges, `1.*.3` is invalid, and a value without a wildcard is a
 * caret requirement. Requirements follow Cargo's rules, including that a pre-release version
 * only satisfies a requirement naming a pre-release of the same major.minor.patch.
 */

import { rustTrim, rustValueString } from './coerce.js';

export interface SemVer {
  /** Numeric parts as canonical decimal strings (no leading zeros), compared by value. */
  readonly major: string;
  readonly minor: string;
  readonly patch: string;
  /** Pre-release identifiers (`alpha`, `1`); empty for a release. */
  readonly pre: readonly string[];
  /** Build metadata identifiers; they take part in equality and ordering as in Rust's `semver`. */
  readonly build: readonly string[];
}

const U64_MAX = '18446744073709551615';
const DIGITS = /^[0-9]+$/;
const IDENTIFIER = /^[0-9A-Za-z-]+$/;

function compareDigits(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A u64 numeric part without leading zeros, or `undefined`. */
function numericPart(s: string): string | undefined {
  if (!DIGITS.test(s)) return undefined;
  if (s.length > 1 && s.charCodeAt(0) === 48) return undefined;
  if (s.length > U64_MAX.length || (s.length === U64_MAX.length && s > U64_MAX)) return undefined;
  return s;
}

function identifiers(s: string, rejectLeadingZero: boolean): string[] | undefined {
  const parts = s.split('.');
  for (const part of parts) {
    if (!IDENTIFIER.test(part)) return undefined;
    if (rejectLeadingZero && part.length > 1 && part.charCodeAt(0) === 48 && DIGITS.test(part)) return undefined;
  }
  return parts;
}

/** Strict `MAJOR.MINOR.PATCH[-pre][+build]`, as Rust's `semver::Version::parse`. */
export function parseStrictSemver(text: string): SemVer | undefined {
  let rest = text;
  let build: string[] = [];
  const plus = rest.indexOf('+');
  if (plus >= 0) {
    const parsed = identifiers(rest.slice(plus + 1), false);
    if (parsed === undefined) return undefined;
    build = parsed;
    rest = rest.slice(0, plus);
  }
  let pre: string[] = [];
  const dash = rest.indexOf('-');
  if (dash >= 0) {
    const parsed = identifiers(rest.slice(dash + 1), true);
    if (parsed === undefined) return undefined;
    pre = parsed;
    rest = rest.slice(0, dash);
  }
  const core = rest.split('.');
  if (core.length !== 3) return undefined;
  const major = numericPart(core[0] as string);
  const minor = numericPart(core[1] as string);
  const patch = numericPart(core[2] as string);
  if (major === undefined || minor === undefined || patch === undefined) return undefined;
  return { major, minor, patch, pre, build };
}

/** Strip leading zeros from an all-digit part (`08` → `8`, `000` → `0`); other parts unchanged. */
function stripLeadingZeros(part: string): string {
  if (!DIGITS.test(part)) return part;
  const trimmed = part.replace(/^0+/, '');
  return trimmed === '' ? '0' : trimmed;
}

/** Drop one leading `v`, then trim (in that order, as the Rust service does). */
function normalizeVersionText(value: unknown): string {
  const s = rustValueString(value);
  return rustTrim(s.startsWith('v') ? s.slice(1) : s);
}

/** Pad the numeric core to three parts and strip leading zeros; the suffix is kept. */
function canonicalize(version: string): string {
  const cut = version.search(/[-+]/);
  const core = cut >= 0 ? version.slice(0, cut) : version;
  const suffix = cut >= 0 ? version.slice(cut) : '';
  const parts = core.split('.').map(stripLeadingZeros);
  while (parts.length < 3) parts.push('0');
  return parts.join('.') + suffix;
}

/** A property or filter value as a version, or `undefined` when it is not one. */
export function toSemver(value: unknown): SemVer | undefined {
  return parseStrictSemver(canonicalize(normalizeVersionText(value)));
}

function comparePre(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return b.length - a.length; // a release sorts after its pre-releases
  return compareIdentifiers(a, b, false);
}

function compareIdentifiers(a: readonly string[], b: readonly string[], build: boolean): number {
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as string;
    const y = b[i];
    if (y === undefined) return 1;
    const xNum = DIGITS.test(x);
    const yNum = DIGITS.test(y);
    let order: number;
    if (xNum && yNum) {
      if (build) {
        // Build metadata may carry leading zeros: 0 < 00 < 1 < 01.
        const xv = x.replace(/^0+/, '');
        const yv = y.replace(/^0+/, '');
        order = compareDigits(xv, yv) || x.length - y.length;
      } else {
        order = compareDigits(x, y);
      }
    } else if (xNum) {
      return -1;
    } else if (yNum) {
      return 1;
    } else {
      order = compareText(x, y);
    }
    if (order !== 0) return order;
  }
  return a.length === b.length ? 0 : -1;
}

function compareBuild(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return a.length - b.length; // no metadata sorts first
  return compareIdentifiers(a, b, true);
}

/** Total order of Rust's `semver::Version`: numbers, then pre-release, then build metadata. */
export function compareSemver(a: SemVer, b: SemVer): number {
  return (
    compareDigits(a.major, b.major) ||
    compareDigits(a.minor, b.minor) ||
    compareDigits(a.patch, b.patch) ||
    comparePre(a.pre, b.pre) ||
    compareBuild(a.build, b.build)
  );
}

type Op = 'exact' | 'greater' | 'greaterEq' | 'less' | 'lessEq' | 'tilde' | 'caret' | 'wildcard';

/** One comparator of a requirement; an absent minor/patch is a wildcard. */
interface Comparator {
  readonly op: Op;
  readonly major: string;
  readonly minor: string | undefined;
  readonly patch: string | undefined;
  readonly pre: readonly string[];
}

/** A parsed requirement: every comparator must match. Empty = `*` (any release). */
export type SemverRequirement = readonly Comparator[];

const OPS: ReadonlyArray<readonly [string, Op]> = [
  ['>=', 'greaterEq'],
  ['<=', 'lessEq'],
  ['>', 'greater'],
  ['<', 'less'],
  ['=', 'exact'],
  ['~', 'tilde'],
  ['^', 'caret'],
];

const isWildcard = (c: string | undefined): boolean => c === '*' || c === 'x' || c === 'X';
const skipSpaces = (s: string, at: number): number => {
  while (s.charCodeAt(at) === 32) at++;
  return at;
};

/** Cursor-based parser for Cargo-style requirements (`~1.2.3`, `1.x`, `>=1.2, <2`). */
class RequirementParser {
  at = 0;
  constructor(private readonly s: string) {}

  number(): string | undefined {
    const start = this.at;
    while (this.at < this.s.length && this.s.charCodeAt(this.at) >= 48 && this.s.charCodeAt(this.at) <= 57) this.at++;
    return numericPart(this.s.slice(start, this.at));
  }

  /** Dot-separated identifiers for a pre-release or build suffix. */
  identifiers(rejectLeadingZero: boolean): string[] | undefined {
    const start = this.at;
    while (this.at < this.s.length && /[0-9A-Za-z.-]/.test(this.s[this.at] as string)) this.at++;
    return identifiers(this.s.slice(start, this.at), rejectLeadingZero);
  }

  comparator(): Comparator | undefined {
    let op: Op | undefined;
    for (const [text, name] of OPS) {
      if (this.s.startsWith(text, this.at)) {
        op = name;
        this.at += text.length;
        break;
      }
    }
    const defaultOp = op === undefined;
    this.at = skipSpaces(this.s, this.at);
    const major = this.number();
    if (major === undefined) return undefined;
    let minor: string | undefined;
    let patch: string | undefined;
    let wildcardSeen = false;
    if (this.s[this.at] === '.') {
      this.at++;
      if (isWildcard(this.s[this.at])) {
        this.at++;
        wildcardSeen = true;
        if (defaultOp) op = 'wildcard';
      } else {
        minor = this.number();
        if (minor === undefined) return undefined;
      }
      if (this.s[this.at] === '.') {
        this.at++;
        if (isWildcard(this.s[this.at])) {
          this.at++;
          if (defaultOp) op = 'wildcard';
        } else if (wildcardSeen) {
          return undefined;
        } else {
          patch = this.number();
          if (patch === undefined) return undefined;
        }
      }
    }
    let pre: string[] = [];
    if (patch !== undefined && this.s[this.at] === '-') {
      this.at++;
      const parsed = this.identifiers(true);
      if (parsed === undefined) return undefined;
      pre = parsed;
    }
    if (patch !== undefined && this.s[this.at] === '+') {
      this.at++;
      if (this.identifiers(false) === undefined) return undefined;
    }
    this.at = skipSpaces(this.s, this.at);
    return { op: op ?? 'caret', major, minor, patch, pre };
  }

  requirement(): SemverRequirement | undefined {
    this.at = skipSpaces(this.s, 0);
    if (isWildcard(this.s[this.at])) {
      return skipSpaces(this.s, this.at + 1) === this.s.length ? [] : undefined;
    }
    const comparators: Comparator[] = [];
    for (;;) {
      const c = this.comparator();
      if (c === undefined) return undefined;
      comparators.push(c);
      if (this.at === this.s.length) return comparators;
      if (this.s[this.at] !== ',') return undefined;
      this.at = skipSpaces(this.s, this.at + 1);
    }
  }
}

/** A Cargo-style requirement as Rust's `semver::VersionReq::parse` reads it, or `undefined`. */
export function parseSemverRequirement(text: string): SemverRequirement | undefined {
  return new RequirementParser(text).requirement();
}

function samePre(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function matchesExact(c: Comparator, v: SemVer): boolean {
  if (v.major !== c.major) return false;
  if (c.minor !== undefined && v.minor !== c.minor) return false;
  if (c.patch !== undefined && v.patch !== c.patch) return false;
  return samePre(v.pre, c.pre);
}

function matchesGreater(c: Comparator, v: SemVer): boolean {
  if (v.major !== c.major) return compareDigits(v.major, c.major) > 0;
  if (c.minor === undefined) return false;
  if (v.minor !== c.minor) return compareDigits(v.minor, c.minor) > 0;
  if (c.patch === undefined) return false;
  if (v.patch !== c.patch) return compareDigits(v.patch, c.patch) > 0;
  return comparePre(v.pre, c.pre) > 0;
}

function matchesLess(c: Comparator, v: SemVer): boolean {
  if (v.major !== c.major) return compareDigits(v.major, c.major) < 0;
  if (c.minor === undefined) return false;
  if (v.minor !== c.minor) return compareDigits(v.minor, c.minor) < 0;
  if (c.patch === undefined) return false;
  if (v.patch !== c.patch) return compareDigits(v.patch, c.patch) < 0;
  return comparePre(v.pre, c.pre) < 0;
}

function matchesTilde(c: Comparator, v: SemVer): boolean {
  if (v.major !== c.major) return false;
  if (c.minor !== undefined && v.minor !== c.minor) return false;
  if (c.patch !== undefined && v.patch !== c.patch) return compareDigits(v.patch, c.patch) > 0;
  return comparePre(v.pre, c.pre) >= 0;
}

function matchesCaret(c: Comparator, v: SemVer): boolean {
  if (v.major !== c.major) return false;
  if (c.minor === undefined) return true;
  if (c.patch === undefined) return c.major !== '0' ? compareDigits(v.minor, c.minor) >= 0 : v.minor === c.minor;
  if (c.major !== '0') {
    if (v.minor !== c.minor) return compareDigits(v.minor, c.minor) > 0;
    if (v.patch !== c.patch) return compareDigits(v.patch, c.patch) > 0;
  } else if (c.minor !== '0') {
    if (v.minor !== c.minor) return false;
    if (v.patch !== c.patch) return compareDigits(v.patch, c.patch) > 0;
  } else if (v.minor !== c.minor || v.patch !== c.patch) {
    return false;
  }
  return comparePre(v.pre, c.pre) >= 0;
}

function matchesComparator(c: Comparator, v: SemVer): boolean {
  switch (c.op) {
    case 'exact':
    case 'wildcard':
      return matchesExact(c, v);
    case 'greater':
      return matchesGreater(c, v);
    case 'greaterEq':
      return matchesExact(c, v) || matchesGreater(c, v);
    case 'less':
      return matchesLess(c, v);
    case 'lessEq':
      return matchesExact(c, v) || matchesLess(c, v);
    case 'tilde':
      return matchesTilde(c, v);
    case 'caret':
      return matchesCaret(c, v);
  }
}

/** Whether the version satisfies the requirement (Cargo's pre-release rule included). */
export function semverSatisfies(req: SemverRequirement, v: SemVer): boolean {
  for (const c of req) if (!matchesComparator(c, v)) return false;
  if (v.pre.length === 0) return true;
  return req.some((c) => c.pre.length > 0 && c.major === v.major && c.minor === v.minor && c.patch === v.patch);
}

/** The requirement a `semver_tilde`/`semver_caret`/`semver_wildcard` filter value stands for. */
export function semverRangeRequirement(kind: 'tilde' | 'caret' | 'wildcard', value: unknown): SemverRequirement | undefined {
  const normalized = normalizeVersionText(value);
  if (kind === 'wildcard') {
    return parseSemverRequirement(normalized.split('.').map(stripLeadingZeros).join('.').replaceAll('*', 'x'));
  }
  return parseSemverRequirement(`${kind === 'tilde' ? '~' : '^'}${canonicalize(normalized)}`);
}

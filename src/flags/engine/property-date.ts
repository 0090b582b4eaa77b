/**
 * Dates for `is_date_before` / `is_date_after` / `is_date_exact` at evaluation time, read the
 * way the Rust flags service reads them (docs/compatibility.md#dates-and-versions).
 *
 * Date text (the filter value, or a property value that is not a number) is tried in order as:
 * 1. a relative date (`-7d`, compat/relative-date.ts), anchored to `now` in the team time zone;
 * 2. RFC 3339 with an offset (`2024-06-01T10:00:00.5+02:00`, `T`/`t`/space separator, `Z`/`z`);
 * 3. an offset-less `YYYY-MM-DD`, `YYYY-MM-DD[T| ]HH:MM[:SS[.f]]`, read in the team time zone;
 * 4. other common forms (`2022-04-05 12:34:12 +01:00`, `... GMT`, `2024/06/01`, `MM/DD/YYYY`,
 *    RFC 2822, epoch digits) via compat/parse-date.ts, offset-less ones read as UTC;
 * 5. the Rust service hands those last steps to the `dateparser` crate, which knows more forms:
 *    month names (`May 25, 2021`), zone abbreviations (`2021-02-21 PST`), 12-hour clocks,
 *    two-digit years, read as the crate reads them (compat/dateparser-forms.ts).
 * A property value that is a number, or a string Rust parses as a float (`"1710979200"`,
 * `"1e9"`), is Unix seconds, fractions kept.
 *
 * Instants keep nanoseconds, as the Rust service's do: whole epoch milliseconds plus the
 * nanoseconds within the millisecond.
 */

import { daysFromCivil, fieldsToMs } from '../../compat/civil-date.js';
import { type Instant, parseDateparserForm } from '../../compat/dateparser-forms.js';
import { parseDateMs } from '../../compat/parse-date.js';
import { type FlagRelativeDate, parseFlagRelativeDate, subtractRelative } from '../../compat/relative-date.js';
import { rustParseF64 } from './coerce.js';
import { instantOfWallClock, type TimeZone, wallClockOf } from './wall-clock.js';

/** Rust's `char::is_whitespace`, which chrono skips before each number. */
const W = '[\\t\\n\\v\\f\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';

const RFC_3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+\-\u2212])(\d{2}):(\d{2}))$/;
/** chrono's `%Y-%m-%d`: 1-4 digit year, 1-2 digit month and day, whitespace allowed before each number. */
const YMD = `${W}*(\\d{1,4})-${W}*(\\d{1,2})-${W}*(\\d{1,2})`;
/** `%H:%M[:%S[%.f]]` after a `T` or any (even no) whitespace. */
const HMS = `T?${W}*(\\d{1,2}):${W}*(\\d{1,2})(?::${W}*(\\d{1,2})(?:\\.(\\d+))?)?`;
const NAIVE_DATE = new RegExp(`^${YMD}$`);
const NAIVE_DATE_TIME = new RegExp(`^${YMD}${HMS}$`);

/** Chrono's range (years -262143 to 262142), as epoch seconds. */
const MIN_SECONDS = daysFromCivil(-262_143, 1, 1) * 86_400;
const MAX_SECONDS = daysFromCivil(262_142, 12, 31) * 86_400 + 86_399;

export type { Instant };

/** Order of two instants (negative, zero, positive). */
export function compareInstants(a: Instant, b: Instant): number {
  return a.ms - b.ms || a.ns - b.ns;
}

/** Whole epoch milliseconds as an instant. */
export function instantOfMs(ms: number): Instant {
  return { ms, ns: 0 };
}

/** Fraction-of-second digits as [milliseconds, nanoseconds within the millisecond]; digits past 9 ignored. */
function fraction(digits: string | undefined): [number, number] {
  if (digits === undefined) return [0, 0];
  const nine = digits.slice(0, 9).padEnd(9, '0');
  return [Number(nine.slice(0, 3)), Number(nine.slice(3))];
}

function rfc3339(s: string): Instant | undefined {
  const m = RFC_3339.exec(s);
  if (m === null) return undefined;
  const [ms, ns] = fraction(m[7]);
  const wall = fieldsToMs(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]), ms);
  if (wall === undefined) return undefined;
  if (m[8] !== undefined) return { ms: wall, ns };
  const hours = Number(m[10]);
  const minutes = Number(m[11]);
  if (hours > 23 || minutes > 59) return undefined;
  const offsetMs = (hours * 60 + minutes) * 60_000;
  return { ms: m[9] === '+' ? wall - offsetMs : wall + offsetMs, ns };
}

/** No instant: the text is an offset-less wall clock that the zone skips (DST gap). */
const SKIPPED = null;

/**
 * An offset-less date or date-time in the zone; `undefined` when the text is not one,
 * `SKIPPED` when it is one but falls in a DST gap (the Rust service stops there: no match).
 */
function naive(s: string, zone: TimeZone): Instant | typeof SKIPPED | undefined {
  let wall: number | undefined;
  let ns = 0;
  let m = NAIVE_DATE.exec(s);
  if (m !== null) {
    wall = fieldsToMs(Number(m[1]), Number(m[2]), Number(m[3]), 0, 0, 0, 0);
  } else {
    m = NAIVE_DATE_TIME.exec(s);
    if (m === null) return undefined;
    const second = m[6] === undefined ? 0 : Number(m[6]);
    const [ms, subMs] = fraction(m[7]);
    ns = subMs;
    wall = fieldsToMs(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), second, ms);
  }
  if (wall === undefined) return undefined;
  const instant = instantOfWallClock(wall, zone);
  return instant === undefined ? SKIPPED : { ms: instant, ns };
}

/** Absolute date text (steps 2-4 above), or `undefined`. */
export function parseAbsoluteDateText(s: string, zone: TimeZone): Instant | undefined {
  const explicit = rfc3339(s);
  if (explicit !== undefined) return explicit;
  const local = naive(s, zone);
  if (local === SKIPPED) return undefined;
  if (local !== undefined) return local;
  const ms = parseDateMs(s);
  return ms === undefined ? undefined : instantOfMs(ms);
}

/** The instant a relative date stands for at `nowMs` in the zone (`undefined` in a DST gap). */
export function resolveRelativeDate(rel: FlagRelativeDate, nowMs: number, zone: TimeZone): number | undefined {
  return instantOfWallClock(subtractRelative(wallClockOf(nowMs, zone), rel), zone);
}

/** Date text in the order above, relative dates (and `dateparser`'s date-only forms) anchored to `nowMs`. */
function parseDateText(s: string, zone: TimeZone, nowMs: number): Instant | undefined {
  const rel = parseFlagRelativeDate(s);
  if (rel !== undefined) {
    const instant = resolveRelativeDate(rel, nowMs, zone);
    if (instant !== undefined) return instantOfMs(instant);
  }
  return parseAbsoluteDateText(s, zone) ?? parseDateparserForm(s, nowMs);
}

/** Unix seconds (fractions kept) as an instant, with Rust's float-to-integer saturation. */
export function unixSecondsInstant(value: number): Instant | undefined {
  if (Number.isNaN(value)) return instantOfMs(0); // Rust: NaN as i64 is 0
  const seconds = Math.floor(value);
  if (!(seconds >= MIN_SECONDS && seconds <= MAX_SECONDS)) return undefined;
  const nanos = Math.min(999_999_999, Math.max(0, Math.round((value % 1) * 1e9)));
  return { ms: seconds * 1000 + Math.floor(nanos / 1e6), ns: nanos % 1e6 };
}

/** A property value as an instant: numbers and numeric strings are Unix seconds. */
export function propertyDateInstant(value: unknown, zone: TimeZone, nowMs: number): Instant | undefined {
  if (typeof value === 'number') return unixSecondsInstant(value);
  if (typeof value !== 'string') return undefined;
  const seconds = rustParseF64(value);
  if (seconds !== undefined) return unixSecondsInstant(seconds);
  return parseDateText(value, zone, nowMs);
}

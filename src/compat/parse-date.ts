/**
 * Client date strings to epoch milliseconds, without `Date.parse` (whose legacy fallback accepts
 * almost anything, e.g. "foo 1" is a date in 2001). Accepted, in order
 * (docs/compatibility.md#timestamps): RFC 3339 / ISO 8601 (`T`, `t` or space separator, optional
 * seconds and fraction, zone `Z`, `+HH`, `+HHMM`, `+HH:MM`, `UTC`/`GMT`, or none = UTC), the same
 * with `/` separators, date-only, `MM/DD/YYYY[ HH:MM[:SS]]`, RFC 2822, and numeric epochs (seconds,
 * ms, µs or ns by digit count). Fractions finer than a millisecond are truncated.
 */
import { fieldsToMs } from './civil-date.js';

const ISO_LIKE =
  /^(\d{4})([-/])(\d{1,2})\2(\d{1,2})(?:[Tt ]+(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?\s*(Z|z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?$/;
const US_SLASH = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?$/;
const RFC_2822 = /^(?:[A-Za-z]{3},\s*)?(\d{1,2})\s+([A-Za-z]{3})\s+(\d{4})\s+(\d{2}):(\d{2})(?::(\d{2}))?\s*(Z|UT|UTC|GMT|[+-]\d{4})?$/;
const EPOCH = /^(\d{9,19})(?:\.(\d+))?$/;

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** Fraction digits -> whole milliseconds (truncated). */
function fractionMs(digits: string | undefined): number {
  if (digits === undefined) return 0;
  return Number((digits + '00').slice(0, 3));
}

/** Zone suffix -> offset in minutes east of UTC, or NaN when malformed. */
function zoneMinutes(zone: string | undefined): number {
  if (zone === undefined || zone === 'Z' || zone === 'z' || zone === 'UT' || zone === 'UTC' || zone === 'GMT') return 0;
  const sign = zone.charCodeAt(0) === 45 ? -1 : 1; // '-'
  const digits = zone.length === 6 ? zone.slice(1, 3) + zone.slice(4) : zone.slice(1);
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
  if (hours > 23 || minutes > 59) return NaN;
  return sign * (hours * 60 + minutes);
}

function toEpochMs(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  ms: number,
  zone: number,
): number | undefined {
  if (Number.isNaN(zone)) return undefined;
  const wall = fieldsToMs(year, month, day, hour, minute, second, ms);
  if (wall === undefined) return undefined;
  const t = wall - zone * 60_000;
  return Number.isFinite(t) ? t : undefined;
}

function optionalNumber(s: string | undefined): number {
  return s === undefined ? 0 : Number(s);
}

/** `count` decimal digits of `s` at `at` as a number, or -1 when one is not a digit. */
function digitsAt(s: string, at: number, count: number): number {
  let n = 0;
  for (let i = at; i < at + count; i++) {
    const d = s.charCodeAt(i) - 48;
    if (!(d >= 0 && d <= 9)) return -1;
    n = n * 10 + d;
  }
  return n;
}

/**
 * Fast path for what SDKs send (`toISOString()`, Python's `isoformat()`):
 * `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`. `undefined` means "not this exact shape".
 */
function parseCanonicalIso(s: string): number | undefined {
  const n = s.length;
  if (n < 20 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45 || s.charCodeAt(10) !== 84) return undefined;
  if (s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58) return undefined;
  const year = digitsAt(s, 0, 4);
  const month = digitsAt(s, 5, 2);
  const day = digitsAt(s, 8, 2);
  const hour = digitsAt(s, 11, 2);
  const minute = digitsAt(s, 14, 2);
  const second = digitsAt(s, 17, 2);
  if (year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) return undefined;
  let i = 19;
  let ms = 0;
  if (s.charCodeAt(i) === 46) {
    let count = 0;
    for (i++; i < n; i++, count++) {
      const d = s.charCodeAt(i) - 48;
      if (!(d >= 0 && d <= 9)) break;
      if (count < 3) ms = ms * 10 + d; // finer than a millisecond: truncated
    }
    if (count === 0) return undefined;
    if (count < 3) ms *= count === 1 ? 100 : 10;
  }
  let zone: number;
  if (i === n - 1 && s.charCodeAt(i) === 90) {
    zone = 0;
  } else if (i === n - 6 && s.charCodeAt(i + 3) === 58) {
    const sign = s.charCodeAt(i);
    const zh = digitsAt(s, i + 1, 2);
    const zm = digitsAt(s, i + 4, 2);
    if ((sign !== 43 && sign !== 45) || zh < 0 || zm < 0 || zh > 23 || zm > 59) return undefined;
    zone = (sign === 45 ? -1 : 1) * (zh * 60 + zm);
  } else {
    return undefined;
  }
  return toEpochMs(year, month, day, hour, minute, second, ms, zone);
}

/** Epoch milliseconds of a client date string, or `undefined` when it is not a date. */
export function parseDateMs(input: string): number | undefined {
  const fast = parseCanonicalIso(input);
  if (fast !== undefined) return fast;
  const s = input.trim();
  let m = ISO_LIKE.exec(s);
  if (m !== null) {
    return toEpochMs(
      Number(m[1]),
      Number(m[3]),
      Number(m[4]),
      optionalNumber(m[5]),
      optionalNumber(m[6]),
      optionalNumber(m[7]),
      fractionMs(m[8]),
      zoneMinutes(m[9]),
    );
  }
  m = US_SLASH.exec(s);
  if (m !== null) {
    return toEpochMs(
      Number(m[3]),
      Number(m[1]),
      Number(m[2]),
      optionalNumber(m[4]),
      optionalNumber(m[5]),
      optionalNumber(m[6]),
      fractionMs(m[7]),
      0,
    );
  }
  m = RFC_2822.exec(s);
  if (m !== null) {
    const month = MONTHS.indexOf((m[2] as string).toLowerCase()) + 1;
    if (month === 0) return undefined;
    return toEpochMs(Number(m[3]), month, Number(m[1]), Number(m[4]), Number(m[5]), optionalNumber(m[6]), 0, zoneMinutes(m[7]));
  }
  m = EPOCH.exec(s);
  if (m !== null) {
    const whole = m[1] as string;
    if (whole.length <= 11) return Number(whole) * 1000 + fractionMs(m[2]);
    if (whole.length <= 14) return Number(whole);
    if (whole.length <= 17) return Math.floor(Number(whole) / 1000);
    return Math.floor(Number(whole) / 1_000_000);
  }
  return undefined;
}

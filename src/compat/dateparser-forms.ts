/**
 * The date forms the Rust flags service reads only through the `dateparser` crate, its last
 * resort for a date string (step 5 in the flag engine's property-date.ts): month names
 * (`May 25, 2021`, `25 May 2021`, `2021-May-25`, with or without a time, 12-hour clocks,
 * two-digit years) and zone abbreviations (`2021-02-21 PST`, `2017-11-25 13:31:15 PST`). Pure.
 *
 * As the crate reads them, with the server's zone (UTC):
 * - month names are full or three letters, any case; two-digit years are 1970–2069;
 * - a form without a time takes the time of day of `now` (the crate's default time is the
 *   current one), so such a value moves through the day;
 * - a zone is UTC/UT/GMT, EST/EDT, CST/CDT, MST/MDT, PST/PDT or `±HH[:]MM`; any other letters
 *   count as UTC (RFC 2822's advice, which the crate follows), except in RFC 2822 dates
 *   (`Wed, 02 Jun 2021 06:31:39 PDT`), where chrono takes only those names and military letters;
 * - a form without a year (`May 27 02:45:27`, `May 6 at 9:24 PM`) is in the current year.
 * Forms parse-date.ts already reads (RFC 2822, slashes, epoch digits) come before this;
 * the crate's time-only, dotted, MySQL-log and Chinese forms are not read here.
 */
import { civilFromDays, DAY_MS, fieldsToMs } from './civil-date.js';

/** An instant: epoch milliseconds (an integer) and nanoseconds within that millisecond. */
export interface Instant {
  readonly ms: number;
  readonly ns: number;
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** chrono's `%B`/`%b` when parsing: the full name or its first three letters, any case. */
function monthNumber(name: string): number | undefined {
  const lower = name.toLowerCase();
  const i = MONTHS.findIndex((m) => m === lower || m.slice(0, 3) === lower);
  return i === -1 ? undefined : i + 1;
}

/** chrono's `%y` (exactly two digits: 70–99 → 19xx, 00–69 → 20xx), else `%Y`. */
function yearOf(digits: string): number {
  if (digits.length !== 2) return Number(digits);
  const n = Number(digits);
  return n < 70 ? 2000 + n : 1900 + n;
}

/** An hour of a 12-hour clock (`%I %P`), or of a 24-hour one without `ampm`; undefined when out of range. */
function hourOf(hour: string, ampm: string | undefined): number | undefined {
  const h = Number(hour);
  if (ampm === undefined) return h <= 23 ? h : undefined;
  if (h < 1 || h > 12) return undefined;
  return (h % 12) + (ampm.toLowerCase() === 'pm' ? 12 : 0);
}

/** The crate's zone names and numeric offsets, as minutes east of UTC; undefined when not one. */
function zoneOffsetMinutes(zone: string): number | undefined {
  const numeric = /^([+-])(\d{2})[:\s]*(\d{2})$/.exec(zone);
  if (numeric !== null) {
    const minutes = Number(numeric[3]);
    if (minutes > 59) return undefined;
    const total = Number(numeric[2]) * 60 + minutes;
    return numeric[1] === '-' ? -total : total;
  }
  const letters = /^[a-zA-Z]+/.exec(zone)?.[0];
  if (letters === undefined) return undefined;
  const hours = NAMED_ZONES[letters.toLowerCase()];
  return (hours ?? 0) * 60;
}

const NAMED_ZONES: Readonly<Record<string, number>> = {
  gmt: 0,
  ut: 0,
  utc: 0,
  edt: -4,
  est: -5,
  cdt: -5,
  cst: -6,
  mdt: -6,
  mst: -7,
  pdt: -7,
  pst: -8,
};

const AMPM = '(am|pm|AM|PM)';
/**
 * RFC 2822 with a zone name chrono knows that parse-date.ts does not (US zones; one
 * military letter, A–Z but J, counts as UTC). The crate tries RFC 2822 first.
 */
const RFC_2822_NAMED = /^(?:[A-Za-z]{3},\s*)?(\d{1,2})\s+([A-Za-z]{3})\s+(\d{4})\s+(\d{2}):(\d{2})(?::(\d{2}))?\s+([A-Za-z]{1,3})$/;
const MONTH_YMD = /^(\d{4})-([a-zA-Z]{3,9})-(\d{2})$/;
const MONTH_MD_HMS = new RegExp(`^([a-zA-Z]{3})\\s+(\\d{1,2})\\s*(at)?\\s+(\\d{1,2}):(\\d{2})(?::(\\d{2}))?\\s*${AMPM}?$`);
const MONTH_MDY_HMS = new RegExp(`^([a-zA-Z]{3,9})\\.?\\s+(\\d{1,2}),\\s+(\\d{2,4}),?\\s+(\\d{1,2}):(\\d{2})(?::(\\d{2}))?\\s*${AMPM}?$`);
/** The crate's zone text: `[+-:a-zA-Z0-9]`, where `+-:` is the range from `+` to `:` (digits and `,-./` too). */
const ZONE = '([+-:a-zA-Z0-9]{3,6})';
const MONTH_MDY_HMS_Z = new RegExp(
  `^([a-zA-Z]{3,9})\\s+(\\d{1,2}),?\\s+(\\d{4})\\s*,?(?:at)?\\s+(\\d{2}):(\\d{2})(?::(\\d{2}))?\\s*${AMPM}?\\s+${ZONE}$`,
);
const MONTH_MDY = /^([a-zA-Z]{3,9})\.?\s+(\d{1,2}),\s+(\d{2,4})$/;
const MONTH_DMY_HMS = /^(\d{1,2})\s+([a-zA-Z]{3,9})\s+(\d{2,4}),?\s+(\d{1,2}):(\d{2})(?::(\d{2}))?(?:\.(\d{1,9}))?$/;
const MONTH_DMY = /^(\d{1,2})\s+([a-zA-Z]{3,9})\s+(\d{2,4})$/;
const YMD_HMS_AMPM = new RegExp(`^(\\d{4})-(\\d{2})-(\\d{2})\\s+(\\d{2}):(\\d{2})(?::(\\d{2}))?\\s*${AMPM}$`);
const YMD_HMS_Z = new RegExp(`^(\\d{4})-(\\d{2})-(\\d{2})\\s+(\\d{2}):(\\d{2})(?::(\\d{2}))?(?:\\.(\\d{1,9}))?\\s*${ZONE}$`);
const YMD_Z = new RegExp(`^(\\d{4})-(\\d{2})-(\\d{2})\\s*${ZONE}$`);

interface Wall {
  year: number;
  month: number;
  day: number;
  /** Undefined: the form has no time, and takes `now`'s time of day. */
  time?: { hour: number; minute: number; second: number; fraction?: string };
  /** Minutes east of UTC; UTC when absent. */
  offset?: number;
}

/** The instant of a date string in one of the forms above, or undefined. */
export function parseDateparserForm(s: string, nowMs: number): Instant | undefined {
  const wall = wallOf(s, nowMs);
  return wall === undefined ? undefined : instantOf(wall, nowMs);
}

function wallOf(s: string, nowMs: number): Wall | undefined {
  let m = RFC_2822_NAMED.exec(s);
  if (m !== null) {
    const zone = (m[7] as string).toLowerCase();
    const military = zone.length === 1 && zone !== 'j';
    if (!military && NAMED_ZONES[zone] === undefined) return undefined;
    return withZone(withTime(date(Number(m[3]), m[2], m[1]), m[4], m[5], m[6], undefined), military ? 'UTC' : zone);
  }
  m = MONTH_YMD.exec(s);
  if (m !== null) return date(Number(m[1]), m[2], m[3]);
  if (/^[a-zA-Z]{3,9}\.?\s+\d{1,2}/.test(s)) {
    m = MONTH_MD_HMS.exec(s);
    if (m !== null) {
      // chrono: `%Y %b %d at %I:%M %P`, else `%Y %b %d %H:%M:%S`, the current year put before.
      const year = civilFromDays(Math.floor(nowMs / DAY_MS)).year;
      const twelve = m[3] !== undefined && m[6] === undefined && m[7] !== undefined;
      const plain = m[3] === undefined && m[6] !== undefined && m[7] === undefined;
      if (twelve || plain) return withTime(date(year, m[1], m[2]), m[4], m[5], m[6], m[7]);
    }
    m = MONTH_MDY_HMS.exec(s);
    if (m !== null) return withTime(date(Number(m[3]), m[1], m[2]), m[4], m[5], m[6], m[7]);
    m = MONTH_MDY_HMS_Z.exec(s);
    if (m !== null) return withZone(withTime(date(Number(m[3]), m[1], m[2]), m[4], m[5], m[6], m[7]), m[8]);
    m = MONTH_MDY.exec(s);
    if (m !== null) return date(yearOf(m[3] as string), m[1], m[2]);
    return undefined;
  }
  if (/^\d{1,2}\s+[a-zA-Z]{3,9}/.test(s)) {
    m = MONTH_DMY_HMS.exec(s);
    if (m !== null) return withTime(date(Number(m[3]), m[2], m[1]), m[4], m[5], m[6], undefined, m[7]);
    m = MONTH_DMY.exec(s);
    if (m !== null) return date(yearOf(m[3] as string), m[2], m[1]);
    return undefined;
  }
  m = YMD_HMS_AMPM.exec(s);
  if (m !== null) return withTime({ year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) }, m[4], m[5], m[6], m[7]);
  m = YMD_HMS_Z.exec(s);
  if (m !== null) {
    const d = { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) };
    return withZone(withTime(d, m[4], m[5], m[6], undefined, m[7]), m[8]);
  }
  m = YMD_Z.exec(s);
  if (m !== null) return withZone({ year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) }, m[4]);
  return undefined;
}

/** A date from a year and the month and day texts (a month name, or digits). */
function date(year: number, month: string | undefined, day: string | undefined): Wall | undefined {
  const monthNo = /^\d+$/.test(month ?? '') ? Number(month) : monthNumber(month ?? '');
  if (monthNo === undefined) return undefined;
  return { year, month: monthNo, day: Number(day) };
}

function withTime(
  wall: Wall | undefined,
  hour: string | undefined,
  minute: string | undefined,
  second: string | undefined,
  ampm: string | undefined,
  fraction?: string,
): Wall | undefined {
  if (wall === undefined) return undefined;
  const h = hourOf(hour ?? '', ampm);
  const min = Number(minute);
  const sec = second === undefined ? 0 : Number(second);
  // chrono reads a fraction only after seconds (`%S%.f`).
  if (h === undefined || min > 59 || sec > 59 || (fraction !== undefined && second === undefined)) return undefined;
  return { ...wall, time: { hour: h, minute: min, second: sec, ...(fraction !== undefined ? { fraction } : {}) } };
}

function withZone(wall: Wall | undefined, zone: string | undefined): Wall | undefined {
  if (wall === undefined) return undefined;
  const offset = zoneOffsetMinutes((zone ?? '').trim());
  return offset === undefined ? undefined : { ...wall, offset };
}

function instantOf(wall: Wall, nowMs: number): Instant | undefined {
  const offsetMs = (wall.offset ?? 0) * 60_000;
  const midnight = fieldsToMs(wall.year, wall.month, wall.day, 0, 0, 0, 0);
  if (midnight === undefined) return undefined;
  if (wall.time === undefined) {
    // The time of day `now` has in the zone.
    const local = (((nowMs + offsetMs) % DAY_MS) + DAY_MS) % DAY_MS;
    return { ms: midnight + local - offsetMs, ns: 0 };
  }
  const { hour, minute, second, fraction } = wall.time;
  const nine = (fraction ?? '').padEnd(9, '0');
  const ms = midnight + ((hour * 60 + minute) * 60 + second) * 1000 + Number(nine.slice(0, 3)) - offsetMs;
  return { ms, ns: Number(nine.slice(3)) };
}

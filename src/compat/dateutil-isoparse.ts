/**
 * python-dateutil's `isoparse` (`dateutil/parser/isoparser.py`), which PostHog's events API reads
 * `after` and `before` with before trying a relative date (PostHog/posthog
 * `posthog/models/event/query_event_list.py`, `parse_timestamp`). Pure.
 *
 * Dates: `YYYY`, `YYYY-MM`, `YYYY-MM-DD` or `YYYYMMDD`, then the uncommon forms: ISO week
 * `YYYY-Www[-D]` or `YYYYWww[D]`, and ordinal `YYYY-DDD` or `YYYYDDD`. The time, when there is
 * more, follows any one separator character (`isoparse` is called without `sep`): `hh`,
 * `hh:mm` or `hhmm`, `hh:mm:ss` or `hhmmss`, then a fraction after `.` or `,` (digits past six
 * ignored), then a zone `Z`, `±HH`, `±HHMM` or `±HH:MM` (hours ≤ 23, minutes ≤ 59). `24:00` is
 * the next midnight. No zone means UTC (docs/compatibility.md#events-list). Each component is
 * read with Python's `int`, so `2026 10:15` is January 10th at 15:00, as dateutil reads it.
 */
import { DAY_MS, daysFromCivil, fieldsToMs, isLeapYear } from './civil-date.js';

/** Thrown inside the parse for what dateutil answers with a ValueError. */
class Invalid extends Error {}

/** What Python's `str.strip()` removes from ASCII text. */
const PY_WHITESPACE = new Set([' ', '\t', '\n', '\v', '\f', '\r', '\u001c', '\u001d', '\u001e', '\u001f']);

/** Python's `int(text)` on ASCII: surrounding whitespace, a sign, `_` between digits. */
function int(text: string): number {
  let a = 0;
  let b = text.length;
  while (a < b && PY_WHITESPACE.has(text[a] as string)) a++;
  while (b > a && PY_WHITESPACE.has(text[b - 1] as string)) b--;
  const m = /^([+-]?)([0-9](?:_?[0-9])*)$/.exec(text.slice(a, b));
  if (m === null) throw new Invalid();
  const n = Number((m[2] as string).replaceAll('_', ''));
  return m[1] === '-' ? -n : n;
}

interface DatePart {
  year: number;
  month: number;
  day: number;
  pos: number;
}

/** `_parse_isodate_common`: `YYYY`, `YYYY-MM`, `YYYY-MM-DD`, `YYYYMMDD`. */
function commonDate(s: string): DatePart {
  if (s.length < 4) throw new Invalid();
  const year = int(s.slice(0, 4));
  let pos = 4;
  if (pos >= s.length) return { year, month: 1, day: 1, pos };
  const hasSep = s[pos] === '-';
  if (hasSep) pos++;
  if (s.length - pos < 2) throw new Invalid();
  const month = int(s.slice(pos, pos + 2));
  pos += 2;
  if (pos >= s.length) {
    if (hasSep) return { year, month, day: 1, pos };
    throw new Invalid(); // `YYYYMM` is not ISO
  }
  if (hasSep) {
    if (s[pos] !== '-') throw new Invalid();
    pos++;
  }
  if (s.length - pos < 2) throw new Invalid();
  return { year, month, day: int(s.slice(pos, pos + 2)), pos: pos + 2 };
}

/** `_parse_isodate_uncommon`: ISO week and ordinal dates, as a day count from 1970-01-01. */
function uncommonDate(s: string): { days: number; pos: number } {
  if (s.length < 4) throw new Invalid();
  const year = int(s.slice(0, 4));
  const hasSep = s[4] === '-';
  let pos = hasSep ? 5 : 4;
  if (s[pos] === 'W') {
    pos++;
    const week = int(s.slice(pos, pos + 2));
    pos += 2;
    let weekday = 1;
    if (s.length > pos) {
      if ((s[pos] === '-') !== hasSep) throw new Invalid();
      if (hasSep) pos++;
      weekday = int(s.slice(pos, pos + 1));
      pos++;
    }
    if (!(week > 0 && week < 54) || !(weekday > 0 && weekday < 8)) throw new Invalid();
    // Week 1 is the week holding January 4th (`_calculate_weekdate`).
    const jan4 = daysFromCivil(year, 1, 4);
    const jan4Weekday = ((((jan4 + 3) % 7) + 7) % 7) + 1; // 1970-01-01 was a Thursday (4)
    return { days: jan4 - (jan4Weekday - 1) + (week - 1) * 7 + (weekday - 1), pos };
  }
  if (s.length - pos < 3) throw new Invalid();
  const ordinal = int(s.slice(pos, pos + 3));
  if (ordinal < 1 || ordinal > (isLeapYear(year) ? 366 : 365)) throw new Invalid();
  return { days: daysFromCivil(year, 1, 1) + ordinal - 1, pos: pos + 3 };
}

/** `_parse_tzstr`: minutes east of UTC. */
function zoneMinutes(tz: string): number {
  if (tz === 'Z' || tz === 'z') return 0;
  if (tz.length !== 3 && tz.length !== 5 && tz.length !== 6) throw new Invalid();
  const sign = tz[0] === '-' ? -1 : tz[0] === '+' ? 1 : 0;
  if (sign === 0) throw new Invalid();
  const hours = int(tz.slice(1, 3));
  const minutes = tz.length === 3 ? 0 : int(tz.slice(tz[3] === ':' ? 4 : 3));
  if (hours === 0 && minutes === 0) return 0;
  if (minutes > 59 || hours > 23) throw new Invalid();
  return sign * (hours * 60 + minutes);
}

interface TimePart {
  hour: number;
  minute: number;
  second: number;
  micros: number;
  zone: number;
}

/** `_parse_isotime`. */
function isoTime(s: string): TimePart {
  if (s.length < 2) throw new Invalid();
  const c = [0, 0, 0, 0];
  let zone = 0;
  let pos = 0;
  let comp = -1;
  let hasSep = false;
  while (pos < s.length && comp < 5) {
    comp++;
    const ch = s[pos] as string;
    if (ch === '-' || ch === '+' || ch === 'Z' || ch === 'z') {
      zone = zoneMinutes(s.slice(pos));
      pos = s.length;
      break;
    }
    if (comp === 1 && ch === ':') {
      hasSep = true;
      pos++;
    } else if (comp === 2 && hasSep) {
      if (ch !== ':') throw new Invalid();
      pos++;
    }
    if (comp < 3) {
      // Python slices past the end without complaint: `10:1` is 10:01.
      c[comp] = int(s.slice(pos, pos + 2));
      pos += 2;
    } else if (comp === 3) {
      const frac = /^[.,]([0-9]+)/.exec(s.slice(pos));
      if (frac === null) continue;
      const digits = (frac[1] as string).slice(0, 6);
      c[3] = Number(digits) * 10 ** (6 - digits.length);
      pos += frac[0].length;
    }
  }
  if (pos < s.length) throw new Invalid();
  const [hour, minute, second, micros] = c as [number, number, number, number];
  if (hour === 24 && (minute !== 0 || second !== 0 || micros !== 0)) throw new Invalid();
  return { hour, minute, second, micros, zone };
}

/**
 * Epoch milliseconds (with a fraction for microseconds) of what `isoparse` reads in `input`, or
 * `undefined` where it raises. A zone offset is applied.
 */
export function isoparseMs(input: string): number | undefined {
  // `@_takes_ascii`: other text fails to encode.
  for (let i = 0; i < input.length; i++) if (input.charCodeAt(i) > 0x7f) return undefined;
  try {
    let days: number;
    let pos: number;
    try {
      const d = commonDate(input);
      // datetime() refuses a bad month or day; the uncommon forms are not tried then.
      const midnight = fieldsToMs(d.year, d.month, d.day, 0, 0, 0, 0);
      if (midnight === undefined || d.year < 1) return undefined;
      days = midnight / DAY_MS;
      pos = d.pos;
    } catch (err) {
      if (!(err instanceof Invalid)) throw err;
      ({ days, pos } = uncommonDate(input));
    }
    let time: TimePart = { hour: 0, minute: 0, second: 0, micros: 0, zone: 0 };
    if (input.length > pos) time = isoTime(input.slice(pos + 1));
    const hour = time.hour === 24 ? 0 : time.hour;
    const dayShift = time.hour === 24 ? 1 : 0;
    if (hour < 0 || hour > 23 || time.minute < 0 || time.minute > 59 || time.second < 0 || time.second > 59) return undefined;
    const ms = (days + dayShift) * DAY_MS + ((hour * 60 + time.minute - time.zone) * 60 + time.second) * 1000 + time.micros / 1000;
    // Python's datetime holds years 1-9999.
    const wallYearStart = daysFromCivil(1, 1, 1) * DAY_MS;
    const wallYearEnd = daysFromCivil(10000, 1, 1) * DAY_MS;
    const wall = ms + time.zone * 60_000;
    if (wall < wallYearStart || wall >= wallYearEnd) return undefined;
    return ms;
  } catch (err) {
    if (err instanceof Invalid) return undefined;
    throw err;
  }
}

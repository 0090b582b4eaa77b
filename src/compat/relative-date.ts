/**
 * PostHog's relative dates (`-7d`, `-1mStart`): one grammar, and the two ways PostHog counts
 * them back from now.
 *
 * The grammar is `relative_date_parse`'s in posthog/utils.py: `[-][n]<unit>[Start|End]`, n units
 * before now whatever the sign, the unit h (hours), d (days), w (weeks), m (months), M (minutes),
 * s (seconds), q (13 weeks) or y (years). PostHog looks for the pattern anywhere in the text and
 * reads text without one as "now"; Hedgerow takes only the whole pattern and answers anything
 * else as not a date. Feature flag date values take a part of it (docs/compatibility.md, "Dates
 * and versions"): `[-]<n><unit>` with n < 10000 written out and unit h, d, w, m or y.
 *
 * Django counts as dateutil's `relativedelta` does, in UTC (`relativeDeltaBefore`: the events
 * API's `after`/`before`, and the management API's check of a flag's date value): `Start`/`End`
 * move an h to the start or end of its hour, a d to its day, an m to the first or last day of
 * its month and a y to January 1 (or the month's last day), keeping the time of day; then months
 * and years step the calendar once, the day clamped to the month's length; then hours, days and
 * the rest are subtracted as a duration. `-7d` is 7 × 24 h before now, `-1dStart` yesterday at
 * 00:00, `mStart` the first of this month at this time of day, Mar 31 − 2m is Jan 31.
 *
 * The Rust flags service counts on the team-time-zone wall clock (`subtractRelative`, flag
 * evaluation): hours, days and weeks are fixed lengths of wall-clock time; months step back one
 * calendar month at a time, clamping the day at each step (so Mar 31 − 2m is Jan 29, not Jan 31);
 * years step back a year at a time, clamping Feb 29 to Feb 28. Time of day is kept.
 */

import { civilFromDays, DAY_MS, daysFromCivil, daysInMonth, fieldsToMs } from './civil-date.js';

type RelativeUnit = 'h' | 'd' | 'w' | 'm' | 'M' | 's' | 'q' | 'y';

export interface RelativeDate {
  readonly amount: number;
  readonly unit: RelativeUnit;
  readonly position?: 'Start' | 'End';
}

/** A relative date as feature flags write it: no `Start`/`End`, and only these units. */
export interface FlagRelativeDate extends RelativeDate {
  readonly unit: 'h' | 'd' | 'w' | 'm' | 'y';
  readonly position?: undefined;
}

const PATTERN = /^-?([0-9]+)?([hdwmMsqy])(Start|End)?$/;
const SECOND_MS = 1000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;
/** PostHog's `End` sets microsecond 999999: the last millisecond and 0.999 of one more. */
const END_MS = 999.999;

/** The parts of a relative date in PostHog's grammar, or `undefined` when the text is not one. */
function parseRelativeDate(text: string): RelativeDate | undefined {
  const m = PATTERN.exec(text);
  if (m === null) return undefined;
  const amount = m[1] === undefined ? 0 : Number(m[1]);
  if (!Number.isSafeInteger(amount)) return undefined;
  const unit = m[2] as RelativeUnit;
  const position = m[3] as 'Start' | 'End' | undefined;
  return position === undefined ? { amount, unit } : { amount, unit, position };
}

/** The parts of a feature flag's relative date, or `undefined` when the text is not one (or n ≥ 10000). */
export function parseFlagRelativeDate(text: string): FlagRelativeDate | undefined {
  const m = PATTERN.exec(text);
  if (m === null || m[1] === undefined || m[3] !== undefined) return undefined;
  const unit = m[2];
  if (unit !== 'h' && unit !== 'd' && unit !== 'w' && unit !== 'm' && unit !== 'y') return undefined;
  const amount = Number(m[1]);
  if (!(amount < 10_000)) return undefined;
  return { amount, unit };
}

/**
 * The instant `rel` names before `nowMs` (epoch ms, may have a fraction) as dateutil's
 * `relativedelta` counts in UTC, or `undefined` outside the calendar's range.
 */
export function relativeDeltaBefore(rel: RelativeDate, nowMs: number): number | undefined {
  const { amount: n, unit, position } = rel;
  const now = new Date(nowMs);
  let year = now.getUTCFullYear();
  let month = now.getUTCMonth() + 1;
  let day = now.getUTCDate();
  let hour = now.getUTCHours();
  let minute = now.getUTCMinutes();
  let second = now.getUTCSeconds();
  let ms = now.getUTCMilliseconds();
  let shiftMs = 0;
  // relativedelta: absolute fields replace, then months and years step the calendar (the day
  // clamped to the month's length), then the rest is subtracted as a duration.
  switch (unit) {
    case 'h':
      shiftMs = n * HOUR_MS;
      if (position === 'Start') [minute, second, ms] = [0, 0, 0];
      if (position === 'End') [minute, second, ms] = [59, 59, END_MS];
      break;
    case 'd':
      shiftMs = n * DAY_MS;
      if (position === 'Start') [hour, minute, second, ms] = [0, 0, 0, 0];
      if (position === 'End') [hour, minute, second, ms] = [23, 59, 59, END_MS];
      break;
    case 'w':
      shiftMs = 7 * n * DAY_MS;
      break;
    case 'q':
      shiftMs = 13 * 7 * n * DAY_MS;
      break;
    case 'M':
      shiftMs = n * MINUTE_MS;
      break;
    case 's':
      shiftMs = n * SECOND_MS;
      break;
    case 'm':
      month -= n;
      if (position === 'Start') day = 1;
      if (position === 'End') day = 31;
      break;
    case 'y':
      year -= n;
      if (position === 'Start') [month, day] = [1, 1];
      if (position === 'End') day = 31;
      break;
  }
  const months = year * 12 + (month - 1);
  year = Math.floor(months / 12);
  month = months - year * 12 + 1;
  day = Math.min(day, daysInMonth(year, month));
  const at = fieldsToMs(year, month, day, hour, minute, second, ms);
  return at === undefined || !Number.isFinite(at - shiftMs) ? undefined : at - shiftMs;
}

/** PostHog's `relative_date_parse` in UTC: the instant `text` names before `nowMs`, or `undefined`. */
export function relativeDateParse(text: string, nowMs: number): number | undefined {
  const rel = parseRelativeDate(text);
  return rel === undefined ? undefined : relativeDeltaBefore(rel, nowMs);
}

/** `wallMs` minus `months` calendar months, stepping one month at a time. */
function minusMonths(wallMs: number, months: number): number {
  const days = Math.floor(wallMs / DAY_MS);
  const timeOfDay = wallMs - days * DAY_MS;
  const start = civilFromDays(days);
  let day = start.day;
  let index = start.year * 12 + (start.month - 1);
  // Clamping can only lower the day; once it is 28 or less no month clamps it again.
  let step = 0;
  while (step < months && day > 28) {
    index--;
    step++;
    const y = Math.floor(index / 12);
    day = Math.min(day, daysInMonth(y, index - y * 12 + 1));
  }
  index -= months - step;
  const year = Math.floor(index / 12);
  return daysFromCivil(year, index - year * 12 + 1, day) * DAY_MS + timeOfDay;
}

/** `wallMs` minus `years` years, Feb 29 becoming Feb 28. */
function minusYears(wallMs: number, years: number): number {
  if (years === 0) return wallMs;
  const days = Math.floor(wallMs / DAY_MS);
  const timeOfDay = wallMs - days * DAY_MS;
  const { year, month, day } = civilFromDays(days);
  // A Feb 29 start is a leap year, so the year before is not: the first step clamps to 28.
  const newDay = month === 2 && day === 29 ? 28 : day;
  return daysFromCivil(year - years, month, newDay) * DAY_MS + timeOfDay;
}

/** The wall clock `rel` before `wallMs` as the Rust flags service counts (naive arithmetic, no time zone). */
export function subtractRelative(wallMs: number, rel: FlagRelativeDate): number {
  switch (rel.unit) {
    case 'h':
      return wallMs - rel.amount * HOUR_MS;
    case 'd':
      return wallMs - rel.amount * DAY_MS;
    case 'w':
      return wallMs - rel.amount * 7 * DAY_MS;
    case 'm':
      return minusMonths(wallMs, rel.amount);
    case 'y':
      return minusYears(wallMs, rel.amount);
  }
}

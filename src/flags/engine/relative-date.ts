/**
 * Relative dates of the date operators at evaluation time (spec flags.md §3.4 `is_date_*` row,
 * `relative_date_cases`): `[-]<n><unit>` with n < 10000 and unit h, d, w, m or y always means
 * "now minus n units", whatever the sign.
 *
 * The Rust service does the arithmetic on the team-time-zone wall clock and reads the result
 * back in that zone. Hours, days and weeks are fixed lengths of wall-clock time; months step back
 * one calendar month at a time, clamping the day at each step (so Mar 31 − 2m is Jan 29, not
 * Jan 31 as the management API's one-step `relativedelta` would give); years step back a year at
 * a time, clamping Feb 29 to Feb 28. Time of day is kept.
 */

import { civilFromDays, DAY_MS, daysFromCivil, daysInMonth } from '../../compat/civil-date.js';
import {
  instantOfWallClock,
  type TimeZone,
  wallClockOf,
} from './wall-clock.js';

export type RelativeUnit = 'h' | 'd' | 'w' | 'm' | 'y';

export interface RelativeDate {
  readonly amount: number;
  readonly unit: RelativeUnit;
}

const RELATIVE = /^-?([0-9]+)([hdwmy])$/;
const HOUR_MS = 3_600_000;

/** The parts of a relative date, or `undefined` when the text is not one (or n ≥ 10000). */
export function parseRelativeDate(text: string): RelativeDate | undefined {
  const m = RELATIVE.exec(text);
  if (m === null) return undefined;
  const amount = Number(m[1]);
  if (!(amount < 10_000)) return undefined;
  return { amount, unit: m[2] as RelativeUnit };
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

/** The wall clock `rel` before `wallMs` (naive arithmetic, no time zone). */
export function subtractRelative(wallMs: number, rel: RelativeDate): number {
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

/** The instant a relative date stands for at `nowMs` in the zone (`undefined` in a DST gap). */
export function resolveRelativeDate(rel: RelativeDate, nowMs: number, zone: TimeZone): number | undefined {
  return instantOfWallClock(subtractRelative(wallClockOf(nowMs, zone), rel), zone);
}

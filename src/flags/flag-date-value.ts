/**
 * The date a flag condition with operator `is_date_before`/`is_date_after` compares against
 * (spec §3.4 filters: "a parseable absolute or relative date (e.g. `-10m`)").
 *
 * Relative values are `[-]<n><unit>` with n < 10000 and unit h (hours), d (days), w (weeks),
 * m (months) or y (years), counted back from `now`; months and years step by calendar, clamping
 * the day (Jan 31 - 1m = Dec 31, Mar 31 - 1m = Feb 28/29). Absolute values are date strings
 * (ISO 8601 / RFC 3339 with or without time and zone, `YYYY/MM/DD`, `MM/DD/YYYY`, RFC 2822,
 * `YYYYMMDD`); a value without a zone is UTC. PostHog hands absolute values to dateutil, which
 * accepts still looser text; Hedgerow accepts only these unambiguous forms.
 */

import { parseDateMs } from '../compat/parse-date.js';
import { pythonStr } from '../compat/python-repr.js';

const RELATIVE = /^-?([0-9]+)([a-z])$/;
const HOUR_MS = 3_600_000;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

function minusMonths(now: Date, months: number): Date {
  const total = now.getUTCFullYear() * 12 + now.getUTCMonth() - months;
  const year = Math.floor(total / 12);
  const month = total - year * 12; // 0-based
  const target = new Date(now.getTime());
  target.setUTCFullYear(year, month, Math.min(now.getUTCDate(), daysInMonth(year, month + 1)));
  return target;
}

function relativeDate(s: string, now: Date): Date | undefined {
  const m = RELATIVE.exec(s);
  if (m === null) return undefined;
  const n = Number(m[1]);
  if (n >= 10_000) return undefined;
  switch (m[2]) {
    case 'h':
      return new Date(now.getTime() - n * HOUR_MS);
    case 'd':
      return new Date(now.getTime() - n * 24 * HOUR_MS);
    case 'w':
      return new Date(now.getTime() - n * 7 * 24 * HOUR_MS);
    case 'm':
      return minusMonths(now, n);
    case 'y':
      return minusMonths(now, n * 12);
    default:
      return undefined;
  }
}

function absoluteDate(s: string): Date | undefined {
  const t = s.trim();
  if (/^\d+(\.\d+)?$/.test(t)) {
    // Bare numbers: only the basic ISO date YYYYMMDD (not epochs, which dateutil rejects).
    if (t.length !== 8) return undefined;
    const ms = parseDateMs(`${t.slice(0, 4)}-${t.slice(4, 6)}-${t.slice(6, 8)}`);
    return ms === undefined ? undefined : new Date(ms);
  }
  const ms = parseDateMs(t);
  return ms === undefined ? undefined : new Date(ms);
}

/** The date a condition value stands for, or `undefined` when it is not a date. */
export function parseFlagDateValue(value: unknown, now: Date): Date | undefined {
  const s = pythonStr(value);
  return relativeDate(s, now) ?? absoluteDate(s);
}

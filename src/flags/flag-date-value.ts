/**
 * The date a flag condition with operator `is_date_before`/`is_date_after` compares against
 * (a readable absolute or relative date such as `-10m`: docs/compatibility.md#flag-validation).
 *
 * Relative values are `[-]<n><unit>` with n < 10000 and unit h (hours), d (days), w (weeks),
 * m (months) or y (years), counted back from `now` as Django's `relativedelta` counts them
 * (compat/relative-date.ts): months and years in one calendar step, clamping the day
 * (Jan 31 - 1m = Dec 31, Mar 31 - 1m = Feb 28/29, Mar 31 - 2m = Jan 31). Absolute values are date strings
 * (ISO 8601 / RFC 3339 with or without time and zone, `YYYY/MM/DD`, `MM/DD/YYYY`, RFC 2822,
 * `YYYYMMDD`); a value without a zone is UTC. PostHog hands absolute values to dateutil, which
 * accepts still looser text; Hedgerow accepts only these unambiguous forms.
 */

import { parseDateMs } from '../compat/parse-date.js';
import { pythonStr } from '../compat/python-repr.js';
import { parseFlagRelativeDate, relativeDeltaBefore } from '../compat/relative-date.js';

/** A relative date counted back from `now` as Django counts it (`relativedelta`, in UTC). */
function relativeDate(s: string, now: Date): Date | undefined {
  const rel = parseFlagRelativeDate(s);
  if (rel === undefined) return undefined;
  const ms = relativeDeltaBefore(rel, now.getTime());
  return ms === undefined ? undefined : new Date(ms);
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

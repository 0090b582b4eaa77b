/**
 * PostHog's relative dates as its events API reads `after` and `before` when they are not
 * ISO 8601 (`relative_date_parse` in posthog/utils.py), in UTC: `[-][n]<kind>[Start|End]`, counted
 * back from now, with `kind` h (hours), d (days), w (weeks), m (months), M (minutes), s (seconds),
 * q (13 weeks) or y (years). `Start`/`End` move an h to the start or end of its hour, a d to its
 * day, an m to the first or last day of its month and a y to January 1 (or the month's last day),
 * keeping the time of day as PostHog's `relativedelta` does. `-7d` is 7 × 24 h before now,
 * `-1dStart` yesterday at 00:00, `mStart` the first of this month at this time of day.
 *
 * PostHog looks for the pattern anywhere in the text and reads text without one as "now";
 * Hedgerow takes only the whole pattern and answers anything else as not a date.
 */
import { daysInMonth, fieldsToMs } from '../compat/civil-date.js';

const PATTERN = /^-?([0-9]+)?([hdwmMsqy])(Start|End)?$/;
const SECOND_MS = 1000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;
/** PostHog's `End` sets microsecond 999999: the last millisecond and 0.999 of one more. */
const END_MS = 999.999;

/** The instant `text` names relative to `nowMs` (epoch ms, may have a fraction), or undefined. */
export function relativeDateParse(text: string, nowMs: number): number | undefined {
  const m = PATTERN.exec(text);
  if (m === null) return undefined;
  const n = m[1] === undefined ? 0 : Number(m[1]);
  if (!Number.isSafeInteger(n)) return undefined;
  const kind = m[2] as string;
  const position = m[3];
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
  switch (kind) {
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

/**
 * DRF `DateTimeField` input for the writable `created_at` (docs/compatibility.md#flag-fields): ISO
 * 8601 as Django's `parse_datetime` reads it (`YYYY-MM-DD`, then optionally `T`/space,
 * `hh[:mm[:ss[.uuuuuu]]]` and a zone `Z`/`±HH`/`±HHMM`/`±HH:MM`); a value without a zone is UTC
 * (PostHog's TIME_ZONE). Output is the stored form, `YYYY-MM-DDTHH:MM:SS.ffffffZ` in UTC, which
 * `apiDateTime` (iso-micros.ts) prints as DRF does.
 */

import { daysInMonth } from './civil-date.js';

const ISO_DATETIME =
  /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[Tt ](\d{1,2})(?::(\d{1,2})(?::(\d{1,2})(?:[.,](\d{1,6})\d{0,6})?)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?)?$/;

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/** Zone suffix to minutes east of UTC, or undefined when out of range. */
function zoneMinutes(zone: string | undefined): number | undefined {
  if (zone === undefined || zone === 'Z' || zone === 'z') return 0;
  const digits = zone.slice(1).replace(':', '');
  const h = Number(digits.slice(0, 2));
  const m = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
  if (h > 23 || m > 59) return undefined;
  return (zone.startsWith('-') ? -1 : 1) * (h * 60 + m);
}

/** The UTC datetime with microseconds, or `undefined` when DRF would say "wrong format". */
export function parseDrfDateTime(input: string): string | undefined {
  const m = ISO_DATETIME.exec(input);
  if (m === null) return undefined;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4] ?? 0);
  const minute = Number(m[5] ?? 0);
  const second = Number(m[6] ?? 0);
  const micros = Number((m[7] ?? '').padEnd(6, '0'));
  const zone = zoneMinutes(m[8]);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59 || zone === undefined) return undefined;
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute - zone, second, 0);
  const y = d.getUTCFullYear();
  if (y < 1 || y > 9999) return undefined;
  return (
    `${pad(y, 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}` +
    `T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}.${pad(micros, 6)}Z`
  );
}

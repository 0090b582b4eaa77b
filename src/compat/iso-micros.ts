/**
 * Timestamps as PostHog's REST API prints them (Django REST framework's DateTimeField):
 * ISO 8601 in UTC with six fractional digits and `Z`, e.g. `2021-08-25T22:09:14.252000Z`.
 * A JavaScript Date holds milliseconds, so the last three digits are always 0.
 */

/** `date` (now by default) as DRF prints it. */
export function isoMicros(date: Date = new Date()): string {
  // toISOString always ends in `.mmmZ` for years 0-9999.
  return `${date.toISOString().slice(0, -1)}000Z`;
}

/** A stored timestamp as DRF prints it (microseconds, `Z`); a value that does not parse is passed through. */
export function apiDateTime(iso: string): string {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : isoMicros(new Date(ms));
}

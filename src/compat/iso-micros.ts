/**
 * Timestamps as PostHog's REST API prints them.
 *
 * Stored form: ISO 8601 in UTC with six fractional digits and `Z`, e.g.
 * `2021-08-25T22:09:14.252000Z`, which sorts as the instants do. A JavaScript Date holds
 * milliseconds, so the last three digits are 0 unless a client wrote them (`created_at`).
 *
 * Printed form: Django REST framework's `DateTimeField.to_representation` is `value.isoformat()`
 * with `+00:00` replaced by `Z`, and `isoformat()` leaves the fraction out when the microseconds
 * are 0: `2021-08-25T22:09:14Z` (docs/compatibility.md#management-api).
 */
import { writeTime } from '../util/write-context.js';

/** `date` (now by default) in the stored form. */
export function isoMicros(date: Date = writeTime()): string {
  // toISOString always ends in `.mmmZ` for years 0-9999.
  return `${date.toISOString().slice(0, -1)}000Z`;
}

const STORED = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\.(\d{6})Z$/;

/**
 * A stored datetime as DRF prints it: the stored form with a fraction of zeros left out; any other
 * form is read as an instant (to the millisecond) first. A value that does not parse is passed through.
 */
export function apiDateTime(stored: string): string {
  const m = STORED.exec(stored);
  if (m !== null) return m[2] === '000000' ? `${m[1]}Z` : stored;
  const ms = Date.parse(stored);
  return Number.isNaN(ms) ? stored : apiDateTime(isoMicros(new Date(ms)));
}

/** `apiDateTime` of a nullable field. */
export function apiDateTimeOrNull(stored: string | null): string | null {
  return stored === null ? null : apiDateTime(stored);
}

/**
 * An event's `timestamp` as PostHog's events API prints it: `ClickhouseEventSerializer.get_timestamp`
 * gives `isoformat()` of the UTC datetime (PostHog/posthog `posthog/models/event/util.py`), so
 * `+00:00`, and six fractional digits (ClickHouse's `DateTime64(6)`) unless they are all 0.
 */
export function eventApiTimestamp(stored: string): string {
  const ms = Date.parse(stored);
  if (Number.isNaN(ms)) return stored;
  const m = STORED.exec(isoMicros(new Date(ms))) as RegExpExecArray;
  return m[2] === '000000' ? `${m[1]}+00:00` : `${m[1]}.${m[2]}+00:00`;
}

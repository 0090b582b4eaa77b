/**
 * Wall clocks in the team's time zone, for the date operators (the Rust service reads offset-less
 * date strings, and anchors relative dates, in the team time zone:
 * docs/compatibility.md#dates-and-versions).
 *
 * A wall clock is held as "milliseconds since 1970-01-01T00:00 of that clock", i.e. the epoch
 * milliseconds the same digits would have in UTC. Converting a wall clock to an instant follows
 * the Rust service: a time that occurs twice (DST fall-back) is the earlier instant, a time that
 * never occurs (spring-forward gap) is no instant at all.
 */
import { DAY_MS, daysFromCivil } from '../../compat/civil-date.js';

/**
 * A team time zone: `undefined` is UTC. Unknown names also fall back to UTC (the Rust service
 * parses the team's zone name and uses UTC when it cannot).
 */
export type TimeZone = Intl.DateTimeFormat | undefined;

const zones = new Map<string, TimeZone>();

/** The time zone for an IANA name (`Europe/Paris`); `undefined` (UTC) for UTC and unknown names. */
export function resolveTimeZone(name: string | undefined): TimeZone {
  if (name === undefined || name === 'UTC' || name === 'Etc/UTC') return undefined;
  const hit = zones.get(name);
  if (hit !== undefined || zones.has(name)) return hit;
  let zone: TimeZone;
  try {
    zone = new Intl.DateTimeFormat('en-US', {
      timeZone: name,
      hourCycle: 'h23',
      era: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  } catch {
    zone = undefined;
  }
  zones.set(name, zone);
  return zone;
}

/** Before standard time everywhere: offsets earlier than this are taken at this instant. */
const EARLIEST_OFFSET_MS = Date.UTC(1800, 0, 1);

/** The zone's offset from UTC, in milliseconds, at an instant. */
function offsetAt(zone: Intl.DateTimeFormat, instantMs: number): number {
  const t = Math.floor(Math.max(instantMs, EARLIEST_OFFSET_MS));
  let year = 0;
  let month = 1;
  let day = 1;
  let hour = 0;
  let minute = 0;
  let second = 0;
  let bc = false;
  for (const part of zone.formatToParts(t)) {
    switch (part.type) {
      case 'year':
        year = Number(part.value);
        break;
      case 'month':
        month = Number(part.value);
        break;
      case 'day':
        day = Number(part.value);
        break;
      case 'hour':
        hour = Number(part.value);
        break;
      case 'minute':
        minute = Number(part.value);
        break;
      case 'second':
        second = Number(part.value);
        break;
      case 'era':
        bc = part.value.startsWith('B');
        break;
      default:
        break;
    }
  }
  if (bc) year = 1 - year;
  const wall = daysFromCivil(year, month, day) * DAY_MS + ((hour * 60 + minute) * 60 + second) * 1000;
  const msOfSecond = ((t % 1000) + 1000) % 1000;
  return wall + msOfSecond - t;
}

/** The wall clock of an instant in the zone. */
export function wallClockOf(instantMs: number, zone: TimeZone): number {
  return zone === undefined ? instantMs : instantMs + offsetAt(zone, instantMs);
}

/** The instant a wall clock stands for: the earlier one on an overlap, `undefined` in a gap. */
export function instantOfWallClock(wallMs: number, zone: TimeZone): number | undefined {
  if (zone === undefined) return wallMs;
  const before = offsetAt(zone, wallMs - DAY_MS);
  const after = offsetAt(zone, wallMs + DAY_MS);
  let best: number | undefined;
  for (const offset of before === after ? [before] : [before, after]) {
    const t = wallMs - offset;
    if (offsetAt(zone, t) === offset && (best === undefined || t < best)) best = t;
  }
  return best;
}

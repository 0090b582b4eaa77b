/**
 * `Date.prototype.toISOString` for years 0-9999 without allocating a Date: about 3x faster,
 * which matters once per event on the capture hot path. Same output, e.g. `2024-06-01T12:00:00.000Z`.
 */

const DAY_MS = 86_400_000;

/** 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z: the instants `formatIsoMs` can write. */
export const ISO_MIN_MS = -62_167_219_200_000;
export const ISO_MAX_MS = 253_402_300_799_999;

function pad2(n: number): string {
  return n < 10 ? `0${n}` : `${n}`;
}

function pad3(n: number): string {
  return n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`;
}

function pad4(n: number): string {
  return n < 1000 ? `0${pad3(n)}` : `${n}`;
}

/** Epoch ms (truncated to an integer, like a Date) -> ISO-8601 UTC with milliseconds. Years 0-9999 only. */
export function formatIsoMs(epochMs: number): string {
  const ms = Math.trunc(epochMs);
  const days = Math.floor(ms / DAY_MS);
  let rem = ms - days * DAY_MS;
  // civilFromDays (src/compat/civil-date.ts) inlined: this runs once per event and returns no object.
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const hour = Math.floor(rem / 3_600_000);
  rem -= hour * 3_600_000;
  const minute = Math.floor(rem / 60_000);
  rem -= minute * 60_000;
  const second = Math.floor(rem / 1000);
  const milli = rem - second * 1000;
  return `${pad4(year)}-${pad2(month)}-${pad2(day)}T${pad2(hour)}:${pad2(minute)}:${pad2(second)}.${pad3(milli)}Z`;
}

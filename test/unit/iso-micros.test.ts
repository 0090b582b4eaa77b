/**
 * Datetimes as PostHog's API prints them: DRF's `DateTimeField` (`value.isoformat()`, `+00:00` as
 * `Z`) and the events API's `timestamp` (`isoformat()` of the UTC time). Python's `isoformat()`
 * leaves the fraction out when the microseconds are 0.
 */
import { describe, expect, it } from 'vitest';
import { apiDateTime, apiDateTimeOrNull, eventApiTimestamp, isoMicros } from '../../src/compat/iso-micros.js';

describe('isoMicros (the stored form)', () => {
  it('always has six fractional digits, so stored values sort as instants', () => {
    expect(isoMicros(new Date('2026-11-28T10:15:00.000Z'))).toBe('2026-11-28T10:15:00.000000Z');
    expect(isoMicros(new Date('2026-11-28T10:15:00.120Z'))).toBe('2026-11-28T10:15:00.120000Z');
  });
});

describe('apiDateTime (DRF)', () => {
  it('leaves out a fraction of zeros and keeps any other, microseconds included', () => {
    expect(apiDateTime('2026-11-28T10:15:00.000000Z')).toBe('2026-11-28T10:15:00Z');
    expect(apiDateTime('2026-11-28T10:15:00.000001Z')).toBe('2026-11-28T10:15:00.000001Z');
    expect(apiDateTime('2026-11-28T10:15:00.123456Z')).toBe('2026-11-28T10:15:00.123456Z');
  });

  it('reads other forms as instants first', () => {
    expect(apiDateTime('2026-11-28T10:15:00.000Z')).toBe('2026-11-28T10:15:00Z');
    expect(apiDateTime('2026-11-28T12:15:00.5+02:00')).toBe('2026-11-28T10:15:00.500000Z');
    expect(apiDateTime('not a date')).toBe('not a date');
    expect(apiDateTimeOrNull(null)).toBeNull();
  });
});

describe('eventApiTimestamp (events API)', () => {
  it('prints +00:00, six fractional digits, none on a whole second', () => {
    expect(eventApiTimestamp('2026-11-28T10:15:00.000Z')).toBe('2026-11-28T10:15:00+00:00');
    expect(eventApiTimestamp('2026-11-28T10:15:00.120Z')).toBe('2026-11-28T10:15:00.120000+00:00');
    expect(eventApiTimestamp('0999-01-02T03:04:05.006Z')).toBe('0999-01-02T03:04:05.006000+00:00');
  });
});

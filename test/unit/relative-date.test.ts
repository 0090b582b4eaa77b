/**
 * PostHog's relative dates for the events API's `after`/`before`, against values worked out from
 * its `relative_date_parse` (dateutil's relativedelta: absolute fields first, then months and
 * years with the day clamped, then the duration); and the part of the grammar flags take, counted
 * both ways (the Rust service's month steps are tested with the flag engine).
 */
import { describe, expect, it } from 'vitest';
import { parseFlagRelativeDate, relativeDateParse, relativeDeltaBefore, subtractRelative } from '../../src/compat/relative-date.js';

const NOW = Date.parse('2026-03-31T10:20:30.456Z');
const iso = (text: string) => {
  const ms = relativeDateParse(text, NOW);
  return ms === undefined ? undefined : new Date(Math.floor(ms)).toISOString() + (ms % 1 === 0 ? '' : '+');
};

describe('relativeDateParse', () => {
  it.each([
    ['-7d', '2026-03-24T10:20:30.456Z'],
    ['7d', '2026-03-24T10:20:30.456Z'],
    ['-1h', '2026-03-31T09:20:30.456Z'],
    ['-30M', '2026-03-31T09:50:30.456Z'],
    ['-45s', '2026-03-31T10:19:45.456Z'],
    ['-2w', '2026-03-17T10:20:30.456Z'],
    ['-1q', '2025-12-30T10:20:30.456Z'],
    ['-1m', '2026-02-28T10:20:30.456Z'], // March 31 less a month: the day clamped to February's length
    ['-13m', '2025-02-28T10:20:30.456Z'],
    ['-1y', '2025-03-31T10:20:30.456Z'],
    ['-1dStart', '2026-03-30T00:00:00.000Z'],
    ['dStart', '2026-03-31T00:00:00.000Z'],
    ['-1dEnd', '2026-03-30T23:59:59.999Z+'],
    ['-3hStart', '2026-03-31T07:00:00.000Z'],
    ['hEnd', '2026-03-31T10:59:59.999Z+'],
    ['mStart', '2026-03-01T10:20:30.456Z'], // the time of day stays, as in PostHog
    ['-1mEnd', '2026-02-28T10:20:30.456Z'],
    ['yStart', '2026-01-01T10:20:30.456Z'],
    ['-1yEnd', '2025-03-31T10:20:30.456Z'],
    ['-2wStart', '2026-03-17T10:20:30.456Z'], // no position for weeks
  ])('%s', (text, expected) => {
    expect(iso(text)).toBe(expected);
  });

  it('takes the whole text or nothing', () => {
    for (const text of ['', '-7', '7 days', 'x-7d', '-7dx', '-7D', '-7H', 'd-7', '--7d', '-7dstart', '2026-01-01']) {
      expect(relativeDateParse(text, NOW), text).toBeUndefined();
    }
  });
});

describe('flag relative dates', () => {
  it('are the grammar with digits, n < 10000, units h d w m y and no Start/End', () => {
    expect(parseFlagRelativeDate('-2m')).toEqual({ amount: 2, unit: 'm' });
    for (const text of ['-m', '-10000d', '-1M', '-1s', '-1q', '-1dStart', '-1mEnd']) {
      expect(parseFlagRelativeDate(text), text).toBeUndefined();
      if (text !== '-10000d') expect(relativeDateParse(text, NOW), text).toBeDefined();
    }
  });

  it('count months in one step as Django does, or a step at a time as the Rust service does', () => {
    const rel = parseFlagRelativeDate('-2m')!;
    expect(new Date(relativeDeltaBefore(rel, NOW)!).toISOString()).toBe('2026-01-31T10:20:30.456Z');
    expect(new Date(subtractRelative(NOW, rel)).toISOString()).toBe('2026-01-28T10:20:30.456Z');
  });
});

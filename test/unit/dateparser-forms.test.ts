/**
 * The date forms the Rust flags service reads through the `dateparser` crate (its last resort),
 * with the crate's own examples, read in UTC as the service's servers run: month names, zone
 * abbreviations, 12-hour clocks, two-digit years, and date-only forms at the time of day of now.
 */
import { describe, expect, it } from 'vitest';
import { parseDateparserForm } from '../../src/compat/dateparser-forms.js';
import { compilePropertyMatcher } from '../../src/flags/engine/match-property.js';

const NOW = Date.parse('2026-11-27T15:04:05.123Z');

function iso(s: string): string | undefined {
  const instant = parseDateparserForm(s, NOW);
  return instant === undefined ? undefined : new Date(instant.ms).toISOString();
}

describe('parseDateparserForm', () => {
  it('reads month names, full or three letters in any case, with two-digit years as 1970-2069', () => {
    expect(iso('May 25, 2021')).toBe('2021-05-25T15:04:05.123Z'); // no time: now's time of day
    expect(iso('oct 7, 70')).toBe('1970-10-07T15:04:05.123Z');
    expect(iso('oct. 7, 1970')).toBe('1970-10-07T15:04:05.123Z');
    expect(iso('October 7, 1970')).toBe('1970-10-07T15:04:05.123Z');
    expect(iso('Jan 5, 24')).toBe('2024-01-05T15:04:05.123Z');
    expect(iso('2021-Feb-21')).toBe('2021-02-21T15:04:05.123Z');
    expect(iso('7 oct 70')).toBe('1970-10-07T15:04:05.123Z');
    expect(iso('1 July 2013')).toBe('2013-07-01T15:04:05.123Z');
  });

  it('reads times, 12-hour clocks and zone abbreviations', () => {
    expect(iso('May 8, 2009 5:57:51 PM')).toBe('2009-05-08T17:57:51.000Z');
    expect(iso('September 17, 2012 10:09am')).toBe('2012-09-17T10:09:00.000Z');
    expect(iso('September 17, 2012, 10:10:09')).toBe('2012-09-17T10:10:09.000Z');
    expect(iso('May 02, 2021 15:51:31 UTC')).toBe('2021-05-02T15:51:31.000Z');
    expect(iso('May 26, 2021, 12:49 AM PDT')).toBe('2021-05-26T07:49:00.000Z');
    expect(iso('September 17, 2012 at 10:09am PST')).toBe('2012-09-17T18:09:00.000Z');
    expect(iso('12 Feb 2006, 19:17')).toBe('2006-02-12T19:17:00.000Z');
    expect(iso('14 May 2019 19:11:40.164')).toBe('2019-05-14T19:11:40.164Z');
    expect(iso('2017-11-25 13:31:15 PST')).toBe('2017-11-25T21:31:15.000Z');
    expect(iso('2017-11-25 13:31 EST')).toBe('2017-11-25T18:31:00.000Z');
    expect(iso('2014-04-26 13:13:44 +09:00')).toBe('2014-04-26T04:13:44.000Z');
    expect(iso('2014-04-26 05:24:37 PM')).toBe('2014-04-26T17:24:37.000Z');
    // A date in a zone takes now's time of day in that zone: 07:04 in PST is 15:04 UTC.
    expect(iso('2021-02-21 PST')).toBe('2021-02-21T15:04:05.123Z');
    expect(iso('2021-02-21 XYZ')).toBe('2021-02-21T15:04:05.123Z'); // unknown letters: UTC
    expect(iso('Wed, 02 Jun 2021 06:31:39 PDT')).toBe('2021-06-02T13:31:39.000Z');
    expect(iso('02 Jun 2021 06:31 Z')).toBe('2021-06-02T06:31:00.000Z');
    expect(iso('Wed, 02 Jun 2021 06:31:39 XYZ')).toBeUndefined(); // chrono knows no such RFC 2822 zone
  });

  it('puts a date without a year in the current one', () => {
    expect(iso('May 27 02:45:27')).toBe('2026-05-27T02:45:27.000Z');
    expect(iso('May 6 at 9:24 PM')).toBe('2026-05-06T21:24:00.000Z');
  });

  it('reads nothing else', () => {
    for (const s of [
      'May 25 2021',
      'Sept 17, 2012',
      'Foo 25, 2021',
      'May 32, 2021',
      'May 8, 2009 13:00 PM',
      '12 Feb 2006 19:17.5',
      '2021-02-21 123',
      'hello',
    ]) {
      expect({ s, parsed: iso(s) }).toEqual({ s, parsed: undefined });
    }
  });
});

describe('date operators with dateparser forms', () => {
  const now = new Date(NOW);
  it('match a property value and a filter value written with month names', () => {
    const before = compilePropertyMatcher({ key: 'signup', operator: 'is_date_before', value: '2027-01-01', type: 'person' });
    expect(before('January 15, 2024', true, now)).toBe(true);
    expect(before('2021-02-21 PST', true, now)).toBe(true);
    expect(before('January 15, 2028', true, now)).toBe(false);
    const after = compilePropertyMatcher({ key: 'signup', operator: 'is_date_after', value: 'March 1, 2024', type: 'person' });
    expect(after('2024-03-02', true, now)).toBe(true);
    expect(after('2024-02-28', true, now)).toBe(false);
  });
});

/** The pure readers behind property matching: Rust value printing, semver, relative dates, time zones. */

import { describe, expect, it } from 'vitest';
import { asciiLower, rustAsF64, rustNumberString, rustParseF64, rustTrim, rustValueString } from '../../src/flags/engine/coerce.js';
import {
  parseAbsoluteDateText,
  propertyDateInstant,
  resolveRelativeDate,
  unixSecondsInstant,
} from '../../src/flags/engine/property-date.js';
import { parseFlagRelativeDate, subtractRelative } from '../../src/compat/relative-date.js';
import { compareSemver, parseSemverRequirement, parseStrictSemver, semverSatisfies, toSemver } from '../../src/flags/engine/semver.js';
import { instantOfWallClock, resolveTimeZone, wallClockOf } from '../../src/flags/engine/wall-clock.js';

describe('coerce', () => {
  it('prints values as serde_json does', () => {
    expect(rustValueString('text')).toBe('text');
    expect(rustValueString(null)).toBe('null');
    expect(rustValueString(undefined)).toBe('null');
    expect(rustValueString(true)).toBe('true');
    expect(rustValueString([1, 'a', null, { b: 2, a: [true] }])).toBe('[1,"a",null,{"a":[true],"b":2}]');
    expect(rustValueString('say "hi"')).toBe('say "hi"');
    expect(rustValueString(['say "hi"\n'])).toBe('["say \\"hi\\"\\n"]');
  });

  it('prints numbers as ryu does', () => {
    expect(rustNumberString(123)).toBe('123');
    expect(rustNumberString(-7)).toBe('-7');
    expect(rustNumberString(1.5)).toBe('1.5');
    expect(rustNumberString(0.1)).toBe('0.1');
    expect(rustNumberString(0.00001)).toBe('0.00001');
    expect(rustNumberString(0.000001)).toBe('1e-6');
    expect(rustNumberString(1.5e-7)).toBe('1.5e-7');
    expect(rustNumberString(-0.25)).toBe('-0.25');
    expect(rustNumberString(123456.789)).toBe('123456.789');
    expect(rustNumberString(9007199254740993)).toBe('9007199254740992');
    expect(rustNumberString(1e20)).toBe('1e20'); // beyond u64: serde_json holds it as a float
    expect(rustNumberString(2e19)).toBe('2e19');
    expect(rustNumberString(1.2345e25)).toBe('1.2345e25');
  });

  it('parses floats with Rust grammar', () => {
    expect(rustParseF64('1e3')).toBe(1000);
    expect(rustParseF64('+5')).toBe(5);
    expect(rustParseF64('.5')).toBe(0.5);
    expect(rustParseF64('5.')).toBe(5);
    expect(rustParseF64('-inf')).toBe(-Infinity);
    expect(rustParseF64('Infinity')).toBe(Infinity);
    expect(rustParseF64('NaN')).toBeNaN();
    for (const bad of ['', ' 5', '5 ', '0x10', '5px', '1_000', '.', 'e5', '1e']) {
      expect(rustParseF64(bad)).toBeUndefined();
    }
    expect(rustAsF64(42)).toBe(42);
    expect(rustAsF64('42')).toBe(42);
    expect(rustAsF64(true)).toBeUndefined();
    expect(rustAsF64(null)).toBeUndefined();
  });

  it('lower-cases ASCII only and trims Unicode White_Space', () => {
    expect(asciiLower('ÉCOLE Abc')).toBe('École abc');
    expect(rustTrim('\u0085 1.2.3\u3000')).toBe('1.2.3');
    expect(rustTrim('\ufeff1')).toBe('\ufeff1');
  });
});

describe('semver', () => {
  const v = (s: string) => {
    const parsed = parseStrictSemver(s);
    if (parsed === undefined) throw new Error(`not a version: ${s}`);
    return parsed;
  };

  it('parses strict versions only', () => {
    expect(parseStrictSemver('1.2.3-alpha.1+build.007')).toEqual({
      major: '1',
      minor: '2',
      patch: '3',
      pre: ['alpha', '1'],
      build: ['build', '007'],
    });
    const bad = ['1.2', '01.2.3', '1.2.3-01', '1.2.3-', '1.2.3+', '1.2.3-a..b', ' 1.2.3', '1.2.3 ', '18446744073709551616.0.0'];
    for (const text of bad) {
      expect(parseStrictSemver(text)).toBeUndefined();
    }
    expect(parseStrictSemver('18446744073709551615.0.0')?.major).toBe('18446744073709551615');
  });

  it('reads values the Rust way: lower-case v, trim, strip zeros, pad', () => {
    expect(toSemver('v1.2')).toMatchObject({ major: '1', minor: '2', patch: '0' });
    expect(toSemver('3.08')).toMatchObject({ major: '3', minor: '8', patch: '0' });
    expect(toSemver('1.02.3-beta')).toMatchObject({ minor: '2', pre: ['beta'] });
    expect(toSemver(' v1.2.3')).toBeUndefined(); // v is stripped before trimming
    expect(toSemver('v 1.2.3')).toMatchObject({ major: '1' });
    expect(toSemver('V1.2.3')).toBeUndefined();
    expect(toSemver(2)).toMatchObject({ major: '2', minor: '0', patch: '0' });
    expect(toSemver(null)).toBeUndefined();
  });

  it('orders by SemVer precedence, then build metadata', () => {
    const order = [
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
      '1.0.0+0',
      '1.0.0+00',
      '1.0.0+1',
      '1.0.0+a',
      '2.0.0',
      '10.0.0',
    ];
    for (let i = 0; i + 1 < order.length; i++) {
      expect(compareSemver(v(order[i] as string), v(order[i + 1] as string))).toBeLessThan(0);
      expect(compareSemver(v(order[i + 1] as string), v(order[i] as string))).toBeGreaterThan(0);
    }
    expect(compareSemver(v('1.0.0+b'), v('1.0.0+b'))).toBe(0);
  });

  it('parses and applies Cargo-style requirements', () => {
    const sat = (req: string, version: string): boolean => {
      const parsed = parseSemverRequirement(req);
      if (parsed === undefined) throw new Error(`bad requirement: ${req}`);
      return semverSatisfies(parsed, v(version));
    };
    expect(sat('~1.2.3', '1.2.9')).toBe(true);
    expect(sat('~1.2.3', '1.3.0')).toBe(false);
    expect(sat('~1', '1.9.0')).toBe(true);
    expect(sat('^0.2.3', '0.2.9')).toBe(true);
    expect(sat('^0.2.3', '0.3.0')).toBe(false);
    expect(sat('^0.0.3', '0.0.4')).toBe(false);
    expect(sat('^0.0', '0.0.7')).toBe(true);
    expect(sat('^0.0', '0.1.0')).toBe(false);
    expect(sat('^1.2', '1.9.0')).toBe(true);
    expect(sat('1.x', '1.5.0')).toBe(true);
    expect(sat('1.2.X', '1.3.0')).toBe(false);
    expect(sat('>=1.2, <2', '1.9.9')).toBe(true);
    expect(sat('>= 1.2 , < 2', '2.0.0')).toBe(false);
    expect(sat('>1.*', '2.0.0')).toBe(true);
    expect(sat('>1.*', '1.9.0')).toBe(false);
    expect(sat('=1.2', '1.2.7')).toBe(true);
    expect(sat('<=1.2.3', '1.2.3-alpha')).toBe(false); // the requirement names no pre-release
    expect(sat('*', '1.0.0')).toBe(true);
    expect(sat('  *  ', '0.0.1')).toBe(true);
    for (const bad of ['', '1.*.3', '*.1', '* , 1', '1.2.3 1.2.4', '1.2,', '~*', '01.2', '1.2-beta', '1.2.3-', 'v1.2.3']) {
      expect(parseSemverRequirement(bad)).toBeUndefined();
    }
  });

  it('lets a pre-release satisfy only requirements naming a pre-release of its own triple', () => {
    const req = parseSemverRequirement('>=1.2.3-alpha');
    expect(req).toBeDefined();
    expect(semverSatisfies(req ?? [], v('1.2.3-beta'))).toBe(true);
    expect(semverSatisfies(req ?? [], v('1.2.4-beta'))).toBe(false);
    expect(semverSatisfies(req ?? [], v('1.2.4'))).toBe(true);
  });
});

describe('relative dates', () => {
  const at = (text: string, now: string): string | undefined => {
    const rel = parseFlagRelativeDate(text);
    if (rel === undefined) return undefined;
    const ms = resolveRelativeDate(rel, Date.parse(now), undefined);
    return ms === undefined ? undefined : new Date(ms).toISOString();
  };

  it('accepts [-]<n><h|d|w|m|y> with n < 10000; the sign is ignored', () => {
    expect(parseFlagRelativeDate('-3d')).toEqual({ amount: 3, unit: 'd' });
    expect(parseFlagRelativeDate('3d')).toEqual({ amount: 3, unit: 'd' });
    expect(parseFlagRelativeDate('0009999y')).toEqual({ amount: 9999, unit: 'y' });
    for (const bad of ['10000d', '+3d', '3D', ' 3d', '3 d', '3s', '-d', '1.5d']) {
      expect(parseFlagRelativeDate(bad)).toBeUndefined();
    }
  });

  it('steps months one at a time, clamping the day each step (Rust), years clamp Feb 29', () => {
    expect(at('1m', '2020-03-31T12:00:00Z')).toBe('2020-02-29T12:00:00.000Z');
    expect(at('1m', '2019-03-31T12:00:00Z')).toBe('2019-02-28T12:00:00.000Z');
    expect(at('2m', '2020-03-31T12:00:00Z')).toBe('2020-01-29T12:00:00.000Z'); // relativedelta would say Jan 31
    expect(at('3m', '2020-05-31T00:00:00Z')).toBe('2020-02-29T00:00:00.000Z');
    expect(at('13m', '2021-01-31T00:00:00Z')).toBe('2019-12-29T00:00:00.000Z'); // clamped by Feb 2020
    expect(at('1y', '2020-02-29T12:00:00Z')).toBe('2019-02-28T12:00:00.000Z');
    expect(at('4y', '2020-02-29T12:00:00Z')).toBe('2016-02-28T12:00:00.000Z');
    expect(at('1y', '2020-03-31T00:00:00Z')).toBe('2019-03-31T00:00:00.000Z');
    expect(at('9999y', '2020-01-01T12:00:00Z')).toBe('-007979-01-01T12:00:00.000Z');
    expect(at('9999m', '2020-01-31T00:00:00Z')).toBe('1186-10-28T00:00:00.000Z');
    expect(at('9999h', '2020-01-01T00:00:00Z')).toBe('2018-11-10T09:00:00.000Z');
    expect(subtractRelative(Date.UTC(2024, 0, 1, 5, 6, 7, 8), { amount: 2, unit: 'w' })).toBe(Date.UTC(2023, 11, 18, 5, 6, 7, 8));
  });
});

describe('time zones and date text', () => {
  const la = resolveTimeZone('America/Los_Angeles');

  it('converts between instants and wall clocks', () => {
    expect(resolveTimeZone(undefined)).toBeUndefined();
    expect(resolveTimeZone('UTC')).toBeUndefined();
    expect(resolveTimeZone('Not/AZone')).toBeUndefined();
    expect(wallClockOf(Date.UTC(2024, 5, 3, 9), la)).toBe(Date.UTC(2024, 5, 3, 2));
    expect(instantOfWallClock(Date.UTC(2024, 5, 3, 2), la)).toBe(Date.UTC(2024, 5, 3, 9));
    expect(instantOfWallClock(Date.UTC(2024, 2, 10, 2, 30), la)).toBeUndefined(); // spring-forward gap
    expect(instantOfWallClock(Date.UTC(2024, 10, 3, 1, 30), la)).toBe(Date.UTC(2024, 10, 3, 8, 30)); // earlier of two
    const kolkata = resolveTimeZone('Asia/Kolkata');
    expect(instantOfWallClock(Date.UTC(2024, 0, 1), kolkata)).toBe(Date.UTC(2023, 11, 31, 18, 30));
  });

  it('reads RFC 3339, offset-less forms in the zone, and the fallback forms', () => {
    const utc = (s: string) => parseAbsoluteDateText(s, undefined);
    expect(utc('2024-06-01T10:00:00.123456789+02:00')).toEqual({
      ms: Date.UTC(2024, 5, 1, 8, 0, 0, 123),
      ns: 456789,
    });
    expect(utc('2024-06-01 10:00:00z')).toEqual({ ms: Date.UTC(2024, 5, 1, 10), ns: 0 });
    expect(utc('2024-06-01t10:00:00\u221201:30')).toEqual({ ms: Date.UTC(2024, 5, 1, 11, 30), ns: 0 });
    expect(utc('2024-6-1')).toEqual({ ms: Date.UTC(2024, 5, 1), ns: 0 });
    expect(utc(' 2024-06-01 7:05')).toEqual({ ms: Date.UTC(2024, 5, 1, 7, 5), ns: 0 });
    expect(utc('2024-06-01T07:05:09.5')).toEqual({ ms: Date.UTC(2024, 5, 1, 7, 5, 9, 500), ns: 0 });
    expect(utc('2022-04-05 12:34:12 +01:00')).toEqual({ ms: Date.UTC(2022, 3, 5, 11, 34, 12), ns: 0 });
    expect(utc('2022-05-01 00:00:00 GMT')).toEqual({ ms: Date.UTC(2022, 4, 1), ns: 0 });
    expect(utc('2024/06/01')).toEqual({ ms: Date.UTC(2024, 5, 1), ns: 0 });
    for (const bad of ['2024-02-30', '2024-06-01T24:00:00Z', '2024-06-01T10:00:00+24:00', 'abcdef']) {
      expect(utc(bad)).toBeUndefined();
    }
    expect(parseAbsoluteDateText('2024-06-01', la)).toEqual({ ms: Date.UTC(2024, 5, 1, 7), ns: 0 });
    expect(parseAbsoluteDateText('2024-06-01T00:00:00Z', la)).toEqual({ ms: Date.UTC(2024, 5, 1), ns: 0 });
    expect(parseAbsoluteDateText('2024-03-10 02:30', la)).toBeUndefined();
  });

  it('reads property values: numbers are Unix seconds', () => {
    const now = Date.UTC(2024, 0, 1);
    expect(propertyDateInstant(1836277747.86753, undefined, now)).toEqual({ ms: 1836277747867, ns: 530107 });
    expect(propertyDateInstant('1836277747', undefined, now)).toEqual({ ms: 1836277747000, ns: 0 });
    expect(propertyDateInstant('-1d', undefined, now)).toEqual({ ms: now - 86_400_000, ns: 0 });
    expect(propertyDateInstant(null, undefined, now)).toBeUndefined();
    expect(propertyDateInstant(62802180000012344, undefined, now)).toBeUndefined();
    expect(unixSecondsInstant(NaN)).toEqual({ ms: 0, ns: 0 });
    expect(unixSecondsInstant(Infinity)).toBeUndefined();
    expect(unixSecondsInstant(-1.5)).toEqual({ ms: -2000, ns: 0 });
  });
});

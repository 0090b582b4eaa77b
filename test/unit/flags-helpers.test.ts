import { describe, expect, it } from 'vitest';
import { parseDrfDateTime } from '../../src/compat/drf-datetime.js';
import { parseFlagDateValue } from '../../src/flags/flag-date-value.js';
import { compileFlagRegex } from '../../src/flags/flag-regex.js';
import { jsonEqual } from '../../src/flags/json-equal.js';
import { pythonJsonDumps, pythonRepr, pythonStr, pythonStrip, pythonTypeName } from '../../src/compat/python-repr.js';
import { tagify, tagifyAll } from '../../src/flags/tagify.js';

describe('pythonRepr / pythonStr', () => {
  it('prints like Python', () => {
    expect(pythonRepr(['@posthog.com'])).toBe("['@posthog.com']");
    expect(pythonRepr([1, 2])).toBe('[1, 2]');
    expect(pythonRepr([true, false, null])).toBe('[True, False, None]');
    expect(pythonRepr({ a: [1.5, 'x'] })).toBe("{'a': [1.5, 'x']}");
    expect(pythonRepr("it's")).toBe(`"it's"`);
    expect(pythonRepr(`it's "q"`)).toBe(`'it\\'s "q"'`);
    expect(pythonRepr('a\\b\n\t\x01\u00a0é')).toBe("'a\\\\b\\n\\t\\x01\\xa0é'");
    expect(pythonRepr(0.00001)).toBe('1e-05');
    expect(pythonRepr(1e-7)).toBe('1e-07');
    expect(pythonRepr(0.5)).toBe('0.5');
    expect(pythonStr('plain')).toBe('plain');
    expect(pythonStr(null)).toBe('None');
  });

  it('names types and strips like Python', () => {
    expect([null, true, 1, 1.5, 's', [], {}].map(pythonTypeName)).toEqual(['NoneType', 'bool', 'int', 'float', 'str', 'list', 'dict']);
    expect(pythonStrip('\x1c a \u3000')).toBe('a');
    expect(pythonStrip('\ufeffa')).toBe('\ufeffa');
  });

  it('json.dumps with default separators and ASCII escapes', () => {
    expect(pythonJsonDumps({ a: 1, b: [true, null, 'x"y'], c: { d: 'ü😀' } })).toBe(
      '{"a": 1, "b": [true, null, "x\\"y"], "c": {"d": "\\u00fc\\ud83d\\ude00"}}',
    );
    expect(JSON.parse(pythonJsonDumps({ k: 'é\n' }))).toEqual({ k: 'é\n' });
  });
});

describe('jsonEqual', () => {
  it('ignores key order, not array order or types', () => {
    expect(jsonEqual({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBe(true);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual({ a: undefined }, {})).toBe(false);
    expect(jsonEqual(null, {})).toBe(false);
    expect(jsonEqual(1, '1')).toBe(false);
    expect(jsonEqual([], {})).toBe(false);
  });
});

describe('tagify', () => {
  it('trims, lower-cases, de-duplicates and drops empty tags', () => {
    expect(tagify('  Beta ')).toBe('beta');
    expect(tagifyAll(['B', 'a', 'b ', '  ', 'A'])).toEqual(['b', 'a']);
  });
});

describe('compileFlagRegex', () => {
  it('uses the strict (u) dialect', () => {
    expect(compileFlagRegex('2.3.9{0-9}{1}')).toBeUndefined();
    expect(compileFlagRegex('a{')).toBeUndefined();
    expect(compileFlagRegex('(')).toBeUndefined();
    expect(compileFlagRegex('\\q')).toBeUndefined();
    const re = compileFlagRegex('^[a-z]+@posthog\\.com$');
    expect(re?.search('max@posthog.com')).toBe(true);
    expect(compileFlagRegex('^[a-z]+@posthog\\.com$')).toBe(re); // cached
    expect(compileFlagRegex('a{2}')?.search('aa')).toBe(true);
  });

  it('runs back-references and lookaround with a backtrack limit, and says when a search gave up', () => {
    const re = compileFlagRegex('^(?=(a+)+$)');
    expect(re?.search('aaaa')).toBe(true);
    expect(re?.search('aaab')).toBe(false);
    expect(re?.search(`${'a'.repeat(40)}!`)).toBeUndefined(); // unbounded: 2^40 ways to split the a's
    // The pattern's own groups keep their numbers, and an alternation stays whole.
    expect(compileFlagRegex('(a)(b)?\\1|(?<=x)y')?.search('aba')).toBe(true);
    expect(compileFlagRegex('(a)(b)?\\1|(?<=x)y')?.search('abb')).toBe(false);
    expect(compileFlagRegex('(a)(b)?\\1|(?<=x)y')?.search('xy')).toBe(true);
    expect(compileFlagRegex('^(?!$)')?.search('')).toBe(false);
  });

  it('gives up at once where a search of a long input would cost more than its bound', () => {
    // Unbounded, each of these holds a thread for seconds on a value a /flags caller may send.
    const cases: [string, string][] = [
      ['(?=a*b)', 'a'.repeat(300_000)], // a greedy loop from every start position: 16 s
      ['^(a+)\\1+b0$', 'a'.repeat(60_000)], // a back-reference compared at every backtrack: 80 ms
      ['^(?=a*a*b)', 'a'.repeat(60_000)], // steps back that V8 counts as no backtrack: 2.9 s
      ['^(?:(?=a*$)a)*$', 'a'.repeat(60_000)], // no backtrack at all: 0.6 s, and it matches
    ];
    for (const [pattern, input] of cases) {
      const started = performance.now();
      expect(compileFlagRegex(pattern)?.search(input), pattern).toBeUndefined();
      expect(performance.now() - started, pattern).toBeLessThan(100);
    }
    // Short enough, the same patterns are searched and answer.
    expect(compileFlagRegex('(?=a*b)')?.search('a'.repeat(500))).toBe(false);
    expect(compileFlagRegex('(?=a*b)')?.search(`${'a'.repeat(500)}b`)).toBe(true);
    expect(compileFlagRegex('^(?:(?=a*$)a)*$')?.search('a'.repeat(300))).toBe(true);
    // Ordinary values (up to ALWAYS_SEARCHED_LENGTH) are searched whatever the estimate says.
    expect(compileFlagRegex('\\b(\\w+)\\b.*\\b\\1\\b')?.search('the quick brown fox jumps over the lazy dog')).toBe(true);
    expect(compileFlagRegex('\\b(\\w+)\\b.*\\b\\1\\b')?.search('a quick brown fox jumps over the lazy dog')).toBe(false);
    expect(compileFlagRegex('(\\w+)\\s+\\1')?.search(`${'x'.repeat(100)} hello hello`)).toBe(true);
    expect(
      compileFlagRegex('^(?=.*utm_source)(?=.*utm_campaign)')?.search(
        `https://example.com/?${'p=1&'.repeat(200)}utm_campaign=a&utm_source=b`,
      ),
    ).toBe(true);
    // A cheap pattern anchored at the start is searched in a long value.
    const anchored = compileFlagRegex('^(?!.*internal)');
    expect(anchored?.search(`https://example.com/?${'q=1&'.repeat(50_000)}`)).toBe(true);
    expect(anchored?.search(`https://example.com/?${'q=1&'.repeat(50_000)}internal`)).toBe(false);
  });
});

describe('parseDrfDateTime', () => {
  it('accepts Django ISO forms and prints microseconds in UTC', () => {
    expect(parseDrfDateTime('2021-08-25T22:09:14.252Z')).toBe('2021-08-25T22:09:14.252000Z');
    expect(parseDrfDateTime('2021-08-25T22:09')).toBe('2021-08-25T22:09:00.000000Z');
    expect(parseDrfDateTime('2021-08-25T00:30:00-01:00')).toBe('2021-08-25T01:30:00.000000Z');
    expect(parseDrfDateTime('2021-08-25T00:30:00+0100')).toBe('2021-08-24T23:30:00.000000Z');
    expect(parseDrfDateTime('2021-8-5 1:2:3,5')).toBe('2021-08-05T01:02:03.500000Z');
    expect(parseDrfDateTime('2024-02-29')).toBe('2024-02-29T00:00:00.000000Z');
    expect(parseDrfDateTime('0001-01-01T00:00:00Z')).toBe('0001-01-01T00:00:00.000000Z');
  });

  it('rejects other text', () => {
    for (const bad of ['2023-02-29', '2021-08-25T24:00', '2021-08-25T10:60', '25/08/2021', '2021-08-25Z', 'x']) {
      expect(parseDrfDateTime(bad), bad).toBeUndefined();
    }
    expect(parseDrfDateTime('0001-01-01T00:00:00+01:00')).toBeUndefined();
  });
});

describe('parseFlagDateValue', () => {
  const now = new Date('2024-03-31T12:00:00Z');
  it('resolves relative dates against now', () => {
    expect(parseFlagDateValue('-1h', now)?.toISOString()).toBe('2024-03-31T11:00:00.000Z');
    expect(parseFlagDateValue('-2d', now)?.toISOString()).toBe('2024-03-29T12:00:00.000Z');
    expect(parseFlagDateValue('1w', now)?.toISOString()).toBe('2024-03-24T12:00:00.000Z');
    expect(parseFlagDateValue('-1m', now)?.toISOString()).toBe('2024-02-29T12:00:00.000Z');
    expect(parseFlagDateValue('-13m', now)?.toISOString()).toBe('2023-02-28T12:00:00.000Z');
    expect(parseFlagDateValue('-1y', now)?.toISOString()).toBe('2023-03-31T12:00:00.000Z');
    expect(parseFlagDateValue('-9999d', now)).toBeDefined();
    expect(parseFlagDateValue('-10000d', now)).toBeUndefined();
    expect(parseFlagDateValue('-1x', now)).toBeUndefined();
  });

  it('parses absolute dates (UTC when no zone)', () => {
    expect(parseFlagDateValue('2024-01-15', now)?.toISOString()).toBe('2024-01-15T00:00:00.000Z');
    expect(parseFlagDateValue('2024-01-15T10:00:00+02:00', now)?.toISOString()).toBe('2024-01-15T08:00:00.000Z');
    expect(parseFlagDateValue('20240115', now)?.toISOString()).toBe('2024-01-15T00:00:00.000Z');
    for (const bad of ['1234-02-993284', '1700000000', 'tomorrow', null, ['2024-01-01']]) {
      expect(parseFlagDateValue(bad, now)).toBeUndefined();
    }
  });
});

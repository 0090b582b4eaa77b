import { describe, expect, it } from 'vitest';
import { parseBoolParam, parseFlagsQuery, parseVersion } from '../../src/flag-requests/flags-query.js';

describe('parseFlagsQuery: /flags', () => {
  it.each([
    ['', 'flags-v2', true], // neither v nor config: v=2&config=true
    ['v=2', 'flags-v2', false],
    ['v=3', 'flags-v2', false],
    ['v=99', 'flags-v2', false],
    ['v=1', 'flags-v1', false],
    ['v=0', 'flags-v1', false],
    ['v=-5', 'flags-v1', false],
    ['v=abc', 'flags-v1', false], // unparsable -> 1
    ['v=2.0', 'flags-v1', false],
    ['v=99999999999', 'flags-v1', false], // beyond i32 -> 1
    ['v=%2B2', 'flags-v2', false],
    ['v=+2', 'flags-v1', false], // '+' is a space in a query string: " 2" does not parse
    ['v=', 'flags-v2', true], // empty = absent
    ['config=true', 'flags-v1', true], // explicit config, no v -> v1
    ['config=false', 'flags-v1', false],
    ['v=2&config=true', 'flags-v2', true],
    ['v=2&config', 'flags-v2', true],
    ['version=2', 'flags-v2', false], // `version` is the field, `v` its alias
    ['ver=1.2.3&_=1700000000000&compression=base64', 'flags-v2', true], // other params do not count
  ])('%j -> %s, config %s', (query, format, config) => {
    expect(parseFlagsQuery(query, 'flags')).toEqual({ format, config, onlySurveyFlags: false });
  });
});

describe('parseFlagsQuery: /decide', () => {
  it.each([
    ['', 'decide-v1', true], // config forced on, no v -> decide v1
    ['v=1', 'decide-v1', true],
    ['v=2', 'decide-v2', true],
    ['v=3', 'flags-v1', true],
    ['v=4', 'flags-v2', true],
    ['v=7', 'flags-v2', true],
    ['v=0', 'decide-v1', true], // any other version -> decide v1
    ['v=-1', 'decide-v1', true],
    ['v=abc', 'decide-v1', true], // unparsable -> 1
    ['v=3&config=false', 'flags-v1', false],
    ['v=3&config=0', 'flags-v1', false],
    ['v=4&config=1', 'flags-v2', true],
  ])('%j -> %s, config %s', (query, format, config) => {
    expect(parseFlagsQuery(query, 'decide')).toEqual({ format, config, onlySurveyFlags: false });
  });
});

describe('query helpers', () => {
  it('parses config like Rust deserialize_optional_bool', () => {
    expect(parseBoolParam(null)).toBe(null);
    for (const t of ['', 'true', 'TRUE', '1', 'yes', 'on', 'On', 'anything']) expect(parseBoolParam(t)).toBe(true);
    for (const f of ['false', 'False', '0', 'no', 'NO', 'off']) expect(parseBoolParam(f)).toBe(false);
  });

  it('parses versions like Rust parse::<i32>().unwrap_or(1)', () => {
    expect(parseVersion('4')).toBe(4);
    expect(parseVersion('-3')).toBe(-3);
    expect(parseVersion('+3')).toBe(3);
    expect(parseVersion('007')).toBe(7);
    expect(parseVersion(' 3')).toBe(1);
    expect(parseVersion('3 ')).toBe(1);
    expect(parseVersion('3e0')).toBe(1);
    expect(parseVersion('2147483647')).toBe(2147483647);
    expect(parseVersion('2147483648')).toBe(1);
  });
});

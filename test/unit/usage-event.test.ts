import { describe, expect, it } from 'vitest';
import { breakdownText, NONE_LABEL, usageContribution } from '../../src/dashboards/usage-event.js';

const TS = '2026-11-05T23:59:59.999Z';

function event(name: string, properties: Record<string, unknown>, timestamp = TS) {
  return { event: name, properties, timestamp };
}

describe('usageContribution', () => {
  it('counts $feature_flag_called by $feature_flag, broken down by $feature_flag_response', () => {
    expect(usageContribution(event('$feature_flag_called', { $feature_flag: 'beta', $feature_flag_response: 'control' }))).toEqual({
      event: '$feature_flag_called',
      flagKey: 'beta',
      breakdown: 'control',
      day: '2026-11-05',
    });
  });

  it('counts $feature_view and $feature_interaction by feature_flag, without breakdown', () => {
    for (const name of ['$feature_view', '$feature_interaction']) {
      expect(usageContribution(event(name, { feature_flag: 'beta', $feature_flag_response: 'test' }))).toEqual({
        event: name,
        flagKey: 'beta',
        breakdown: '',
        day: '2026-11-05',
      });
    }
  });

  it('reads the flag from the property its event names, not the other one', () => {
    expect(usageContribution(event('$feature_flag_called', { feature_flag: 'beta' }))).toBeUndefined();
    expect(usageContribution(event('$feature_view', { $feature_flag: 'beta' }))).toBeUndefined();
    expect(usageContribution(event('$feature_interaction', { $feature_flag: 'beta' }))).toBeUndefined();
  });

  it('ignores other events', () => {
    for (const name of ['$pageview', 'feature_flag_called', '$FEATURE_VIEW', '', '$feature_flag']) {
      expect(usageContribution(event(name, { $feature_flag: 'beta', feature_flag: 'beta' }))).toBeUndefined();
    }
  });

  it('does not take inherited names such as constructor or __proto__ for usage events', () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      expect(usageContribution(event(name, { $feature_flag: 'beta', feature_flag: 'beta' }))).toBeUndefined();
    }
  });

  it('ignores a flag key no flag can have, and cuts a long breakdown value to 400 bytes of UTF-8', () => {
    for (const flag of ['with space', 'ümlaut', 'a'.repeat(401), '😀']) {
      expect(usageContribution(event('$feature_flag_called', { $feature_flag: flag })), flag).toBeUndefined();
    }
    expect(usageContribution(event('$feature_view', { feature_flag: 'a'.repeat(400) }))?.flagKey).toBe('a'.repeat(400));
    const cut = (response: string) =>
      usageContribution(event('$feature_flag_called', { $feature_flag: 'f', $feature_flag_response: response }))!.breakdown;
    expect(cut('x'.repeat(400))).toBe('x'.repeat(400));
    expect(cut('x'.repeat(401))).toBe('x'.repeat(400));
    expect(cut('😀'.repeat(150))).toBe('😀'.repeat(100)); // 4 bytes each
    expect(cut(`${'x'.repeat(398)}😀`)).toBe('x'.repeat(398)); // not split inside a character
    expect(cut('é'.repeat(133))).toBe('é'.repeat(133)); // 266 bytes: kept whole
  });

  it('ignores a missing, empty or non-string flag key', () => {
    for (const flag of [undefined, null, '', 1, true, ['beta'], { key: 'beta' }]) {
      const props = flag === undefined ? {} : { $feature_flag: flag, feature_flag: flag };
      expect(usageContribution(event('$feature_flag_called', props))).toBeUndefined();
      expect(usageContribution(event('$feature_view', props))).toBeUndefined();
      expect(usageContribution(event('$feature_interaction', props))).toBeUndefined();
    }
  });

  it('keeps the flag key as sent (no trimming or case folding)', () => {
    expect(usageContribution(event('$feature_flag_called', { $feature_flag: 'Beta-2_x' }))?.flagKey).toBe('Beta-2_x');
    expect(usageContribution(event('$feature_flag_called', { $feature_flag: ' Beta ' }))).toBeUndefined(); // no flag has it
  });

  it('shows the response as breakdown text: strings as is, booleans and numbers as JSON, missing as ""', () => {
    const breakdown = (response: unknown, present = true) => {
      const props = present ? { $feature_flag: 'f', $feature_flag_response: response } : { $feature_flag: 'f' };
      return usageContribution(event('$feature_flag_called', props))?.breakdown;
    };
    expect(breakdown('control')).toBe('control');
    expect(breakdown('')).toBe('');
    expect(breakdown(true)).toBe('true');
    expect(breakdown(false)).toBe('false');
    expect(breakdown(0)).toBe('0');
    expect(breakdown(1.5)).toBe('1.5');
    expect(breakdown(null)).toBe('');
    expect(breakdown(undefined, false)).toBe('');
    expect(breakdown({ a: 1 })).toBe('{"a":1}');
    expect(breakdown(['x', 2])).toBe('["x",2]');
  });

  it('takes the UTC day from the ISO timestamp', () => {
    const day = (ts: string) => usageContribution(event('$feature_view', { feature_flag: 'f' }, ts))?.day;
    expect(day('2024-02-29T00:00:00.000Z')).toBe('2024-02-29');
    expect(day('2026-12-31T23:59:59.999Z')).toBe('2026-12-31');
    expect(day('2027-01-01T00:00:00.000Z')).toBe('2027-01-01');
  });
});

describe('breakdownText', () => {
  it('maps values to the text a breakdown shows', () => {
    expect(breakdownText(undefined)).toBe('');
    expect(breakdownText(null)).toBe('');
    expect(breakdownText('true')).toBe('true');
    expect(breakdownText(true)).toBe('true');
    expect(breakdownText(-3)).toBe('-3');
    expect(breakdownText({ nested: { b: [1] } })).toBe('{"nested":{"b":[1]}}');
  });

  it('names the missing value "None" as PostHog does', () => {
    expect(NONE_LABEL).toBe('None');
  });
});

import { describe, expect, it } from 'vitest';
import { withMatchTimeProperties } from '../../src/flag-requests/match-time-properties.js';

describe('withMatchTimeProperties (docs/compatibility.md#evaluation-context)', () => {
  it('fills each listed property’s missing $initial_ twin, keeping the ones present', () => {
    const props = { $browser: 'Firefox', $initial_browser: 'Chrome', utm_source: 'news', $os: null, $os_name: null, plan: 'pro' };
    expect(withMatchTimeProperties(props)).toEqual({
      ...props,
      $initial_utm_source: 'news',
      $initial_os: null,
    });
    expect(props).not.toHaveProperty('$initial_utm_source');
  });

  it('mirrors $os and $os_name when only one is present, before filling $initial_os (PostHog#64439)', () => {
    expect(withMatchTimeProperties({ $os_name: 'iOS' })).toEqual({ $os_name: 'iOS', $os: 'iOS', $initial_os: 'iOS' });
    expect(withMatchTimeProperties({ $os: 'Mac OS X', $initial_os: 'Windows' })).toEqual({
      $os: 'Mac OS X',
      $os_name: 'Mac OS X',
      $initial_os: 'Windows',
    });
    const both = { $os: 'Android', $os_name: 'iOS', $initial_os: 'iOS' };
    expect(withMatchTimeProperties(both)).toBe(both);
  });

  it('leaves properties outside the flags service’s list alone, and returns the same object when nothing is missing', () => {
    const props = { plan: 'pro', utm_name: 'x', $initial_browser: 'Chrome' };
    expect(withMatchTimeProperties(props)).toBe(props);
    const empty = {};
    expect(withMatchTimeProperties(empty)).toBe(empty);
  });

  it('names initials as the Rust service does', () => {
    expect(withMatchTimeProperties({ _kx: 1, $app_build: '7', gclid: 'g' })).toEqual({
      _kx: 1,
      $app_build: '7',
      gclid: 'g',
      $initial__kx: 1,
      $initial_app_build: '7',
      $initial_gclid: 'g',
    });
  });
});

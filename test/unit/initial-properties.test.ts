import { describe, expect, it } from 'vitest';
import { withInitialProperties } from '../../src/evaluation/initial-properties.js';

describe('withInitialProperties (spec flags.md §3.1)', () => {
  it('fills each listed property’s missing $initial_ twin, keeping the ones present', () => {
    const props = { $browser: 'Firefox', $initial_browser: 'Chrome', utm_source: 'news', $os: null, plan: 'pro' };
    expect(withInitialProperties(props)).toEqual({
      ...props,
      $initial_utm_source: 'news',
      $initial_os: null,
    });
    expect(props).not.toHaveProperty('$initial_utm_source');
  });

  it('leaves properties outside the flags service’s list alone, and returns the same object when nothing is missing', () => {
    const props = { plan: 'pro', $os_name: 'iOS', utm_name: 'x', $initial_browser: 'Chrome' };
    expect(withInitialProperties(props)).toBe(props);
    const empty = {};
    expect(withInitialProperties(empty)).toBe(empty);
  });

  it('names initials as the Rust service does', () => {
    expect(withInitialProperties({ _kx: 1, $app_build: '7', gclid: 'g' })).toEqual({
      _kx: 1,
      $app_build: '7',
      gclid: 'g',
      $initial__kx: 1,
      $initial_app_build: '7',
      $initial_gclid: 'g',
    });
  });
});

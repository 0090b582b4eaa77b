/**
 * FlagResults: the map evaluateFlags returns reads its per-slot array in the snapshot's order and
 * behaves as a ReadonlyMap for every reader (get, has, size, every way of iterating).
 */
import { describe, expect, it } from 'vitest';
import { compileSnapshot } from '../../src/flags/engine/compile-snapshot.js';
import { evaluateFlags } from '../../src/flags/engine/evaluate-flags.js';
import { flagRecordWith } from '../fixtures/flag-record.js';

const flags = [
  flagRecordWith({ id: 1, key: 'zeta', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } }),
  flagRecordWith({ id: 2, key: 'inactive', active: false, filters: { groups: [{ rollout_percentage: 100 }] } }),
  flagRecordWith({ id: 3, key: 'alpha', filters: { groups: [{ properties: [], rollout_percentage: 0 }] } }),
  flagRecordWith({
    id: 4,
    key: 'needs-zeta',
    filters: {
      groups: [{ properties: [{ key: '1', type: 'flag', value: true, operator: 'flag_evaluates_to' }], rollout_percentage: 100 }],
    },
  }),
];
const snapshot = compileSnapshot({ flags, cohorts: [], groupTypeMapping: {}, version: 1 });
const ctx = { distinctId: 'user-1', personProperties: {}, groups: {}, groupProperties: {}, now: new Date('2024-06-01T00:00:00Z') };

describe('FlagResults', () => {
  it('holds every active flag, in the order the flags were given, and nothing else', () => {
    const results = evaluateFlags(snapshot, ctx);
    expect(results.size).toBe(3);
    expect([...results.keys()]).toEqual(['zeta', 'alpha', 'needs-zeta']);
    expect([...results].map(([key, r]) => [key, r.enabled])).toEqual([
      ['zeta', true],
      ['alpha', false],
      ['needs-zeta', true],
    ]);
    expect([...results.entries()]).toEqual([...results]);
    expect([...results.values()]).toEqual([...results].map(([, r]) => r));
    const seen: string[] = [];
    results.forEach((r, key, map) => {
      expect(map.get(key)).toBe(r);
      seen.push(key);
    });
    expect(seen).toEqual(['zeta', 'alpha', 'needs-zeta']);
    expect(results.has('inactive')).toBe(false);
    expect(results.get('inactive')).toBeUndefined();
    expect(results.has('unknown')).toBe(false);
    expect(new Map(results)).toEqual(new Map([...results]));
  });

  it('with flagKeys, holds the requested flags and their dependencies only', () => {
    const results = evaluateFlags(snapshot, { ...ctx, flagKeys: ['needs-zeta'] });
    expect(results.size).toBe(2);
    expect([...results.keys()]).toEqual(['zeta', 'needs-zeta']);
    expect(results.get('alpha')).toBeUndefined();
    expect(results.has('needs-zeta')).toBe(true);
  });
});

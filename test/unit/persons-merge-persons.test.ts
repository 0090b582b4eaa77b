import { describe, expect, it } from 'vitest';
import { mayMerge, mergedPerson, type MergeablePerson } from '../../src/persons/merge-persons.js';
import { eventPropertyUpdates } from '../../src/persons/property-updates.js';

function person(partial: Partial<MergeablePerson>): MergeablePerson {
  return { properties: {}, created_at: '2024-01-01T00:00:00.000Z', is_identified: false, version: 0, ...partial };
}

const NONE = { set: {}, setOnce: {}, unset: [] };

describe('mayMerge: an identified source merges only on $merge_dangerously (docs/compatibility.md#merges)', () => {
  it('merges an anonymous source for every kind', () => {
    for (const kind of ['$identify', '$create_alias', '$merge_dangerously'] as const) {
      expect(mayMerge(person({ is_identified: false }), kind)).toBe(true);
    }
  });

  it('refuses an identified source for $identify and $create_alias', () => {
    expect(mayMerge(person({ is_identified: true }), '$identify')).toBe(false);
    expect(mayMerge(person({ is_identified: true }), '$create_alias')).toBe(false);
  });

  it('merges an identified source for $merge_dangerously', () => {
    expect(mayMerge(person({ is_identified: true }), '$merge_dangerously')).toBe(true);
  });
});

describe('mergedPerson', () => {
  it('overlays the source properties with the target ones (target wins)', () => {
    const target = person({ properties: { email: 'new@x', plan: 'pro' } });
    const source = person({ properties: { email: 'old@x', utm_source: 'ads' } });
    expect(mergedPerson(target, source, NONE).properties).toEqual({ email: 'new@x', plan: 'pro', utm_source: 'ads' });
  });

  it('then applies the event updates to the union', () => {
    const target = person({ properties: { email: 'new@x', keep: 1, drop_me: 1 } });
    const source = person({ properties: { first_seen: 'mon', $initial_browser: 'Safari', src_only: 1 } });
    const updates = {
      set: { email: 'final@x' },
      setOnce: { first_seen: 'tue', $initial_browser: 'Chrome', brand_new: true },
      unset: ['drop_me', 'src_only'],
    };
    expect(mergedPerson(target, source, updates).properties).toEqual({
      email: 'final@x',
      keep: 1,
      first_seen: 'mon',
      $initial_browser: 'Safari',
      brand_new: true,
    });
  });

  it('merges an $identify event as PostHog does, end to end', () => {
    const anon = person({
      properties: { $initial_referrer: 'google', $browser: 'Chrome' },
      created_at: '2024-01-01T00:00:00.000Z',
      version: 3,
    });
    const user = person({ properties: { email: 'a@x' }, created_at: '2024-02-01T00:00:00.000Z', version: 7 });
    const updates = eventPropertyUpdates('$identify', { $set: { name: 'Ann' }, $anon_distinct_id: 'anon' }, '2024-03-01T00:00:00.000Z');
    expect(mergedPerson(user, anon, updates)).toEqual({
      properties: { $initial_referrer: 'google', $browser: 'Chrome', email: 'a@x', name: 'Ann' },
      created_at: '2024-01-01T00:00:00.000Z',
      is_identified: true,
      version: 8,
    });
  });

  it('keeps the older created_at, whichever side it is on', () => {
    const older = '2023-12-31T23:59:59.999Z';
    const newer = '2024-01-01T00:00:00.000Z';
    expect(mergedPerson(person({ created_at: newer }), person({ created_at: older }), NONE).created_at).toBe(older);
    expect(mergedPerson(person({ created_at: older }), person({ created_at: newer }), NONE).created_at).toBe(older);
  });

  it('compares created_at as instants, not as text', () => {
    const target = '2024-01-01T01:00:00+02:00'; // 2023-12-31T23:00Z
    const source = '2024-01-01T00:00:00.000Z';
    expect(mergedPerson(person({ created_at: target }), person({ created_at: source }), NONE).created_at).toBe(target);
  });

  it('keeps the target created_at on a tie', () => {
    const t = '2024-01-01T00:00:00.000Z';
    const s = '2024-01-01T00:00:00Z';
    expect(mergedPerson(person({ created_at: t }), person({ created_at: s }), NONE).created_at).toBe(t);
  });

  it('is always identified', () => {
    expect(mergedPerson(person({ is_identified: false }), person({ is_identified: false }), NONE).is_identified).toBe(true);
    expect(mergedPerson(person({ is_identified: true }), person({ is_identified: true }), NONE).is_identified).toBe(true);
  });

  it('takes version max(target, source) + 1', () => {
    expect(mergedPerson(person({ version: 2 }), person({ version: 7 }), NONE).version).toBe(8);
    expect(mergedPerson(person({ version: 9 }), person({ version: 1 }), NONE).version).toBe(10);
    expect(mergedPerson(person({ version: 0 }), person({ version: 0 }), NONE).version).toBe(1);
  });

  it('does not mutate either person', () => {
    const target = person({ properties: { a: 1 } });
    const source = person({ properties: { b: 2 } });
    mergedPerson(target, source, { set: { a: 9 }, setOnce: {}, unset: ['b'] });
    expect(target.properties).toEqual({ a: 1 });
    expect(source.properties).toEqual({ b: 2 });
  });
});

import { describe, expect, it } from 'vitest';
import { planPersonEvent, processesPerson, type PersonEventPlan } from '../../src/persons/person-event.js';

const TS = '2024-05-01T10:00:00.000Z';
const NONE = { set: {}, setOnce: {}, unset: [] };

function plan(event: string, properties: Record<string, unknown> = {}, distinct_id = 'user-1'): PersonEventPlan {
  return planPersonEvent({ event, distinct_id, properties, timestamp: TS });
}

describe('planPersonEvent: $process_person_profile (docs/compatibility.md#personless-events)', () => {
  it('processes persons by default', () => {
    expect(plan('$pageview', { $set: { a: 1 } })).toEqual({ processPerson: true, updates: { ...NONE, set: { a: 1 } } });
  });

  it('skips persons when it is the boolean false, dropping the updates', () => {
    expect(plan('$pageview', { $process_person_profile: false, $set: { a: 1 }, $unset: ['b'] })).toEqual({
      processPerson: false,
      updates: NONE,
    });
  });

  it('processes persons when it is true, without a warning', () => {
    expect(plan('$pageview', { $process_person_profile: true, $set: { a: 1 } })).toEqual({
      processPerson: true,
      updates: { ...NONE, set: { a: 1 } },
    });
  });

  it('ignores non-boolean values, processing persons and warning like PostHog', () => {
    for (const value of ['false', 0, null, 'no', {}, []]) {
      const p = plan('$pageview', { $process_person_profile: value, $set: { a: 1 } });
      expect(p.processPerson).toBe(true);
      expect(p.updates.set).toEqual({ a: 1 });
      expect(p.warnings).toEqual([{ type: 'invalid_process_person_profile', value }]);
    }
  });

  it('refuses merge and group events sent personless, with PostHog warning', () => {
    for (const event of ['$identify', '$create_alias', '$merge_dangerously', '$groupidentify']) {
      const p = plan(event, { $process_person_profile: false, $anon_distinct_id: 'anon-1', alias: 'anon-1' });
      expect(p).toEqual({
        processPerson: false,
        updates: NONE,
        warnings: [{ type: 'invalid_event_when_process_person_profile_is_false' }],
      });
      expect(p.merge).toBeUndefined();
    }
  });
});

describe('planPersonEvent: events that never touch persons', () => {
  it.each(['$exception', '$$heatmap', '$$client_ingestion_warning'])('%s is skipped', (event) => {
    expect(plan(event, { $set: { a: 1 }, $browser: 'Chrome', $anon_distinct_id: 'x' })).toEqual({
      processPerson: false,
      updates: NONE,
    });
  });

  it('processesPerson agrees with the plan', () => {
    expect(processesPerson({ event: '$pageview', properties: {} })).toBe(true);
    expect(processesPerson({ event: '$pageview', properties: { $process_person_profile: 'false' } })).toBe(true);
    expect(processesPerson({ event: '$pageview', properties: { $process_person_profile: false } })).toBe(false);
    expect(processesPerson({ event: '$exception', properties: {} })).toBe(false);
    expect(processesPerson({ event: '$$heatmap', properties: {} })).toBe(false);
    expect(processesPerson({ event: '$groupidentify', properties: {} })).toBe(true);
  });
});

describe('planPersonEvent: $groupidentify', () => {
  it('processes the person of its distinct_id but carries no property changes', () => {
    const p = plan('$groupidentify', {
      $group_type: 'company',
      $group_key: 'acme',
      $group_set: { name: 'Acme' },
      $set: { a: 1 },
      $set_once: { b: 1 },
      $unset: ['c'],
      $browser: 'Chrome',
    });
    expect(p).toEqual({ processPerson: true, updates: NONE });
  });
});

describe('planPersonEvent: updates', () => {
  it('extracts the event $set, $set_once, $unset and lifted properties', () => {
    const p = plan('$pageview', { $set: { plan: 'pro' }, $set_once: { first: 1 }, $unset: { old: true }, utm_source: 'news' });
    expect(p.updates).toEqual({
      set: { plan: 'pro', utm_source: 'news' },
      setOnce: { first: 1, $initial_utm_source: 'news' },
      unset: ['old'],
    });
  });

  it('sets $survey_last_seen_date for survey shown', () => {
    expect(plan('survey shown', { $survey_id: 's' }).updates.set).toEqual({ $survey_last_seen_date: TS });
  });
});

describe('planPersonEvent: merge triggers (docs/compatibility.md#merges)', () => {
  it('$identify with $anon_distinct_id merges it into the distinct_id', () => {
    const p = plan('$identify', { $anon_distinct_id: 'anon-1', $set: { email: 'a@x' } }, 'user-1');
    expect(p).toEqual({
      processPerson: true,
      merge: { kind: '$identify', other: 'anon-1', into: 'user-1' },
      updates: { ...NONE, set: { email: 'a@x' } },
    });
  });

  it('$identify without $anon_distinct_id is a plain update', () => {
    const p = plan('$identify', { $set: { email: 'a@x' } });
    expect(p).toEqual({ processPerson: true, updates: { ...NONE, set: { email: 'a@x' } } });
  });

  it('$identify ignores alias', () => {
    expect(plan('$identify', { alias: 'other' }).merge).toBeUndefined();
  });

  it('$identify with $anon_distinct_id present but empty or null still asks (the ids are then illegal)', () => {
    expect(plan('$identify', { $anon_distinct_id: '' }).merge).toEqual({ kind: '$identify', other: '', into: 'user-1' });
    expect(plan('$identify', { $anon_distinct_id: null }).merge).toEqual({ kind: '$identify', other: 'null', into: 'user-1' });
  });

  it('stringifies a numeric $anon_distinct_id or alias', () => {
    expect(plan('$identify', { $anon_distinct_id: 123 }).merge).toEqual({ kind: '$identify', other: '123', into: 'user-1' });
    expect(plan('$create_alias', { alias: 42 }).merge).toEqual({ kind: '$create_alias', other: '42', into: 'user-1' });
  });

  it('warns and leaves persons alone for an object or array id (PostHog drops the event)', () => {
    const o = plan('$identify', { $anon_distinct_id: { id: 1 }, $set: { a: 1 } });
    expect(o).toEqual({
      processPerson: false,
      updates: NONE,
      warnings: [{ type: 'invalid_anon_distinct_id', receivedType: 'object' }],
    });
    const a = plan('$create_alias', { alias: ['x'] });
    expect(a.merge).toBeUndefined();
    expect(a.processPerson).toBe(false);
    expect(a.warnings).toEqual([{ type: 'invalid_alias', receivedType: 'array' }]);
  });

  it('$create_alias with alias merges the alias into the distinct_id', () => {
    expect(plan('$create_alias', { alias: 'old-id' }, 'new-id').merge).toEqual({
      kind: '$create_alias',
      other: 'old-id',
      into: 'new-id',
    });
  });

  it('$merge_dangerously with alias merges the alias into the distinct_id', () => {
    expect(plan('$merge_dangerously', { alias: 'old-id' }, 'new-id').merge).toEqual({
      kind: '$merge_dangerously',
      other: 'old-id',
      into: 'new-id',
    });
  });

  it('alias events without a truthy alias ask for nothing', () => {
    for (const event of ['$create_alias', '$merge_dangerously']) {
      for (const properties of [{}, { alias: '' }, { alias: 0 }, { alias: false }, { alias: null }, { $anon_distinct_id: 'anon' }]) {
        const p = plan(event, properties);
        expect(p.processPerson).toBe(true);
        expect(p.merge).toBeUndefined();
        expect(p.warnings).toBeUndefined();
      }
    }
  });

  it('other events never ask for a merge', () => {
    for (const event of ['$pageview', '$set', 'identify', '$IDENTIFY', '$groupidentify']) {
      expect(plan(event, { $anon_distinct_id: 'anon-1', alias: 'anon-1' }).merge).toBeUndefined();
    }
  });

  it('reports other == into as asked; the processor treats it as a plain update', () => {
    expect(plan('$identify', { $anon_distinct_id: 'user-1' }, 'user-1').merge).toEqual({
      kind: '$identify',
      other: 'user-1',
      into: 'user-1',
    });
    expect(plan('$create_alias', { alias: 'user-1' }, 'user-1').merge).toEqual({
      kind: '$create_alias',
      other: 'user-1',
      into: 'user-1',
    });
  });

  it('reports illegal ids as asked; the processor checks isIllegalMergeId', () => {
    expect(plan('$identify', { $anon_distinct_id: 'anonymous' }, 'user-1').merge).toEqual({
      kind: '$identify',
      other: 'anonymous',
      into: 'user-1',
    });
  });
});

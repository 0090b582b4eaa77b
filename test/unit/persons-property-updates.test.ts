import { describe, expect, it } from 'vitest';
import {
  PERSON_PROPERTIES_FROM_EVENT,
  applyPropertyUpdates,
  eventPropertyUpdates,
  initialPropertyName,
  newPersonProperties,
  type PropertyUpdates,
} from '../../src/persons/property-updates.js';

const TS = '2024-05-01T10:00:00.000Z';

function updates(partial: Partial<PropertyUpdates>): PropertyUpdates {
  return { set: {}, setOnce: {}, unset: [], ...partial };
}

// Note: top-level `$set`/`$set_once` precedence over `properties.$set` is applied at capture
// (normalize-event, docs/compatibility.md#event-normalization); these functions only ever see the
// merged `properties.$set`.

describe('applyPropertyUpdates: $set (docs/compatibility.md#person-properties)', () => {
  it('overwrites a differing value and reports a change', () => {
    const r = applyPropertyUpdates({ plan: 'free', email: 'a@x' }, updates({ set: { plan: 'pro' } }));
    expect(r).toEqual({ properties: { plan: 'pro', email: 'a@x' }, changed: true });
  });

  it('adds an absent key', () => {
    expect(applyPropertyUpdates({}, updates({ set: { plan: 'pro' } }))).toEqual({ properties: { plan: 'pro' }, changed: true });
  });

  it('reports no change when every value is already equal', () => {
    const r = applyPropertyUpdates({ plan: 'pro', n: 1, none: null }, updates({ set: { plan: 'pro', n: 1, none: null } }));
    expect(r).toEqual({ properties: { plan: 'pro', n: 1, none: null }, changed: false });
  });

  it('compares nested values structurally, key order ignored', () => {
    const current = { address: { city: 'Oslo', zip: '0150' }, tags: ['a', 'b'] };
    const same = applyPropertyUpdates(current, updates({ set: { address: { zip: '0150', city: 'Oslo' }, tags: ['a', 'b'] } }));
    expect(same.changed).toBe(false);
    const reordered = applyPropertyUpdates(current, updates({ set: { tags: ['b', 'a'] } }));
    expect(reordered).toEqual({ properties: { address: { city: 'Oslo', zip: '0150' }, tags: ['b', 'a'] }, changed: true });
  });

  it('treats 1 and "1" as different values', () => {
    expect(applyPropertyUpdates({ n: 1 }, updates({ set: { n: '1' } }))).toEqual({ properties: { n: '1' }, changed: true });
  });

  it('can set a value to null', () => {
    expect(applyPropertyUpdates({ plan: 'pro' }, updates({ set: { plan: null } }))).toEqual({
      properties: { plan: null },
      changed: true,
    });
  });

  it('never mutates its inputs', () => {
    const current = Object.freeze({ plan: 'free', nested: Object.freeze({ a: 1 }) });
    const u = updates({ set: { plan: 'pro' }, setOnce: { first: 1 }, unset: ['nested'] });
    const r = applyPropertyUpdates(current, u);
    expect(current).toEqual({ plan: 'free', nested: { a: 1 } });
    expect(r.properties).not.toBe(current);
    expect(r.properties).toEqual({ plan: 'pro', first: 1 });
  });

  it('returns the current object, untouched, when nothing changes (no copy per event)', () => {
    const current = { a: 1, b: { c: 2 } };
    const r = applyPropertyUpdates(current, updates({ set: { a: 1, b: { c: 2 } }, setOnce: { a: 5 }, unset: ['z'] }));
    expect(r).toEqual({ properties: { a: 1, b: { c: 2 } }, changed: false });
    expect(r.properties).toBe(current);
  });

  it('copies on the first change and never mutates the current object', () => {
    const current = Object.freeze({ a: 1, gone: true });
    const r = applyPropertyUpdates(current, updates({ set: { a: 1, n: 2 }, unset: ['gone'] }));
    expect(r).toEqual({ properties: { a: 1, n: 2 }, changed: true });
    expect(current).toEqual({ a: 1, gone: true });
  });

  it('keeps a `__proto__` key as a key when copying', () => {
    const current = JSON.parse('{"__proto__": {"x": 1}, "a": 1}') as Record<string, unknown>;
    const r = applyPropertyUpdates(current, updates({ set: { a: 2 } }));
    expect(Object.getPrototypeOf(r.properties)).toBe(Object.prototype);
    expect(Object.keys(r.properties)).toEqual(['__proto__', 'a']);
    expect(r.properties.a).toBe(2);
  });

  it('stores a key named __proto__ as data, without touching the prototype', () => {
    const set = JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
    const r = applyPropertyUpdates({}, updates({ set }));
    expect(Object.getPrototypeOf(r.properties)).toBe(Object.prototype);
    expect(Object.keys(r.properties)).toEqual(['__proto__']);
    expect((r.properties as { polluted?: unknown }).polluted).toBeUndefined();
  });
});

describe('applyPropertyUpdates: $set_once (docs/compatibility.md#person-properties)', () => {
  it('sets only keys the person lacks', () => {
    const r = applyPropertyUpdates({ source: 'ads' }, updates({ setOnce: { source: 'seo', first_seen: 'mon' } }));
    expect(r).toEqual({ properties: { source: 'ads', first_seen: 'mon' }, changed: true });
  });

  it('counts a key holding null as present (PostHog tests typeof === "undefined")', () => {
    const r = applyPropertyUpdates({ source: null }, updates({ setOnce: { source: 'seo' } }));
    expect(r).toEqual({ properties: { source: null }, changed: false });
  });

  it('counts a key holding false, 0 or "" as present', () => {
    const r = applyPropertyUpdates({ a: false, b: 0, c: '' }, updates({ setOnce: { a: true, b: 1, c: 'x' } }));
    expect(r).toEqual({ properties: { a: false, b: 0, c: '' }, changed: false });
  });

  it('does not treat inherited names as present', () => {
    const r = applyPropertyUpdates({}, updates({ setOnce: { toString: 'x', constructor: 'y' } }));
    expect(r.changed).toBe(true);
    expect(Object.keys(r.properties).sort()).toEqual(['constructor', 'toString']);
  });

  it('applies before $set: a key in both ends with the $set value', () => {
    const r = applyPropertyUpdates({}, updates({ setOnce: { plan: 'trial' }, set: { plan: 'pro' } }));
    expect(r).toEqual({ properties: { plan: 'pro' }, changed: true });
  });
});

describe('applyPropertyUpdates: $unset (docs/compatibility.md#person-properties)', () => {
  it('removes present keys and ignores absent ones', () => {
    const r = applyPropertyUpdates({ a: 1, b: 2, c: 3 }, updates({ unset: ['a', 'c', 'zzz'] }));
    expect(r).toEqual({ properties: { b: 2 }, changed: true });
  });

  it('reports no change when no listed key is present', () => {
    expect(applyPropertyUpdates({ a: 1 }, updates({ unset: ['b'] }))).toEqual({ properties: { a: 1 }, changed: false });
  });

  it('removes a key holding null', () => {
    expect(applyPropertyUpdates({ a: null }, updates({ unset: ['a'] }))).toEqual({ properties: {}, changed: true });
  });

  it('runs after $set: a key the person had is removed even when the same event sets it', () => {
    const r = applyPropertyUpdates({ a: 1 }, updates({ set: { a: 2 }, unset: ['a'] }));
    expect(r).toEqual({ properties: {}, changed: true });
  });

  it('only removes keys the person had before the event (PostHog computes $unset against them)', () => {
    const r = applyPropertyUpdates({}, updates({ set: { a: 2 }, setOnce: { b: 1 }, unset: ['a', 'b'] }));
    expect(r).toEqual({ properties: { a: 2, b: 1 }, changed: true });
  });
});

describe('eventPropertyUpdates: extraction (docs/compatibility.md#person-properties)', () => {
  it('reads $set, $set_once and $unset from the properties', () => {
    const u = eventPropertyUpdates('$set', { $set: { plan: 'pro' }, $set_once: { first: 'x' }, $unset: ['old'] }, TS);
    expect(u).toEqual({ set: { plan: 'pro' }, setOnce: { first: 'x' }, unset: ['old'] });
  });

  it('reads $unset as an array of keys, skipping non-strings', () => {
    expect(eventPropertyUpdates('$set', { $unset: ['a', 1, null, 'b', { c: 1 }] }, TS).unset).toEqual(['a', 'b']);
  });

  it('reads $unset as an object whose keys are used', () => {
    expect(eventPropertyUpdates('$set', { $unset: { a: null, b: 'ignored value' } }, TS).unset).toEqual(['a', 'b']);
  });

  it('ignores $unset given as a string, number or null', () => {
    for (const $unset of ['email', 5, null, true]) {
      expect(eventPropertyUpdates('$set', { $unset }, TS).unset).toEqual([]);
    }
  });

  it('treats a non-object $set or $set_once as empty', () => {
    for (const bad of ['plan', 5, null, true, ['a', 'b']]) {
      expect(eventPropertyUpdates('$set', { $set: bad, $set_once: bad }, TS)).toEqual({ set: {}, setOnce: {}, unset: [] });
    }
  });

  it('copies $set and $set_once so callers cannot alias the event', () => {
    const properties = { $set: { a: 1 }, $set_once: { b: 2 } };
    const u = eventPropertyUpdates('e', properties, TS);
    u.set.a = 99;
    u.setOnce.b = 99;
    expect(properties).toEqual({ $set: { a: 1 }, $set_once: { b: 2 } });
  });

  it('carries nothing for $exception and $$heatmap', () => {
    const properties = { $set: { a: 1 }, $set_once: { b: 2 }, $unset: ['c'], $browser: 'Chrome' };
    for (const name of ['$exception', '$$heatmap']) {
      expect(eventPropertyUpdates(name, properties, TS)).toEqual({ set: {}, setOnce: {}, unset: [] });
    }
  });

  it('carries nothing for $groupidentify (PostHog strips its person keys)', () => {
    const properties = { $set: { a: 1 }, $set_once: { b: 2 }, $unset: ['c'], $browser: 'Chrome', $group_type: 'company' };
    expect(eventPropertyUpdates('$groupidentify', properties, TS)).toEqual({ set: {}, setOnce: {}, unset: [] });
  });

  it('carries nothing when $process_person_profile is false', () => {
    const properties = { $process_person_profile: false, $set: { a: 1 }, $browser: 'Chrome' };
    expect(eventPropertyUpdates('$pageview', properties, TS)).toEqual({ set: {}, setOnce: {}, unset: [] });
  });

  it('still reads updates when $process_person_profile is not a boolean false', () => {
    for (const flag of [true, 'false', 0, null]) {
      expect(eventPropertyUpdates('$pageview', { $process_person_profile: flag, $set: { a: 1 } }, TS).set).toEqual({ a: 1 });
    }
  });
});

describe('eventPropertyUpdates: survey shown', () => {
  it('sets $survey_last_seen_date to the event timestamp', () => {
    expect(eventPropertyUpdates('survey shown', { $survey_id: 's1' }, TS)).toEqual({
      set: { $survey_last_seen_date: TS },
      setOnce: {},
      unset: [],
    });
  });

  it('keeps the event $set alongside it, and lets an explicit value win', () => {
    expect(eventPropertyUpdates('survey shown', { $set: { plan: 'pro' } }, TS).set).toEqual({
      $survey_last_seen_date: TS,
      plan: 'pro',
    });
    expect(eventPropertyUpdates('survey shown', { $set: { $survey_last_seen_date: 'x' } }, TS).set).toEqual({
      $survey_last_seen_date: 'x',
    });
  });

  it('is specific to the exact event name', () => {
    for (const name of ['Survey Shown', 'survey sent', 'survey dismissed', '$pageview']) {
      expect(eventPropertyUpdates(name, {}, TS).set).toEqual({});
    }
  });
});

describe('eventPropertyUpdates: initial and latest event properties (personInitialAndUTMProperties)', () => {
  it('lifts device, page and campaign properties to $set and $initial_* to $set_once', () => {
    const u = eventPropertyUpdates(
      '$pageview',
      {
        $browser: 'Chrome',
        $browser_version: 124,
        $os: 'Mac OS X',
        $os_version: '14.4',
        $device_type: 'Desktop',
        $current_url: 'https://example.com/pricing?utm_source=news',
        $pathname: '/pricing',
        $referrer: '$direct',
        $referring_domain: '$direct',
        $screen_height: 1080,
        $viewport_width: 1440,
        utm_source: 'news',
        gclid: 'g-1',
        $lib: 'web',
        $session_id: 's-1',
        other: 'x',
      },
      TS,
    );
    expect(u.set).toEqual({
      $browser: 'Chrome',
      $browser_version: 124,
      $os: 'Mac OS X',
      $os_version: '14.4',
      $device_type: 'Desktop',
      $current_url: 'https://example.com/pricing?utm_source=news',
      $pathname: '/pricing',
      $referrer: '$direct',
      $referring_domain: '$direct',
      $screen_height: 1080,
      $viewport_width: 1440,
      utm_source: 'news',
      gclid: 'g-1',
    });
    expect(u.setOnce).toEqual({
      $initial_browser: 'Chrome',
      $initial_browser_version: 124,
      $initial_os: 'Mac OS X',
      $initial_os_version: '14.4',
      $initial_device_type: 'Desktop',
      $initial_current_url: 'https://example.com/pricing?utm_source=news',
      $initial_pathname: '/pricing',
      $initial_referrer: '$direct',
      $initial_referring_domain: '$direct',
      $initial_screen_height: 1080,
      $initial_viewport_width: 1440,
      $initial_utm_source: 'news',
      $initial_gclid: 'g-1',
    });
  });

  it('covers every listed property with its $initial_ name', () => {
    const properties = Object.fromEntries(PERSON_PROPERTIES_FROM_EVENT.map((k) => [k, `v:${k}`]));
    const u = eventPropertyUpdates('$pageview', { ...properties, $os: 'iOS' }, TS);
    // $os_name is an alias of $os and never lands on the person under its own name
    const expected = PERSON_PROPERTIES_FROM_EVENT.filter((k) => k !== '$os_name');
    expect(Object.keys(u.set).sort()).toEqual([...expected].sort());
    expect(Object.keys(u.setOnce).sort()).toEqual(expected.map(initialPropertyName).sort());
    expect(PERSON_PROPERTIES_FROM_EVENT).toContain('$app_version');
    expect(PERSON_PROPERTIES_FROM_EVENT).toContain('$raw_user_agent');
    expect(PERSON_PROPERTIES_FROM_EVENT).toContain('utm_term');
    expect(PERSON_PROPERTIES_FROM_EVENT).toContain('fbclid');
    expect(PERSON_PROPERTIES_FROM_EVENT).toContain('msclkid');
    expect(PERSON_PROPERTIES_FROM_EVENT).toHaveLength(44);
  });

  it('names initial properties by dropping the first $', () => {
    expect(initialPropertyName('$browser')).toBe('$initial_browser');
    expect(initialPropertyName('utm_source')).toBe('$initial_utm_source');
    expect(initialPropertyName('_kx')).toBe('$initial__kx');
  });

  it('lets the event own $set and $set_once win over lifted values', () => {
    const u = eventPropertyUpdates(
      '$pageview',
      { $browser: 'Chrome', $set: { $browser: 'Custom' }, $set_once: { $initial_browser: 'First' } },
      TS,
    );
    expect(u.set).toEqual({ $browser: 'Custom' });
    expect(u.setOnce).toEqual({ $initial_browser: 'First' });
  });

  it('keeps null in $set but never writes a null $initial_*', () => {
    const u = eventPropertyUpdates('$pageview', { utm_source: null, gclid: null, $browser: 'Chrome' }, TS);
    expect(u.set).toEqual({ utm_source: null, gclid: null, $browser: 'Chrome' });
    expect(u.setOnce).toEqual({ $initial_browser: 'Chrome' });
  });

  it('treats $os_name as $os when $os is missing', () => {
    const u = eventPropertyUpdates('$screen', { $os_name: 'Android' }, TS);
    expect(u.set).toEqual({ $os: 'Android' });
    expect(u.setOnce).toEqual({ $initial_os: 'Android' });
  });

  it('prefers $os over $os_name, and uses $os_name for $initial_os when $os is null', () => {
    expect(eventPropertyUpdates('$screen', { $os: 'iOS', $os_name: 'Android' }, TS)).toMatchObject({
      set: { $os: 'iOS' },
      setOnce: { $initial_os: 'iOS' },
    });
    const nullOs = eventPropertyUpdates('$screen', { $os: null, $os_name: 'Android' }, TS);
    expect(nullOs.set).toEqual({ $os: null });
    expect(nullOs.setOnce).toEqual({ $initial_os: 'Android' });
  });

  it('removes $os_name even from the event own $set', () => {
    const u = eventPropertyUpdates('$screen', { $os: 'iOS', $os_name: 'x', $set: { $os_name: 'y' } }, TS);
    expect(u.set).toEqual({ $os: 'iOS' });
  });

  it('does not lift $os/$os_version from server SDKs ($is_server: true)', () => {
    const u = eventPropertyUpdates('order placed', { $is_server: true, $os: 'Linux', $os_version: '6.1', $browser: 'x' }, TS);
    expect(u.set).toEqual({ $browser: 'x' });
    expect(u.setOnce).toEqual({ $initial_browser: 'x' });
    const client = eventPropertyUpdates('order placed', { $is_server: false, $os: 'Linux' }, TS);
    expect(client.set).toEqual({ $os: 'Linux' });
  });

  it('adds nothing when the event carries none of the listed properties', () => {
    expect(eventPropertyUpdates('$pageview', { $lib: 'web', $session_id: 's' }, TS)).toEqual({ set: {}, setOnce: {}, unset: [] });
  });

  it('does not lift for $snapshot and $performance_event', () => {
    for (const name of ['$snapshot', '$performance_event']) {
      expect(eventPropertyUpdates(name, { $browser: 'Chrome', $set: { a: 1 } }, TS)).toEqual({
        set: { a: 1 },
        setOnce: {},
        unset: [],
      });
    }
  });

  it('gives a new person its initial properties and leaves an existing person first touch alone', () => {
    const first = eventPropertyUpdates('$pageview', { $browser: 'Chrome', utm_source: 'news' }, TS);
    const created = applyPropertyUpdates({}, first).properties;
    expect(created).toEqual({
      $browser: 'Chrome',
      utm_source: 'news',
      $initial_browser: 'Chrome',
      $initial_utm_source: 'news',
    });
    const later = eventPropertyUpdates('$pageview', { $browser: 'Firefox', utm_source: 'ads' }, TS);
    expect(applyPropertyUpdates(created, later)).toEqual({
      properties: {
        $browser: 'Firefox',
        utm_source: 'ads',
        $initial_browser: 'Chrome',
        $initial_utm_source: 'news',
      },
      changed: true,
    });
  });
});

describe('newPersonProperties (person-create-service createPerson)', () => {
  it('is $set_once, then $set over it, then $creator_event_uuid', () => {
    const u = updates({ set: { plan: 'pro', a: 1 }, setOnce: { plan: 'trial', first: 'x' }, unset: ['a'] });
    expect(newPersonProperties(u, 'e-1')).toEqual({ plan: 'pro', first: 'x', a: 1, $creator_event_uuid: 'e-1' });
    expect(Object.keys(newPersonProperties(u, 'e-1'))).toEqual(['plan', 'first', 'a', '$creator_event_uuid']);
  });

  it('keeps keys named __proto__ (and an event-given $creator_event_uuid) as data', () => {
    const set = JSON.parse('{"__proto__": {"polluted": true}, "$creator_event_uuid": "sent"}') as Record<string, unknown>;
    const made = newPersonProperties(updates({ set }), 'e-3');
    expect(Object.getPrototypeOf(made)).toBe(Object.prototype);
    expect(Object.keys(made)).toEqual(['__proto__', '$creator_event_uuid']);
    expect(made.$creator_event_uuid).toBe('e-3');
    expect((made as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('includes lifted initial properties', () => {
    const u = eventPropertyUpdates('$pageview', { $browser: 'Chrome' }, TS);
    expect(newPersonProperties(u, 'e-2')).toEqual({
      $browser: 'Chrome',
      $initial_browser: 'Chrome',
      $creator_event_uuid: 'e-2',
    });
  });
});

import { describe, expect, it } from 'vitest';
import { parseFlagsRequest, requireDistinctId } from '../../src/flag-requests/flags-request.js';
import { expectHedgerowError } from './ingestion-vectors.js';

describe('parseFlagsRequest', () => {
  it('reads the posthog-node request', () => {
    const body = {
      token: 'phc_abc',
      distinct_id: 'user-1',
      groups: { company: 'acme' },
      person_properties: { email: 'a@b.c' },
      group_properties: { company: { size: 10 } },
      geoip_disable: true,
      flag_keys_to_evaluate: ['a', 'b'],
      $device_id: 'dev-1',
    };
    const req = parseFlagsRequest(body);
    expect(req).toEqual({
      token: 'phc_abc',
      distinctId: 'user-1',
      groups: { company: 'acme' },
      personProperties: { email: 'a@b.c' },
      groupProperties: { company: { size: 10 } },
      deviceId: 'dev-1',
      disableFlags: false,
      flagKeys: ['a', 'b'],
      evaluationContexts: [],
    });
    expect(req.personProperties).toBe(body.person_properties); // not copied
    expect(requireDistinctId(req)).toBe('user-1');
  });

  it('reads the posthog-js request', () => {
    const req = parseFlagsRequest({
      token: 't',
      distinct_id: 'd',
      $anon_distinct_id: 'anon',
      person_properties: { $lib: 'web' },
      disable_flags: true,
      flag_keys: ['x'],
    });
    expect(req.anonDistinctId).toBe('anon');
    expect(req.disableFlags).toBe(true);
    expect(req.flagKeys).toEqual(['x']);
    expect(req.deviceId).toBeUndefined();
  });

  it('defaults', () => {
    const req = parseFlagsRequest({ token: 't', distinct_id: 'd' });
    expect(req).toEqual({
      token: 't',
      distinctId: 'd',
      groups: {},
      personProperties: {},
      groupProperties: {},
      disableFlags: false,
      evaluationContexts: [],
    });
    expect('flagKeys' in req).toBe(false);
    expect('anonDistinctId' in req).toBe(false);
  });

  it('token aliases: $token, api_key; empty ones are skipped', () => {
    expect(parseFlagsRequest({ $token: 'a' }).token).toBe('a');
    expect(parseFlagsRequest({ api_key: 'b' }).token).toBe('b');
    expect(parseFlagsRequest({ token: '', api_key: 'c' }).token).toBe('c');
    expect(parseFlagsRequest({ token: 'x', api_key: 'y' }).token).toBe('x');
  });

  it('missing or empty token -> 401 in the JSON error shape', () => {
    for (const body of [{}, { token: '' }, { token: 5 }, { token: null, distinct_id: 'd' }]) {
      const err = expectHedgerowError(() => parseFlagsRequest(body), 'HR_FLAGS_MISSING_TOKEN');
      expect(err.status).toBe(401);
      expect(err.toBody()).toEqual({
        type: 'authentication_error',
        code: 'not_authenticated',
        detail: 'No API token provided. Please include a valid API token in your request.',
        attr: null,
      });
    }
  });

  it('token is checked before distinct_id (401 beats 400)', () => {
    expectHedgerowError(() => parseFlagsRequest({ person_properties: {} }), 'HR_FLAGS_MISSING_TOKEN');
  });

  it('body not an object -> 400', () => {
    for (const body of [null, [], [{ token: 't' }], 'x', 1, true]) {
      const err = expectHedgerowError(() => parseFlagsRequest(body), 'HR_FLAGS_NOT_AN_OBJECT');
      expect(err.status).toBe(400);
      expect(err.toBody().code).toBe('malformed_data');
    }
  });

  it('missing distinct_id -> null, then 400 from requireDistinctId', () => {
    for (const body of [{ token: 't' }, { token: 't', distinct_id: null }, { token: 't', distinct_id: true }]) {
      const req = parseFlagsRequest(body);
      expect(req.distinctId).toBeNull();
      const err = expectHedgerowError(() => requireDistinctId(req), 'HR_FLAGS_MISSING_DISTINCT_ID');
      expect(err.status).toBe(400);
      expect(err.toBody()).toEqual({
        type: 'validation_error',
        code: 'missing_distinct_id',
        detail: 'The distinct_id field is missing from the request. Please include a valid identifier.',
        attr: null,
      });
    }
  });

  it('distinct_id: $distinct_id alias, numbers stringified, empty allowed', () => {
    expect(parseFlagsRequest({ token: 't', $distinct_id: 'alakazam' }).distinctId).toBe('alakazam');
    expect(parseFlagsRequest({ token: 't', distinct_id: 8675309 }).distinctId).toBe('8675309');
    expect(parseFlagsRequest({ token: 't', $distinct_id: 123.45 }).distinctId).toBe('123.45');
    expect(parseFlagsRequest({ token: 't', distinct_id: '' }).distinctId).toBe('');
    expect(requireDistinctId(parseFlagsRequest({ token: 't', distinct_id: '' }))).toBe('');
  });

  it('distinct_id is cut to 200 characters (code points)', () => {
    expect(parseFlagsRequest({ token: 't', distinct_id: 'a'.repeat(210) }).distinctId).toBe('a'.repeat(200));
    const emoji = '😀'.repeat(205);
    expect(parseFlagsRequest({ token: 't', distinct_id: emoji }).distinctId).toBe('😀'.repeat(200));
  });

  it('groups: strings kept, numbers stringified, others dropped; $groups alias', () => {
    const req = parseFlagsRequest({
      token: 't',
      groups: { company: 'acme', project: 42, bad: { a: 1 }, nil: null, flag: true },
    });
    expect(req.groups).toEqual({ company: 'acme', project: '42' });
    expect(parseFlagsRequest({ token: 't', $groups: { org: 'o' } }).groups).toEqual({ org: 'o' });
    expect(parseFlagsRequest({ token: 't', groups: ['a'] }).groups).toEqual({});
  });

  it('a __proto__ group type is plain data', () => {
    const body = JSON.parse('{"token":"t","groups":{"__proto__":"x"},"group_properties":{"__proto__":{"a":1}}}');
    const req = parseFlagsRequest(body);
    expect(Object.keys(req.groups)).toEqual(['__proto__']);
    expect(Object.keys(req.groupProperties)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).a).toBeUndefined();
  });

  it('person_properties: $properties alias; not an object -> empty', () => {
    expect(parseFlagsRequest({ token: 't', $properties: { a: 1 } }).personProperties).toEqual({ a: 1 });
    expect(parseFlagsRequest({ token: 't', person_properties: 'x' }).personProperties).toEqual({});
    expect(parseFlagsRequest({ token: 't', person_properties: [1] }).personProperties).toEqual({});
  });

  it('group_properties: entries that are not objects are dropped', () => {
    const req = parseFlagsRequest({ token: 't', group_properties: { company: { a: 1 }, bad: 'x', arr: [] } });
    expect(req.groupProperties).toEqual({ company: { a: 1 } });
  });

  it('anon distinct id: $anon_distinct_id, anon_distinct_id, then person_properties (strings only)', () => {
    expect(parseFlagsRequest({ token: 't', anon_distinct_id: 'a1' }).anonDistinctId).toBe('a1');
    expect(parseFlagsRequest({ token: 't', $anon_distinct_id: 'top', person_properties: { $anon_distinct_id: 'pp' } }).anonDistinctId).toBe(
      'top',
    );
    expect(parseFlagsRequest({ token: 't', person_properties: { $anon_distinct_id: 'pp' } }).anonDistinctId).toBe('pp');
    expect(parseFlagsRequest({ token: 't', person_properties: { $anon_distinct_id: 5 } }).anonDistinctId).toBeUndefined();
    expect(parseFlagsRequest({ token: 't', $anon_distinct_id: '' }).anonDistinctId).toBeUndefined();
  });

  it('device id: $device_id or device_id, else person_properties.$device_id, non-empty strings only', () => {
    expect(parseFlagsRequest({ token: 't', device_id: 'd1' }).deviceId).toBe('d1');
    expect(parseFlagsRequest({ token: 't', $device_id: '' }).deviceId).toBeUndefined();
    expect(parseFlagsRequest({ token: 't', $device_id: 7 }).deviceId).toBeUndefined();
    // Flags service FlagRequest::extract_device_id: the top-level id wins, else the property.
    expect(parseFlagsRequest({ token: 't', device_id: 'top', person_properties: { $device_id: 'pp' } }).deviceId).toBe('top');
    expect(parseFlagsRequest({ token: 't', person_properties: { $device_id: 'pp' } }).deviceId).toBe('pp');
    expect(parseFlagsRequest({ token: 't', $device_id: '', $properties: { $device_id: 'pp' } }).deviceId).toBe('pp');
    expect(parseFlagsRequest({ token: 't', person_properties: { $device_id: 5 } }).deviceId).toBeUndefined();
    expect(parseFlagsRequest({ token: 't', person_properties: { $device_id: '' } }).deviceId).toBeUndefined();
  });

  it('flag keys: non-strings dropped; not an array -> all flags', () => {
    expect(parseFlagsRequest({ token: 't', flag_keys: ['a', 1, 'b'] }).flagKeys).toEqual(['a', 'b']);
    expect(parseFlagsRequest({ token: 't', flag_keys: [] }).flagKeys).toEqual([]);
    expect(parseFlagsRequest({ token: 't', flag_keys: 'a' }).flagKeys).toBeUndefined();
    expect(parseFlagsRequest({ token: 't', flag_keys_to_evaluate: null, flag_keys: ['z'] }).flagKeys).toEqual(['z']);
  });

  it('disable_flags only when exactly true', () => {
    expect(parseFlagsRequest({ token: 't', disable_flags: 'true' }).disableFlags).toBe(false);
    expect(parseFlagsRequest({ token: 't', disable_flags: 1 }).disableFlags).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { eventUuid, normalizeEvents, type NormalizeContext } from '../../src/ingest/normalize-event.js';
import { exceedsMaxDepth } from '../../src/util/json-depth.js';
import { parseCaptureBody, type ParsedBody, type RawEvent } from '../../src/ingest/parse-body.js';
import validate from '../../src/ingest/schemas/raw-event.validate.js';
import { MAX_JSON_DEPTH } from '../../src/limits.js';
import { expectHedgerowError } from './ingestion-vectors.js';

const NOW = new Date('2024-06-01T12:00:00.000Z');
const CTX: NormalizeContext = { projectId: 7, now: NOW, ip: '203.0.113.7' };
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function body(events: RawEvent[], over: Partial<ParsedBody> = {}): ParsedBody {
  return {
    events,
    filteredPerformanceEvents: 0,
    batchToken: undefined,
    sentAt: undefined,
    historicalMigration: false,
    projectIdHint: undefined,
    ...over,
  };
}

function one(event: RawEvent, over: Partial<ParsedBody> = {}, ctx: NormalizeContext = CTX) {
  const result = normalizeEvents(body([event], over), ctx);
  expect(result.dropped).toEqual({ no_event_name: 0, no_distinct_id: 0 });
  expect(result.events).toHaveLength(1);
  return result.events[0]!;
}

function nested(levels: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
}

describe('normalizeEvents', () => {
  it('builds a StoredEvent from a posthog-node batch event, dropping other top-level keys', () => {
    const parsed = parseCaptureBody(
      JSON.stringify({
        api_key: 'phc_k',
        sent_at: '2024-06-01T12:00:10.000Z',
        batch: [
          {
            event: 'signed up',
            distinct_id: 'user-1',
            uuid: '0190D7C6-4A3B-7C2D-8E9F-0A1B2C3D4E5F',
            timestamp: '2024-06-01T11:00:00.000Z',
            properties: { plan: 'pro', $lib: 'posthog-node' },
            type: 'capture',
            library: 'posthog-node',
            library_version: '4.0.0',
          },
        ],
      }),
      '/batch/',
    );
    expect(normalizeEvents(parsed, CTX)).toEqual({
      dropped: { no_event_name: 0, no_distinct_id: 0 },
      events: [
        {
          uuid: '0190d7c6-4a3b-7c2d-8e9f-0a1b2c3d4e5f',
          event: 'signed up',
          distinct_id: 'user-1',
          properties: {
            plan: 'pro',
            $lib: 'posthog-node',
            $ip: '203.0.113.7',
            $sent_at: '2024-06-01T12:00:10.000Z',
          },
          timestamp: '2024-06-01T10:59:50.000Z', // client clock 10 s ahead
          created_at: '2024-06-01T12:00:00.000Z',
          project_id: 7,
          sent_at: '2024-06-01T12:00:10.000Z',
        },
      ],
    });
  });

  it('omits sent_at and historical_migration when unknown or false', () => {
    const e = one({ event: 'e', distinct_id: 'd' });
    expect('sent_at' in e).toBe(false);
    expect('historical_migration' in e).toBe(false);
    expect(e.properties).toEqual({ $ip: '203.0.113.7' });
    expect(e.timestamp).toBe('2024-06-01T12:00:00.000Z');
  });

  it('copies historical_migration when true', () => {
    expect(one({ event: 'e', distinct_id: 'd' }, { historicalMigration: true }).historical_migration).toBe(true);
  });

  it('uses the query sent_at when the body has none', () => {
    const e = one({ event: 'e', distinct_id: 'd', timestamp: '2024-06-01T11:00:00Z' }, {}, { ...CTX, querySentAtMs: NOW.getTime() - 5000 });
    expect(e.sent_at).toBe('2024-06-01T11:59:55.000Z');
    expect(e.properties.$sent_at).toBe('2024-06-01T11:59:55.000Z');
    expect(e.timestamp).toBe('2024-06-01T11:00:05.000Z');
  });

  it('honours $ignore_sent_at and offset', () => {
    const sentAt = '2024-06-01T12:00:10.000Z';
    const ignored = one(
      { event: 'e', distinct_id: 'd', timestamp: '2024-06-01T11:00:00Z', properties: { $ignore_sent_at: true } },
      { sentAt },
    );
    expect(ignored.timestamp).toBe('2024-06-01T11:00:00.000Z');
    const offset = one({ event: 'e', distinct_id: 'd', timestamp: '2024-06-01T11:00:00Z', offset: 1500 }, { sentAt });
    expect(offset.timestamp).toBe('2024-06-01T11:59:58.500Z');
  });

  it('strips $set, $set_once and $unset from a personless event, as PostHog ingestion does (docs/compatibility.md#personless-events)', () => {
    const e = one({
      event: '$pageview',
      distinct_id: 'anon',
      $set: { top: 1 },
      properties: { $process_person_profile: false, $set: { a: 1 }, $set_once: { b: 2 }, $unset: ['c'], keep: true },
    });
    expect(e.properties).toMatchObject({ $process_person_profile: false, keep: true });
    for (const key of ['$set', '$set_once', '$unset']) expect(key in e.properties).toBe(false);
    // Any other value processes the person, and the changes stay.
    expect(one({ event: 'e', distinct_id: 'd', properties: { $process_person_profile: 'false', $set: { a: 1 } } }).properties.$set).toEqual(
      { a: 1 },
    );
  });

  describe('uuid', () => {
    it('keeps a valid uuid (lowercased) and canonicalises the 32-hex form', () => {
      expect(one({ event: 'e', distinct_id: 'd', uuid: 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11' }).uuid).toBe(
        'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
      );
      expect(one({ event: 'e', distinct_id: 'd', uuid: 'a0eebc999c0b4ef8bb6d6bb9bd380a11' }).uuid).toBe(
        'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
      );
    });

    it("generates a UUIDv7 when absent, null or ''", () => {
      for (const uuid of [undefined, null, '']) {
        const e = one(uuid === undefined ? { event: 'e', distinct_id: 'd' } : { event: 'e', distinct_id: 'd', uuid });
        expect(e.uuid).toMatch(UUID_V7);
      }
      expect(eventUuid(undefined)).not.toBe(eventUuid(undefined));
    });

    it('refuses the whole request for any other uuid', () => {
      for (const uuid of ['not-a-uuid', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1', 12, {}]) {
        const parsed = body([
          { event: 'ok', distinct_id: 'd' },
          { event: 'e', distinct_id: 'd', uuid },
        ]);
        const err = expectHedgerowError(() => normalizeEvents(parsed, CTX), 'HR_INVALID_UUID');
        expect(err.status).toBe(400);
        expect(err.attr).toBe('uuid');
      }
    });

    it('refuses a bad uuid even on an event that would be dropped', () => {
      expectHedgerowError(() => normalizeEvents(body([{ uuid: 'nope' }]), CTX), 'HR_INVALID_UUID');
    });
  });

  describe('dropping', () => {
    it('drops events without a usable name or distinct_id and counts them', () => {
      const result = normalizeEvents(
        body([
          { distinct_id: 'd' },
          { event: '', distinct_id: 'd' },
          { event: null, distinct_id: 'd' },
          { event: 'e' },
          { event: 'e', distinct_id: '   ' },
          { event: 'e', distinct_id: null, properties: { distinct_id: '' } },
          { event: 'kept', distinct_id: 'd' },
        ]),
        CTX,
      );
      expect(result.dropped).toEqual({ no_event_name: 3, no_distinct_id: 3 });
      expect(result.events.map((e) => e.event)).toEqual(['kept']);
    });

    // capture-rs deserializes `event` as a `String`: any other JSON value fails the whole body
    // (400 "failed to parse request"), the events before it included.
    it('refuses the whole request for an event whose event is not a string', () => {
      for (const name of [42, true, {}, ['a']]) {
        const parsed = body([
          { event: 'ok', distinct_id: 'd' },
          { event: name, distinct_id: 'd' },
        ]);
        const err = expectHedgerowError(() => normalizeEvents(parsed, CTX), 'HR_EVENT_FIELD_INVALID');
        expect([err.status, err.message]).toEqual([400, 'Invalid payload: event 1 event must be string,null']);
      }
    });

    it('cuts event names to 200 characters', () => {
      expect(one({ event: 'n'.repeat(250), distinct_id: 'd' }).event).toBe('n'.repeat(200));
      expect(one({ event: '😀'.repeat(201), distinct_id: 'd' }).event).toBe('😀'.repeat(200));
    });
  });

  describe('validation', () => {
    it('refuses properties that are not an object', () => {
      for (const properties of ['x', [], 3, true]) {
        const err = expectHedgerowError(
          () => normalizeEvents(body([{ event: 'e', distinct_id: 'd', properties }]), CTX),
          'HR_EVENT_FIELD_INVALID',
        );
        expect(err.message).toBe('Invalid payload: event 0 properties must be object,null');
      }
    });

    it('refuses mistyped timestamp, offset, $set and $set_once', () => {
      const bad: RawEvent[] = [
        { event: 'e', distinct_id: 'd', timestamp: 1717243200000 },
        { event: 'e', distinct_id: 'd', offset: '10' },
        { event: 'e', distinct_id: 'd', $set: ['a'] },
        { event: 'e', distinct_id: 'd', $set_once: 'a' },
      ];
      for (const event of bad) expectHedgerowError(() => normalizeEvents(body([event]), CTX), 'HR_EVENT_FIELD_INVALID');
    });

    it(`accepts nesting up to ${MAX_JSON_DEPTH} levels and refuses one more`, () => {
      // event (1) > properties (2) > nested objects from level 3
      expect(one({ event: 'e', distinct_id: 'd', properties: { a: nested(MAX_JSON_DEPTH - 2) } }).event).toBe('e');
      const err = expectHedgerowError(
        () => normalizeEvents(body([{ event: 'e', distinct_id: 'd', properties: { a: nested(MAX_JSON_DEPTH - 1) } }]), CTX),
        'HR_EVENT_TOO_DEEP',
      );
      expect(err.message).toBe(`Invalid payload: event 0 nests deeper than ${MAX_JSON_DEPTH} levels`);
    });

    it('refuses very deep nesting anywhere, including arrays and distinct_id', () => {
      const deepArray = JSON.parse('['.repeat(10_000) + ']'.repeat(10_000)) as unknown;
      expectHedgerowError(() => normalizeEvents(body([{ event: 'e', distinct_id: deepArray }]), CTX), 'HR_EVENT_TOO_DEEP');
      expect(exceedsMaxDepth(deepArray, 1)).toBe(true);
      expect(exceedsMaxDepth([[1], { a: 'x' }], 1)).toBe(false);
    });
  });

  describe('person properties', () => {
    it('merges top-level $set and $set_once into properties, top-level winning', () => {
      const e = one({
        event: '$identify',
        distinct_id: 'd',
        $set: { b: 2, c: 2 },
        $set_once: { y: 'top' },
        properties: { $set: { a: 1, b: 1 }, $set_once: { x: 'inner', y: 'inner' } },
      });
      expect(e.properties.$set).toEqual({ a: 1, b: 2, c: 2 });
      expect(e.properties.$set_once).toEqual({ x: 'inner', y: 'top' });
    });

    it('adds top-level $set when properties have none, replacing a non-object', () => {
      expect(one({ event: 'e', distinct_id: 'd', $set: { a: 1 } }).properties.$set).toEqual({ a: 1 });
      expect(one({ event: 'e', distinct_id: 'd', $set: { a: 1 }, properties: { $set: 'junk' } }).properties.$set).toEqual({ a: 1 });
      expect(one({ event: 'e', distinct_id: 'd', properties: { $set: { a: 1 } } }).properties.$set).toEqual({ a: 1 });
    });

    it('keeps a `__proto__` key of a top-level $set as a key, not as the prototype of the merged $set', () => {
      const raw = JSON.parse(
        '{"event":"e","distinct_id":"d","$set":{"__proto__":{"email":"x"}},"properties":{"$set":{"a":1}}}',
      ) as RawEvent;
      const merged = one(raw).properties.$set as Record<string, unknown>;
      expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
      expect(Object.keys(merged)).toEqual(['a', '__proto__']);
      expect(Object.getOwnPropertyDescriptor(merged, '__proto__')?.value).toEqual({ email: 'x' });
    });

    it('turns an /engage object into $identify with its $set', () => {
      const parsed = parseCaptureBody('{"$token":"t","$distinct_id":"u9","$set":{"email":"a@b.c"}}', '/engage/');
      const [e] = normalizeEvents(parsed, CTX).events;
      expect(e!.event).toBe('$identify');
      expect(e!.distinct_id).toBe('u9');
      expect(e!.properties.$set).toEqual({ email: 'a@b.c' });
    });
  });

  describe('$ip and other properties', () => {
    it('sets $ip from the request unless the event already has one', () => {
      expect(one({ event: 'e', distinct_id: 'd', properties: { $ip: '10.0.0.1' } }).properties.$ip).toBe('10.0.0.1');
      expect(one({ event: 'e', distinct_id: 'd' }).properties.$ip).toBe('203.0.113.7');
    });

    it('uses 127.0.0.1 for capture_internal events', () => {
      expect(one({ event: 'e', distinct_id: 'd', properties: { capture_internal: true } }).properties.$ip).toBe('127.0.0.1');
    });

    it('adds no $ip when the client address is unknown', () => {
      expect('$ip' in one({ event: 'e', distinct_id: 'd' }, {}, { ...CTX, ip: '' }).properties).toBe(false);
    });

    it('lowercases a UUID-shaped $session_id only', () => {
      const sid = '0190D7C6-4A3B-7C2D-8E9F-0A1B2C3D4E5F';
      expect(one({ event: 'e', distinct_id: 'd', properties: { $session_id: sid } }).properties.$session_id).toBe(sid.toLowerCase());
      expect(one({ event: 'e', distinct_id: 'd', properties: { $session_id: 'ABC' } }).properties.$session_id).toBe('ABC');
      // 36 characters, upper case, not a uuid: kept as sent.
      const notUuid = 'SESSION-0190D7C6-4A3B-7C2D-8E9F-0A1B';
      expect(notUuid).toHaveLength(36);
      expect(one({ event: 'e', distinct_id: 'd', properties: { $session_id: notUuid } }).properties.$session_id).toBe(notUuid);
      const lower = sid.toLowerCase();
      expect(one({ event: 'e', distinct_id: 'd', properties: { $session_id: lower } }).properties.$session_id).toBe(lower);
    });
  });
});

describe('precompiled raw-event validator', () => {
  it('allows unknown keys and null for the typed ones', () => {
    expect(validate({ event: null, foo: [1], uuid: null, properties: null, timestamp: null, offset: null })).toBe(true);
    expect(validate({ event: 1 })).toBe(false);
    expect(validate([])).toBe(false);
    expect(validate({ offset: 'x' })).toBe(false);
  });
});

/**
 * Per-event normalization seen end to end (docs/compatibility.md#event-normalization): dropped
 * events, uuids, timestamps and clock-skew correction, `$set`/`$set_once` placement, `$ip`,
 * distinct_id coercion, `/engage` without an event name, `$performance_event`. Runs against both
 * HTTP backends.
 */

import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { BACKENDS, cleanupDaemons, useDaemon } from '../helpers/daemon.js';
import { errorBody, eventsOf, OK, postJson, send, uniqueId } from '../helpers/http.js';

const HOUR = 3_600_000;

afterAll(cleanupDaemons);

describe.each(BACKENDS)('per-event normalization (%s backend)', (backend) => {
  const d = useDaemon({ backend });

  const batch = (events: unknown[], extra: Record<string, unknown> = {}) =>
    postJson(d, '/batch/', { api_key: d.projectKey, batch: events, ...extra });

  it('drops events without a name or distinct_id, stores the rest and answers 200', async () => {
    const id = uniqueId('drops');
    const keep1 = { uuid: randomUUID(), event: 'kept 1', distinct_id: id };
    const keep2 = { uuid: randomUUID(), event: 'kept 2', properties: { distinct_id: id } };
    const r = await batch([
      { uuid: randomUUID(), distinct_id: id, properties: {} }, // no name
      keep1,
      { uuid: randomUUID(), event: '', distinct_id: id }, // empty name
      { uuid: randomUUID(), event: 'no distinct id', properties: {} },
      { uuid: randomUUID(), event: 'empty distinct id', distinct_id: '' },
      { uuid: randomUUID(), event: 'blank distinct id', distinct_id: '   ' },
      { uuid: randomUUID(), event: 'null distinct id', distinct_id: null },
      keep2,
    ]);
    expect([r.status, r.json]).toEqual([200, OK]);
    expect((await eventsOf(d, id)).map((e) => [e.id, e.event])).toEqual([
      [keep1.uuid, 'kept 1'],
      [keep2.uuid, 'kept 2'],
    ]);
  });

  it('refuses the whole request when one uuid is not a UUID', async () => {
    const id = uniqueId('bad-uuid');
    const r = await batch([
      { uuid: randomUUID(), event: 'fine', distinct_id: id },
      { uuid: 'not-a-uuid', event: 'bad uuid', distinct_id: id },
    ]);
    expect(r.status).toBe(400);
    expect(r.json).toEqual(errorBody('validation_error', 'invalid_payload', 'Event field "uuid" is not a valid UUID!', 'uuid'));
    const numeric = await batch([{ uuid: 12345, event: 'numeric uuid', distinct_id: id }]);
    expect(numeric.status).toBe(400);
    expect(numeric.json).toEqual(errorBody('validation_error', 'invalid_payload', 'Event field "uuid" is not a valid UUID!', 'uuid'));
    expect(await eventsOf(d, id)).toEqual([]);
  });

  // capture-rs deserializes `event` as a `String` (PostHog/posthog `rust/common/types/src/event.rs`):
  // any other value fails the whole body with 400 (`rust/capture/src/api.rs`, RequestParsingError).
  it('refuses the whole request when one event name is not a string, storing none of it', async () => {
    const id = uniqueId('bad-name');
    for (const name of [42, true, { a: 1 }, ['x']]) {
      const r = await batch([
        { uuid: randomUUID(), event: 'fine', distinct_id: id },
        { uuid: randomUUID(), event: name, distinct_id: id },
      ]);
      expect(r.status).toBe(400);
      expect(r.json).toEqual(errorBody('validation_error', 'invalid_payload', 'Invalid payload: event 1 event must be string,null'));
    }
    const array = await postJson(d, '/e/', [
      { token: d.projectKey, event: 'fine', distinct_id: id },
      { token: d.projectKey, event: 7, distinct_id: id },
    ]);
    expect(array.status).toBe(400);
    // A single object whose event is not a string reads as one without event, as capture-rs reads it.
    const single = await postJson(d, '/i/v0/e/', { token: d.projectKey, event: 7, distinct_id: id });
    expect(single.json).toEqual(errorBody('validation_error', 'invalid_payload', 'non-engage request missing event name attribute'));
    const after = { uuid: randomUUID(), event: 'after', distinct_id: id };
    expect((await batch([after])).status).toBe(200);
    expect((await eventsOf(d, id)).map((e) => [e.id, e.event])).toEqual([[after.uuid, 'after']]);
  });

  it('keeps a valid uuid (lower-cased) and generates a UUIDv7 when none or "" is given', async () => {
    const id = uniqueId('uuids');
    const upper = randomUUID().toUpperCase();
    const r = await batch([
      { uuid: upper, event: 'upper', distinct_id: id },
      { event: 'missing', distinct_id: id },
      { uuid: '', event: 'empty', distinct_id: id },
    ]);
    expect([r.status, r.json]).toEqual([200, OK]);
    const stored = await eventsOf(d, id);
    expect(stored.map((e) => e.event)).toEqual(['upper', 'missing', 'empty']);
    expect(stored[0]!.id).toBe(upper.toLowerCase());
    for (const e of stored.slice(1)) {
      expect(e.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
    expect(stored[1]!.id).not.toBe(stored[2]!.id);
  });

  it('corrects clock skew with the batch sent_at: timestamp - (sent_at - now)', async () => {
    const id = uniqueId('skew');
    // The client clock runs 2 hours ahead; the event happened 10 minutes before sending.
    const clientNow = Date.now() + 2 * HOUR;
    const sentAt = new Date(clientNow).toISOString();
    const r = await batch(
      [{ uuid: randomUUID(), event: 'skewed', distinct_id: id, timestamp: new Date(clientNow - 600_000).toISOString() }],
      {
        sent_at: sentAt,
      },
    );
    expect([r.status, r.json]).toEqual([200, OK]);
    const [e] = await eventsOf(d, id);
    const expected = Date.parse(e!.created_at) - 600_000; // created_at is the server's `now`
    expect(Date.parse(e!.timestamp)).toBe(expected);
    expect(e!.properties.$sent_at).toBe(sentAt);
  });

  it('uses ?_= (ms) as sent_at when the body has none, and ignores it with $ignore_sent_at', async () => {
    const id = uniqueId('query-sent-at');
    const clientNow = Date.now() - HOUR; // client clock one hour behind
    const events = [
      {
        uuid: randomUUID(),
        event: 'query sent_at',
        properties: { token: d.projectKey, distinct_id: id },
        timestamp: new Date(clientNow - 1000).toISOString(),
      },
      {
        uuid: randomUUID(),
        event: 'ignored sent_at',
        properties: { token: d.projectKey, distinct_id: id, $ignore_sent_at: true },
        timestamp: '2024-01-01T00:00:00.000Z',
      },
    ];
    const r = await send(d, `/e/?_=${clientNow}`, { body: JSON.stringify(events), headers: { 'content-type': 'application/json' } });
    expect([r.status, r.json]).toEqual([200, OK]);
    const [a, b] = await eventsOf(d, id);
    expect(Date.parse(a!.timestamp)).toBe(Date.parse(a!.created_at) - 1000);
    expect(b!.timestamp).toBe('2024-01-01T00:00:00+00:00');
  });

  it('keeps a past timestamp as sent without sent_at, applies offset, clamps the far future to now', async () => {
    const id = uniqueId('timestamps');
    const r = await batch([
      { event: 'as sent', distinct_id: id, timestamp: '2023-07-08T09:10:11.121Z' },
      { event: 'offset', distinct_id: id, timestamp: '2023-07-08T09:10:11.121Z', offset: 5000 },
      { event: 'future', distinct_id: id, timestamp: new Date(Date.now() + 48 * HOUR).toISOString() },
      { event: 'unparseable', distinct_id: id, timestamp: 'yesterday-ish' },
    ]);
    expect([r.status, r.json]).toEqual([200, OK]);
    const [asSent, offset, future, bad] = await eventsOf(d, id);
    expect(asSent!.timestamp).toBe('2023-07-08T09:10:11.121000+00:00');
    expect(Date.parse(offset!.timestamp)).toBe(Date.parse(offset!.created_at) - 5000);
    expect(Date.parse(future!.timestamp)).toBe(Date.parse(future!.created_at));
    expect(Date.parse(bad!.timestamp)).toBe(Date.parse(bad!.created_at));
  });

  it('merges top-level $set and $set_once into properties, the top level winning', async () => {
    const id = uniqueId('set');
    const r = await batch([
      {
        event: '$identify',
        distinct_id: id,
        $set: { plan: 'pro', email: 'a@example.com' },
        $set_once: { first_seen: 'top' },
        properties: { $set: { plan: 'free', age: 30 }, $set_once: { first_seen: 'inner', source: 'ad' }, other: 1 },
      },
      { event: 'only top', distinct_id: id, $set: { x: 1 } },
    ]);
    expect([r.status, r.json]).toEqual([200, OK]);
    const [a, b] = await eventsOf(d, id);
    expect(a!.properties).toEqual({
      $set: { plan: 'pro', age: 30, email: 'a@example.com' },
      $set_once: { first_seen: 'top', source: 'ad' },
      other: 1,
      $ip: '127.0.0.1',
    });
    expect(b!.properties).toEqual({ $set: { x: 1 }, $ip: '127.0.0.1' });
  });

  it('sets $ip from the first X-Forwarded-For hop unless the event has one', async () => {
    const id = uniqueId('ip');
    const r = await postJson(
      d,
      '/batch/',
      {
        api_key: d.projectKey,
        batch: [
          { event: 'forwarded', distinct_id: id },
          { event: 'own ip', distinct_id: id, properties: { $ip: '198.51.100.1' } },
          { event: 'internal', distinct_id: id, properties: { capture_internal: true } },
        ],
      },
      { 'x-forwarded-for': '203.0.113.9, 10.0.0.1' },
    );
    expect([r.status, r.json]).toEqual([200, OK]);
    const stored = await eventsOf(d, id);
    expect(stored.map((e) => e.properties.$ip)).toEqual(['203.0.113.9', '198.51.100.1', '127.0.0.1']);
  });

  it('coerces a numeric distinct_id to text and prefers the top level over properties', async () => {
    const r = await batch([{ event: 'numeric id', distinct_id: 4242424242, properties: { distinct_id: 'ignored' } }]);
    expect([r.status, r.json]).toEqual([200, OK]);
    const stored = await eventsOf(d, '4242424242');
    expect(stored.map((e) => [e.event, e.distinct_id])).toEqual([['numeric id', '4242424242']]);
  });

  it('turns an /engage object without event into $identify, and refuses it elsewhere', async () => {
    const id = uniqueId('engage');
    const uuid = randomUUID();
    const r = await postJson(d, '/engage/', { token: d.projectKey, distinct_id: id, uuid, $set: { name: 'Ada' } });
    expect([r.status, r.json]).toEqual([200, OK]);
    const bad = await postJson(d, '/capture/', { token: d.projectKey, distinct_id: id, $set: { name: 'Bob' } });
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual(errorBody('validation_error', 'invalid_payload', 'non-engage request missing event name attribute'));
    const stored = await eventsOf(d, id);
    expect(stored.map((e) => [e.id, e.event, e.properties.$set])).toEqual([[uuid, '$identify', { name: 'Ada' }]]);
  });

  it('accepts a request of only $performance_event with 200 and stores nothing', async () => {
    const id = uniqueId('perf');
    const r = await batch([{ event: '$performance_event', distinct_id: id }]);
    expect([r.status, r.json]).toEqual([200, OK]);
    const mixed = await batch([
      { event: '$performance_event', distinct_id: id },
      { event: 'real', distinct_id: id },
    ]);
    expect([mixed.status, mixed.json]).toEqual([200, OK]);
    expect((await eventsOf(d, id)).map((e) => e.event)).toEqual(['real']);
  });

  it('cuts event names and distinct_ids to 200 characters, keeping non-BMP text intact', async () => {
    const longId = 'é'.repeat(300);
    const r = await batch([{ event: `${'n'.repeat(250)}`, distinct_id: longId, properties: { s: '𝄞 ☃ 😀', k: 'ü' } }]);
    expect([r.status, r.json]).toEqual([200, OK]);
    const stored = await eventsOf(d, 'é'.repeat(200));
    expect(stored.map((e) => [e.event, e.distinct_id, e.properties.s])).toEqual([['n'.repeat(200), 'é'.repeat(200), '𝄞 ☃ 😀']]);
  });

  it('gives each of many concurrent requests its own answer (requests share worker tasks)', async () => {
    const id = uniqueId('concurrent');
    const kinds = ['good', 'unknown key', 'bad uuid', 'dropped'] as const;
    const plan = Array.from({ length: 48 }, (_, i) => ({ kind: kinds[i % 4]!, uuid: randomUUID(), i }));
    const replies = await Promise.all(
      plan.map((p) => {
        const event = { uuid: p.kind === 'bad uuid' ? 'nope' : p.uuid, event: p.kind === 'dropped' ? '' : `c${p.i}`, distinct_id: id };
        return postJson(d, '/batch/', { api_key: p.kind === 'unknown key' ? 'phc_0000000000000000' : d.projectKey, batch: [event] });
      }),
    );
    const expected = { good: [200, OK], 'unknown key': [401, 'invalid_api_key'], 'bad uuid': [400, 'invalid_payload'], dropped: [200, OK] };
    replies.forEach((r, i) => {
      const kind = plan[i]!.kind;
      const got = r.status === 200 ? r.json : (r.json as { code: string }).code;
      expect({ i, kind, reply: [r.status, got] }).toEqual({ i, kind, reply: expected[kind] });
    });
    const stored = await eventsOf(d, id);
    expect(stored.map((e) => e.id).sort()).toEqual(
      plan
        .filter((p) => p.kind === 'good')
        .map((p) => p.uuid)
        .sort(),
    );
  });

  it('refuses an event whose properties are not an object', async () => {
    const id = uniqueId('props');
    const r = await batch([{ event: 'array props', distinct_id: id, properties: [1, 2] }]);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ type: 'validation_error', code: 'invalid_payload', attr: null });
    expect(await eventsOf(d, id)).toEqual([]);
  });

  it('refuses an empty batch with 400', async () => {
    const r = await batch([]);
    expect(r.status).toBe(400);
    expect(r.json).toEqual(errorBody('validation_error', 'invalid_payload', 'request holds no event'));
  });
});

/**
 * Event-log blocks: one msgpack array with msgpackr's records since schema version 4 (blocks of
 * one or two events, and all blocks before, a run of plain maps). Both read the same; a block
 * needs nothing outside itself to be read; and the per-event limit of a capture group is still
 * each event's own size.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Packr } from 'msgpackr';
import { afterEach, describe, expect, it } from 'vitest';
import type { CaptureRequest, StoredEvent } from '../../src/ingest/types.js';
import { MAX_EVENT_BYTES } from '../../src/limits.js';
import { runCaptureGroup } from '../../src/pool/capture-group.js';
import { AuthStore } from '../../src/store/auth-store.js';
import { decodeBlock, encodeBlock, encodedEventSize } from '../../src/store/event-log.js';
import { openStore, type StoreDatabases } from '../../src/store/open-store.js';

const event = (i: number, properties: Record<string, unknown> = {}): StoredEvent =>
  ({
    uuid: `0190f0e4-0000-7000-8000-${String(i).padStart(12, '0')}`,
    event: i % 3 === 0 ? '$pageview' : 'clicked',
    distinct_id: `user-${i}`,
    properties: { $lib: 'posthog-node', n: i, nested: { a: [i, 'x'], b: null }, ...properties },
    timestamp: '2026-11-22T10:00:00.000Z',
    project_id: 1,
  }) as unknown as StoredEvent;

describe('event-log blocks', () => {
  it('read back equal, whatever the shapes, from a Buffer or a plain Uint8Array', () => {
    // Far more object shapes than msgpackr numbers in one go (64), nested ones too.
    const events = Array.from({ length: 500 }, (_, i) => event(i, { [`k${i % 150}`]: i, [`o${i % 90}`]: { [`z${i % 70}`]: [i] } }));
    const block = encodeBlock(events);
    expect(decodeBlock(block)).toEqual(events);
    expect(decodeBlock(Buffer.from(block))).toEqual(events);
    expect(decodeBlock(encodeBlock([events[7]!]))).toEqual([events[7]]);
  });

  it('of one or two events are plain maps (cheaper there), of three or more one array of records', () => {
    const events = [event(1), event(2), event(3)];
    for (const n of [1, 2, 3]) {
      const block = encodeBlock(events.slice(0, n));
      expect(block[0]! >= 0x90 && block[0]! <= 0x9f, `${n}`).toBe(n >= 3); // a fixarray header, or a map's
      expect(decodeBlock(block)).toEqual(events.slice(0, n));
    }
  });

  it('are self-contained: the same events give the same bytes whatever was encoded before', () => {
    const events = [event(1), event(2), event(3)];
    const first = Buffer.from(encodeBlock(events));
    encodeBlock(Array.from({ length: 50 }, (_, i) => event(i, { [`other${i}`]: i })));
    expect(Buffer.from(encodeBlock(events)).equals(first)).toBe(true);
  });

  it('write each shape’s keys once: smaller than the plain maps of earlier versions, which still read', () => {
    const events = Array.from({ length: 100 }, (_, i) => event(i));
    const plain = new Packr({ useRecords: false, moreTypes: false });
    const old = Buffer.concat(events.map((e) => plain.pack(e)));
    expect(old[0]).toBeGreaterThanOrEqual(0x80); // a map header: the earlier format
    expect(decodeBlock(old)).toEqual(events);
    expect(encodeBlock(events).length).toBeLessThan(old.length * 0.8);
  });

  it('hold objects of more than 65,535 keys, in blocks of one event as of many', () => {
    const wide: Record<string, number> = {};
    for (let i = 0; i < 70_000; i++) wide[`k${i}`] = i;
    for (const events of [[event(1, { $set: wide })], [event(1, { $set: wide }), event(2), event(3)]]) {
      expect(decodeBlock(encodeBlock(events))).toEqual(events);
    }
    expect(encodedEventSize(event(1, { $set: wide }))).toBeGreaterThan(70_000 * 6);
  });

  it('of plain maps read right after a block of records: the integers 64–127 stay integers', () => {
    // msgpackr gives records the bytes 0x40–0x7f; a reader that had just read records took a
    // plain map's 64 (a property, or a project id of 64–127) for one, and failed or misread it.
    const records = Array.from({ length: 70 }, (_, i) => event(i, { [`shape${i}`]: i }));
    for (let n = 64; n < 128; n++) {
      const single = [{ ...event(n, { n, list: [64, 100, 127] }), project_id: n } as StoredEvent];
      const pair = [event(n, { n }), event(n + 1, { m: n })];
      expect(decodeBlock(encodeBlock(records))).toEqual(records);
      expect(decodeBlock(encodeBlock(single))).toEqual(single);
      expect(decodeBlock(encodeBlock(records))).toEqual(records);
      expect(decodeBlock(encodeBlock(pair))).toEqual(pair);
    }
  });

  it('keep a `__proto__` property as a plain key, as the plain maps did (no prototype is set)', () => {
    const hostile = JSON.parse('{"__proto__": {"polluted": 1}, "constructor": 1}') as Record<string, unknown>;
    const events = [event(1, hostile), event(2, hostile), event(3, hostile), event(4, hostile)];
    for (const e of decodeBlock(encodeBlock(events))) {
      expect(Object.getPrototypeOf(e.properties)).toBe(Object.prototype);
      expect(e.properties).toMatchObject({ __proto_: { polluted: 1 }, constructor: 1 });
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('capture group blocks and the per-event limit', () => {
  const opened: { dir: string; dbs: StoreDatabases }[] = [];
  afterEach(async () => {
    for (const { dir, dbs } of opened.splice(0)) {
      await dbs.root.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  function auth(): AuthStore {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'hedgerow-blocks-'));
    const dbs = openStore({ dataDir: dir, sync: 'none' });
    opened.push({ dir, dbs });
    const store = new AuthStore(dbs);
    store.createProject({ name: 'p', organizationId: store.createOrganization('o').id, apiToken: 'phc_blockstest1' });
    return store;
  }

  const request = (batch: unknown[]): CaptureRequest => ({
    path: '/batch/',
    query: '',
    method: 'POST',
    contentType: 'application/json',
    contentEncoding: '',
    body: new TextEncoder().encode(JSON.stringify({ api_key: 'phc_blockstest1', batch })),
    ip: '127.0.0.1',
  });
  const small = (id: string, n: number) => Array.from({ length: n }, (_, i) => ({ event: 'e', distinct_id: id, properties: { i } }));

  it('one block for the whole group, in request order', () => {
    const result = runCaptureGroup([request(small('a', 2)), request(small('b', 3))], auth(), 1 << 30);
    // With the project the key named (the first of a new store), for the access log.
    expect(result.outcomes).toEqual([
      { ok: true, status: 200, projectId: 1 },
      { ok: true, status: 200, projectId: 1 },
    ]);
    expect(result.stats.accepted).toBe(5);
    expect(decodeBlock(result.block!).map((e) => e.distinct_id)).toEqual(['a', 'a', 'b', 'b', 'b']);
  });

  it('refuses only the request with an event over the limit, even in a block of many small ones', () => {
    const big = { event: 'big', distinct_id: 'c', properties: { blob: 'y'.repeat(MAX_EVENT_BYTES) } };
    // Events that are each small but together over the limit are all kept.
    const many = small('a', 1).map((e) => ({ ...e, properties: { pad: 'x'.repeat(MAX_EVENT_BYTES / 4) } }));
    const result = runCaptureGroup(
      [request([...many, ...many, ...many, ...many, ...many]), request([...small('b', 1), big]), request(small('d', 1))],
      auth(),
      1 << 30,
    );
    expect(result.outcomes[0]).toEqual({ ok: true, status: 200, projectId: 1 });
    expect(result.outcomes[2]).toEqual({ ok: true, status: 200, projectId: 1 });
    const refused = result.outcomes[1]!;
    expect(refused.ok).toBe(false);
    const detail = refused.ok ? '' : refused.error.detail;
    expect(refused.ok ? '' : refused.error.hedgerowCode).toBe('HR_EVENT_TOO_LARGE');
    expect(detail).toMatch(/^maximum event size exceeded: event 1 is (\d+) bytes encoded, the limit is 1048576$/);
    expect(Number(/is (\d+) bytes/.exec(detail)![1])).toBeGreaterThan(MAX_EVENT_BYTES);
    expect(result.stats.accepted).toBe(6);
    expect(decodeBlock(result.block!).map((e) => e.distinct_id)).toEqual(['a', 'a', 'a', 'a', 'a', 'd']);
    expect(encodedEventSize(decodeBlock(result.block!)[0]!)).toBeLessThan(MAX_EVENT_BYTES);
  });

  it('no block when every request is refused', () => {
    const big = { event: 'big', distinct_id: 'c', properties: { blob: 'y'.repeat(MAX_EVENT_BYTES) } };
    const result = runCaptureGroup([request([big])], auth(), 1 << 30);
    expect(result.outcomes[0]!.ok).toBe(false);
    expect(result.block).toBeNull();
    expect(result.stats.accepted).toBe(0);
  });
});

/**
 * Hostile and broken input: each request gets its 4xx with PostHog's error body
 * (docs/compatibility.md#errors), the daemon keeps serving after it, and nothing acknowledged
 * before is lost. Runs against both HTTP backends.
 */

import { randomBytes, randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, cleanupDaemons, startDaemon, type DaemonHandle } from '../helpers/daemon.js';
import { errorBody, eventsOf, gzip, OK, postJson, send, uniqueId, type Reply } from '../helpers/http.js';

const MiB = 1024 * 1024;
const decodeFailed = (detail: string) => errorBody('validation_error', 'invalid_payload', `failed to decode request: ${detail}`);

/** 200 MiB of zeros, gzipped (~200 KB on the wire). Built once for both backends. */
let bomb: Buffer;

beforeAll(() => {
  bomb = gzipSync(Buffer.alloc(200 * MiB), { level: 9 });
});
afterAll(cleanupDaemons);

describe.each(BACKENDS)('bad input (%s backend)', (backend) => {
  let d: DaemonHandle;
  const distinctId = uniqueId('survivor');
  /** Every uuid acknowledged with 200, in order. */
  const acked: string[] = [];

  beforeAll(async () => {
    d = await startDaemon({ backend });
    for (let i = 0; i < 3; i++) await ackOne(`before ${i}`);
  });
  afterAll(async () => {
    expect(await d.stop()).toBe(0);
  });

  async function ackOne(name: string): Promise<void> {
    const uuid = randomUUID();
    const r = await postJson(d, '/batch/', { api_key: d.projectKey, batch: [{ uuid, event: name, distinct_id: distinctId }] });
    expect([r.status, r.json]).toEqual([200, OK]);
    acked.push(uuid);
  }

  /** The daemon still answers health checks and still stores events. */
  async function expectStillServing(label: string): Promise<void> {
    const health = await send(d, '/_health');
    expect(health.status).toBe(200);
    await ackOne(`after ${label}`);
  }

  function expectError(r: Reply, status: number, body: unknown): void {
    expect({ status: r.status, body: r.json, type: r.headers.get('content-type') }).toEqual({
      status,
      body,
      type: 'application/json',
    });
  }

  const batchJson = (extra = '') => `{"api_key":"${d.projectKey}","batch":[{"event":"e","distinct_id":"${distinctId}"${extra}}]}`;

  it('truncated gzip: 400', async () => {
    const whole = gzip(batchJson());
    const r = await send(d, '/batch/', { body: whole.subarray(0, whole.length - 12), headers: { 'content-encoding': 'gzip' } });
    expectError(r, 400, decodeFailed('invalid gzip data'));
    await expectStillServing('truncated gzip');
  });

  it('bytes with the gzip magic that are not gzip: 400', async () => {
    const r = await send(d, '/e/', { body: Buffer.concat([Buffer.from([0x1f, 0x8b]), randomBytes(4096)]) });
    expectError(r, 400, decodeFailed('invalid gzip data'));
    await expectStillServing('fake gzip');
  });

  it('invalid base64 with ?compression=base64: the hint falls back, and the text that is not JSON gets 400', async () => {
    const r = await send(d, '/batch/?compression=base64', { body: 'this is *not* base64!', headers: { 'content-type': 'text/plain' } });
    expect([r.status, (r.json as { type: string; code: string }).code]).toEqual([400, 'invalid_payload']);
    expect((r.json as { detail: string }).detail).toMatch(/^failed to parse request/);
    await expectStillServing('invalid base64');
    // Plain JSON under a wrong base64 hint is taken as it is (capture-rs never applies that hint).
    const uuid = randomUUID();
    const ok = await send(d, '/batch/?compression=base64', {
      body: JSON.stringify({ api_key: d.projectKey, batch: [{ uuid, event: 'hinted', distinct_id: uniqueId('hint') }] }),
      headers: { 'content-type': 'application/json' },
    });
    expect([ok.status, ok.json]).toEqual([200, OK]);
  });

  it('invalid UTF-8, plain and inside gzip: 400', async () => {
    const body = Buffer.concat([Buffer.from(batchJson(',"properties":{"s":"')), Buffer.from([0xc3, 0x28, 0xff, 0xfe]), Buffer.from('"}')]);
    const plain = await send(d, '/batch/', { body, headers: { 'content-type': 'application/json' } });
    expectError(plain, 400, decodeFailed('invalid UTF-8 in request payload'));
    const gz = await send(d, '/batch/', { body: gzip(body), headers: { 'content-encoding': 'gzip' } });
    expectError(gz, 400, decodeFailed('invalid UTF-8 in gzip data'));
    await expectStillServing('invalid utf-8');
  });

  it('deeply nested JSON (10000 arrays in properties, 100000 at the top): 400', async () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    const r = await send(d, '/batch/', {
      body: batchJson(`,"properties":{"deep":${deep}}`),
      headers: { 'content-type': 'application/json' },
    });
    expectError(r, 400, errorBody('validation_error', 'invalid_payload', 'Invalid payload: event 0 nests deeper than 128 levels'));
    const top = await send(d, '/e/', { body: `${'['.repeat(100_000)}${']'.repeat(100_000)}` });
    expectError(top, 400, errorBody('validation_error', 'invalid_payload', 'Invalid payload: some events are null or not objects'));
    await expectStillServing('deep json');
  });

  it('a 21 MiB body: 413 with the PostHog error body', async () => {
    const body = batchJson(`,"properties":{"big":"${'x'.repeat(21 * MiB)}"}`);
    const r = await send(d, '/batch/', { body, headers: { 'content-type': 'application/json', origin: 'https://app.example.com' } });
    expectError(r, 413, errorBody('validation_error', 'payload_too_large', 'request body exceeds the 20971520-byte limit'));
    expect(r.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    await expectStillServing('21 MiB');
  });

  it('a gzip bomb (200 MiB of zeros): 413, quickly', async () => {
    const started = Date.now();
    const r = await send(d, '/batch/', { body: bomb, headers: { 'content-encoding': 'gzip', 'content-type': 'application/json' } });
    const ms = Date.now() - started;
    // 1,000:1, far past the 100:1 a payload may decode to beyond 4 MiB: refused there, measured, not inflated
    const detail =
      `decompressed payload exceeds ${100 * bomb.length} bytes: past ${4 * MiB} bytes, a payload may decode ` +
      `to at most 100 times its compressed size (${bomb.length} bytes)`;
    expectError(r, 413, errorBody('validation_error', 'payload_too_large', detail));
    expect(ms).toBeLessThan(5000);
    // Without any hint: found by its magic bytes.
    const sniffed = await send(d, '/e/', { body: bomb, headers: { 'content-type': 'text/plain' } });
    expectError(sniffed, 413, errorBody('validation_error', 'payload_too_large', detail));
    await expectStillServing('gzip bomb');
  });

  it('an event over the per-event limit: 413 event_too_large', async () => {
    const r = await send(d, '/batch/', {
      body: batchJson(`,"properties":{"big":"${'y'.repeat(MiB + 10)}"}`),
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(413);
    const body = r.json as { type: string; code: string; detail: string; attr: null };
    expect({ ...body, detail: undefined }).toEqual({ type: 'validation_error', code: 'event_too_large', detail: undefined, attr: null });
    expect(body.detail).toMatch(/^maximum event size exceeded: event 0 is \d+ bytes encoded, the limit is 1048576$/);
    await expectStillServing('big event');
  });

  it('random bytes: 400', async () => {
    const body = randomBytes(64 * 1024);
    body[0] = 0xff; // neither gzip magic nor base64 nor a form
    const r = await send(d, '/batch/', { body, headers: { 'content-type': 'application/octet-stream' } });
    expectError(r, 400, decodeFailed('invalid UTF-8 in request payload'));
    await expectStillServing('random bytes');
  });

  it('invalid JSON and JSON of the wrong shape: 400', async () => {
    const r = await send(d, '/batch/', { body: '{"api_key": "x", "batch": [', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ type: 'validation_error', code: 'invalid_payload', attr: null });
    expect((r.json as { detail: string }).detail).toMatch(/^failed to parse request: /);
    const notEvents = (what: string) =>
      errorBody(
        'validation_error',
        'invalid_payload',
        `failed to parse request: the payload is ${what}, not an event, a list of events or a batch`,
      );
    const scalar = await send(d, '/batch/', { body: '42', headers: { 'content-type': 'application/json' } });
    expectError(scalar, 400, notEvents('a number'));
    // null and true are also four characters of base64: read as the JSON they are, on every path
    for (const path of ['/batch/', '/e/', '/i/v0/e/', '/capture/', '/track/', '/engage/']) {
      for (const literal of ['null', 'true']) {
        expectError(await send(d, path, { body: literal, headers: { 'content-type': 'application/json' } }), 400, notEvents(literal));
      }
    }
    const nulls = await send(d, '/batch/', { body: `{"api_key":"${d.projectKey}","batch":[null]}` });
    expectError(nulls, 400, errorBody('validation_error', 'invalid_payload', 'Invalid payload: some events are null or not objects'));
    await expectStillServing('invalid json');
  });

  it('an empty body, an empty form data= and a GET without data: 400', async () => {
    const missing = errorBody('validation_error', 'invalid_payload', 'request missing data payload');
    expectError(await send(d, '/batch/', { body: '', headers: { 'content-type': 'application/json' } }), 400, missing);
    expectError(await send(d, '/e/', { body: 'data=', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 400, missing);
    expectError(await send(d, '/e/?ver=1'), 400, missing);
    await expectStillServing('empty body');
  });

  it('garbage lz64: 400', async () => {
    const r = await send(d, '/e/?compression=lz64', {
      body: 'data=%21%21%21%21',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ type: 'validation_error', code: 'invalid_payload', attr: null });
    await expectStillServing('lz64');
  });

  it('lost nothing: every event acknowledged before and between the bad requests is stored once', async () => {
    const stored = await eventsOf(d, distinctId);
    expect(stored.map((e) => e.id)).toEqual(acked);
    expect(acked).toHaveLength(3 + 12); // 3 before, one after each bad-input case
  });
});

describe.each(BACKENDS)('configured size limits, at the exact boundary (%s backend)', (backend) => {
  const CAP = MiB; // HEDGEROW_MAX_BODY_BYTES; the decompressed budget is 5x
  let d: DaemonHandle;

  beforeAll(async () => {
    d = await startDaemon({ backend, env: { HEDGEROW_MAX_BODY_BYTES: String(CAP) } });
  });
  afterAll(async () => {
    expect(await d.stop()).toBe(0);
  });

  /** A valid batch padded with trailing whitespace (still valid JSON) to exactly `size` bytes. */
  function padded(distinctId: string, uuid: string, size: number): string {
    const json = JSON.stringify({ api_key: d.projectKey, batch: [{ uuid, event: 'padded', distinct_id: distinctId }] });
    return json + ' '.repeat(size - json.length);
  }

  /**
   * The same, padded with runs of JSON whitespace of random kinds and lengths: gzip makes ~15:1 of
   * it, within the 100:1 a payload decoding past 4 MiB may have (spaces alone would be 1,000:1).
   */
  function paddedUnevenly(distinctId: string, uuid: string, size: number): Buffer {
    const json = JSON.stringify({ api_key: d.projectKey, batch: [{ uuid, event: 'padded', distinct_id: distinctId }] });
    const out = Buffer.alloc(size, ' ');
    out.write(json);
    let x = 12345;
    for (let at = json.length; at < size; ) {
      x = (Math.imul(x, 1103515245) + 12345) & 0x7fffffff;
      const run = Math.min(1 + ((x >>> 8) & 31), size - at);
      out.fill(' \t\n\r'[(x >>> 16) & 3] as string, at, at + run);
      at += run;
    }
    return out;
  }

  it('a body of exactly the cap is accepted, one byte more is 413', async () => {
    const id = uniqueId('cap');
    const uuid = randomUUID();
    const ok = await send(d, '/batch/', { body: padded(id, uuid, CAP), headers: { 'content-type': 'application/json' } });
    expect([ok.status, ok.json]).toEqual([200, OK]);
    const over = await send(d, '/batch/', { body: padded(id, randomUUID(), CAP + 1), headers: { 'content-type': 'application/json' } });
    expect([over.status, over.json]).toEqual([
      413,
      errorBody('validation_error', 'payload_too_large', `request body exceeds the ${CAP}-byte limit`),
    ]);
    expect((await eventsOf(d, id)).map((e) => e.id)).toEqual([uuid]);
  });

  it('gzip decompressing to exactly 5x the cap is accepted, one byte more is 413', async () => {
    const id = uniqueId('decompressed');
    const uuid = randomUUID();
    const body = gzip(paddedUnevenly(id, uuid, 5 * CAP));
    expect(body.length).toBeLessThan(CAP);
    expect(body.length * 100).toBeGreaterThan(5 * CAP);
    const ok = await send(d, '/batch/', { body, headers: { 'content-encoding': 'gzip' } });
    expect([ok.status, ok.json]).toEqual([200, OK]);
    const overBody = gzip(paddedUnevenly(id, randomUUID(), 5 * CAP + 1));
    const over = await send(d, '/batch/', { body: overBody, headers: { 'content-encoding': 'gzip' } });
    expect([over.status, over.json]).toEqual([
      413,
      errorBody('validation_error', 'payload_too_large', `decompressed payload exceeds ${5 * CAP} bytes`),
    ]);
    expect((await eventsOf(d, id)).map((e) => e.id)).toEqual([uuid]);
  });
});

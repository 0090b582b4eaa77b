/**
 * Every body encoding real SDKs send (docs/compatibility.md#request-decoding): JSON object, array
 * and batch; form `data=` with base64 (and the `+`/space quirk) or plain JSON; whole-body base64;
 * gzip by header, by query hint and by magic bytes; a wrong gzip hint; lz64; `beacon=1`. Each
 * accepted event is read back through the events API. Runs against both HTTP backends.
 */

import { randomUUID } from 'node:crypto';
import http from 'node:http';
import LZString from 'lz-string';
import { afterAll, describe, expect, it } from 'vitest';
import { BACKENDS, cleanupDaemons, useDaemon } from '../helpers/daemon.js';
import { b64, eventsOf, gzip, OK, postJson, send, uniqueId, type ApiEvent } from '../helpers/http.js';

const FORM = 'application/x-www-form-urlencoded';
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

afterAll(cleanupDaemons);

/** An event in posthog-js's shape: token and distinct_id inside properties. */
function jsEvent(token: string, distinctId: string, name: string, extra: Record<string, unknown> = {}) {
  return {
    uuid: randomUUID(),
    event: name,
    properties: { token, distinct_id: distinctId, $lib: 'web', n: name, ...extra },
    timestamp: '2025-03-04T05:06:07.890Z',
  };
}

/** A JSON text whose base64 contains at least one '+' (a nonce is varied until it does). */
function payloadWithPlus(build: (nonce: string) => unknown): { json: string; base64: string } {
  for (let i = 0; ; i++) {
    const json = JSON.stringify(build(`n${i}~>?`));
    const base64 = b64(json);
    if (base64.includes('+')) return { json, base64 };
  }
}

describe.each(BACKENDS)('capture body encodings (%s backend)', (backend) => {
  const d = useDaemon({ backend });

  async function expectStored(distinctId: string, sent: Array<{ uuid: string; event: string }>): Promise<ApiEvent[]> {
    const stored = await eventsOf(d, distinctId);
    expect(stored.map((e) => [e.id, e.event])).toEqual(sent.map((e) => [e.uuid, e.event]));
    return stored;
  }

  it('a single JSON event object, stored with every field', async () => {
    const distinctId = uniqueId('object');
    const uuid = randomUUID();
    const before = Date.now();
    const r = await postJson(d, '/capture/', {
      event: 'object event',
      distinct_id: distinctId,
      api_key: d.projectKey,
      uuid,
      timestamp: '2024-05-06T07:08:09.123000+00:00',
      properties: { plan: 'pro', n: 3, nested: { a: [1, 2, { b: null }] }, flag: true },
    });
    expect(r.status).toBe(200);
    expect(r.json).toEqual(OK);
    const [e] = await expectStored(distinctId, [{ uuid, event: 'object event' }]);
    // `person` is null until the person processor has made the event's person.
    const { person, ...stored } = e as typeof e & { person?: unknown };
    expect(person === null || typeof person === 'object').toBe(true);
    expect(stored).toEqual({
      id: uuid,
      event: 'object event',
      distinct_id: distinctId,
      properties: { plan: 'pro', n: 3, nested: { a: [1, 2, { b: null }] }, flag: true, $ip: '127.0.0.1' },
      timestamp: '2024-05-06T07:08:09.123000+00:00',
      created_at: expect.stringMatching(ISO_MS),
      elements: [],
      elements_chain: '',
    });
    const created = Date.parse(e!.created_at);
    expect(created).toBeGreaterThanOrEqual(before - 1000);
    expect(created).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it('a JSON array of events', async () => {
    const distinctId = uniqueId('array');
    const events = [1, 2, 3].map((i) => jsEvent(d.projectKey, distinctId, `array ${i}`));
    const r = await postJson(d, '/e/', events);
    expect([r.status, r.json]).toEqual([200, OK]);
    const stored = await expectStored(distinctId, events);
    expect(stored[0]!.properties).toEqual({ ...events[0]!.properties, $ip: '127.0.0.1' });
    expect(stored[0]!.timestamp).toBe('2025-03-04T05:06:07.890000+00:00');
  });

  it('a {api_key, batch, sent_at} object (posthog-node shape)', async () => {
    const distinctId = uniqueId('batch');
    const sentAt = new Date().toISOString();
    const batch = [1, 2].map((i) => ({
      uuid: randomUUID(),
      event: `batch ${i}`,
      distinct_id: distinctId,
      properties: { $lib: 'posthog-node', i },
      timestamp: sentAt,
    }));
    const r = await postJson(d, '/batch/', { api_key: d.projectKey, batch, sent_at: sentAt });
    expect([r.status, r.json]).toEqual([200, OK]);
    const stored = await expectStored(distinctId, batch);
    expect(stored[1]!.properties).toEqual({ $lib: 'posthog-node', i: 2, $ip: '127.0.0.1', $sent_at: sentAt });
  });

  it('a form data= with base64 whose + arrived as a space (posthog-js compression=base64)', async () => {
    const distinctId = uniqueId('form-b64');
    const uuid = randomUUID();
    const { base64 } = payloadWithPlus((nonce) => ({
      api_key: d.projectKey,
      batch: [{ uuid, event: 'form base64', properties: { distinct_id: distinctId, nonce } }],
    }));
    expect(base64).toContain('+');
    // Not urlencoded, as posthog-js sends it: the server's urldecoding turns each + into a space.
    const r = await send(d, '/e/?compression=base64', { body: `data=${base64}`, headers: { 'content-type': FORM } });
    expect([r.status, r.json]).toEqual([200, OK]);
    await expectStored(distinctId, [{ uuid, event: 'form base64' }]);
  });

  it('a form data= with base64 and no hint, on every capture path (decoded after the form)', async () => {
    const distinctId = uniqueId('form-b64-nohint');
    const sent: Array<{ uuid: string; event: string }> = [];
    for (const path of ['/e/', '/capture/', '/batch/', '/i/v0/e/', '/track', '/engage/']) {
      const uuid = randomUUID();
      const event = `form base64 no hint ${path}`;
      const { base64 } = payloadWithPlus((nonce) => [{ uuid, event, properties: { distinct_id: distinctId, token: d.projectKey, nonce } }]);
      const r = await send(d, path, { body: `data=${base64}&ver=1.0`, headers: { 'content-type': FORM } });
      expect({ path, status: r.status, body: r.json }).toEqual({ path, status: 200, body: OK });
      sent.push({ uuid, event });
    }
    await expectStored(distinctId, sent);
  });

  it('a form whose key is its api_key (or token) field, as Django read it, and not in the JSON', async () => {
    const distinctId = uniqueId('form-key');
    const [first, second] = [randomUUID(), randomUUID()];
    const data = (uuid: string) => encodeURIComponent(JSON.stringify([{ uuid, event: 'form key', distinct_id: distinctId }]));
    const byApiKey = await send(d, '/e/', { body: `data=${data(first)}&api_key=${d.projectKey}`, headers: { 'content-type': FORM } });
    expect([byApiKey.status, byApiKey.json]).toEqual([200, OK]);
    const byToken = await send(d, '/e/', { body: `token=${d.projectKey}&data=${data(second)}`, headers: { 'content-type': FORM } });
    expect([byToken.status, byToken.json]).toEqual([200, OK]);
    const stored = await eventsOf(d, distinctId);
    expect(stored.map((e) => e.id).sort()).toEqual([first, second].sort());
    const unknown = await send(d, '/e/', {
      body: `data=${data(randomUUID())}&api_key=phc_unknown_key_0001`,
      headers: { 'content-type': FORM },
    });
    expect(unknown.status).toBe(401);
  });

  it('a form data= with urlencoded plain JSON', async () => {
    const distinctId = uniqueId('form-json');
    const uuid = randomUUID();
    const json = JSON.stringify({
      api_key: d.projectKey,
      batch: [{ uuid, event: 'form json', distinct_id: distinctId, properties: { s: 'a+b c&d=e' } }],
    });
    const r = await send(d, '/i/v0/e/', { body: `data=${encodeURIComponent(json)}`, headers: { 'content-type': FORM } });
    expect([r.status, r.json]).toEqual([200, OK]);
    const [e] = await expectStored(distinctId, [{ uuid, event: 'form json' }]);
    expect(e!.properties.s).toBe('a+b c&d=e');
  });

  it('a whole body in base64', async () => {
    const distinctId = uniqueId('whole-b64');
    const uuid = randomUUID();
    const body = b64(JSON.stringify({ api_key: d.projectKey, batch: [{ uuid, event: 'whole base64', distinct_id: distinctId }] }));
    const r = await send(d, '/batch/', { body, headers: { 'content-type': 'text/plain' } });
    expect([r.status, r.json]).toEqual([200, OK]);
    await expectStored(distinctId, [{ uuid, event: 'whole base64' }]);
  });

  it('Content-Encoding: gzip', async () => {
    const distinctId = uniqueId('gzip-header');
    const uuid = randomUUID();
    const body = gzip(JSON.stringify({ api_key: d.projectKey, batch: [{ uuid, event: 'gzip header', distinct_id: distinctId }] }));
    const r = await send(d, '/batch/', { body, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } });
    expect([r.status, r.json]).toEqual([200, OK]);
    await expectStored(distinctId, [{ uuid, event: 'gzip header' }]);
  });

  it('?compression=gzip-js with a gzip text/plain body (posthog-js style)', async () => {
    const distinctId = uniqueId('gzip-js');
    const events = [jsEvent(d.projectKey, distinctId, 'gzip-js 1'), jsEvent(d.projectKey, distinctId, 'gzip-js 2')];
    const body = gzip(JSON.stringify(events));
    const r = await send(d, `/e/?ip=0&_=${Date.now()}&ver=1.260.0&compression=gzip-js`, {
      body,
      headers: { 'content-type': 'text/plain' },
    });
    expect([r.status, r.json]).toEqual([200, OK]);
    await expectStored(distinctId, events);
  });

  it('gzip with no hint at all (detected by its magic bytes)', async () => {
    const distinctId = uniqueId('gzip-magic');
    const events = [jsEvent(d.projectKey, distinctId, 'gzip magic')];
    const body = gzip(JSON.stringify({ api_key: d.projectKey, batch: events, sent_at: new Date().toISOString() }));
    const r = await send(d, '/e/', { body, headers: { 'content-type': 'text/plain' } });
    expect([r.status, r.json]).toEqual([200, OK]);
    await expectStored(distinctId, events);
  });

  it('a wrong gzip hint on a plain base64 form falls back and is accepted', async () => {
    const distinctId = uniqueId('wrong-hint');
    const uuid = randomUUID();
    const base64 = b64(JSON.stringify({ uuid, event: 'wrong hint', distinct_id: distinctId, properties: { token: d.projectKey } }));
    const r = await send(d, `/e/?compression=gzip-js&ver=1.0`, {
      body: `data=${encodeURIComponent(base64)}`,
      headers: { 'content-type': FORM },
    });
    expect([r.status, r.json]).toEqual([200, OK]);
    await expectStored(distinctId, [{ uuid, event: 'wrong hint' }]);
  });

  it('lz64 in a form data= (urlencoded, and raw with + turned into spaces)', async () => {
    const distinctId = uniqueId('lz64');
    const first = jsEvent(d.projectKey, distinctId, 'lz64 encoded');
    const lzEncoded = LZString.compressToBase64(JSON.stringify([first]));
    const r1 = await send(d, '/e/?compression=lz64', { body: `data=${encodeURIComponent(lzEncoded)}`, headers: { 'content-type': FORM } });
    expect([r1.status, r1.json]).toEqual([200, OK]);

    let second = jsEvent(d.projectKey, distinctId, 'lz64 raw');
    let lzRaw = LZString.compressToBase64(JSON.stringify([second]));
    for (let i = 0; !lzRaw.includes('+'); i++) {
      second = jsEvent(d.projectKey, distinctId, 'lz64 raw', { nonce: i });
      lzRaw = LZString.compressToBase64(JSON.stringify([second]));
    }
    const r2 = await send(d, '/e/?compression=lz64', { body: `data=${lzRaw}`, headers: { 'content-type': FORM } });
    expect([r2.status, r2.json]).toEqual([200, OK]);
    await expectStored(distinctId, [first, second]);
  });

  it('lz64 hinted in the form itself', async () => {
    const distinctId = uniqueId('lz64-form');
    const ev = jsEvent(d.projectKey, distinctId, 'lz64 form hint');
    const lz = LZString.compressToBase64(JSON.stringify(ev));
    const r = await send(d, '/engage/', { body: `compression=lz64&data=${encodeURIComponent(lz)}`, headers: { 'content-type': FORM } });
    expect([r.status, r.json]).toEqual([200, OK]);
    await expectStored(distinctId, [ev]);
  });

  it('application/json with a charset parameter and no content type at all', async () => {
    const distinctId = uniqueId('ctype');
    const a = jsEvent(d.projectKey, distinctId, 'charset');
    const b = jsEvent(d.projectKey, distinctId, 'no content type');
    const r1 = await send(d, '/batch', { body: JSON.stringify([a]), headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect([r1.status, r1.json]).toEqual([200, OK]);
    const r2 = await send(d, '/batch', { body: Buffer.from(JSON.stringify([b])) });
    expect([r2.status, r2.json]).toEqual([200, OK]);
    await expectStored(distinctId, [a, b]);
  });

  it('a chunked request body (no Content-Length)', async () => {
    const distinctId = uniqueId('chunked');
    const events = [jsEvent(d.projectKey, distinctId, 'chunked 1'), jsEvent(d.projectKey, distinctId, 'chunked 2')];
    const bytes = gzip(JSON.stringify(events));
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes.subarray(0, 7));
        c.enqueue(bytes.subarray(7, 40));
        c.enqueue(bytes.subarray(40));
        c.close();
      },
    });
    const res = await fetch(`${d.baseUrl}/e/`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'text/plain' },
      duplex: 'half',
    } as RequestInit);
    expect([res.status, await res.json()]).toEqual([200, OK]);
    await expectStored(distinctId, events);
  });

  it('Expect: 100-continue (curl sends it for bodies over 1 KB)', async () => {
    const distinctId = uniqueId('expect');
    const ev = jsEvent(d.projectKey, distinctId, 'expect continue', { pad: 'p'.repeat(4000) });
    const body = Buffer.from(JSON.stringify({ api_key: d.projectKey, batch: [ev] }));
    const reply = await new Promise<{ status: number; text: string; continued: boolean }>((resolve, reject) => {
      let continued = false;
      const req = http.request({
        host: '127.0.0.1',
        port: d.port,
        method: 'POST',
        path: '/batch/',
        headers: { 'content-type': 'application/json', 'content-length': String(body.length), expect: '100-continue' },
      });
      req.on('continue', () => {
        continued = true;
        req.end(body);
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString(), continued }));
      });
      req.on('error', reject);
      req.flushHeaders();
    });
    expect(reply).toEqual({ status: 200, text: '{"status":1}', continued: true });
    await expectStored(distinctId, [ev]);
  });

  it('GET data= with raw base64 whose + became a space in the query', async () => {
    const distinctId = uniqueId('get-plus');
    const uuid = randomUUID();
    const { base64 } = payloadWithPlus((nonce) => ({
      uuid,
      event: 'get plus',
      distinct_id: distinctId,
      properties: { token: d.projectKey, nonce },
    }));
    const r = await send(d, `/i/v0/e/?data=${base64.replaceAll('/', '%2F').replaceAll('=', '%3D')}`);
    expect([r.status, r.json]).toEqual([200, OK]);
    await expectStored(distinctId, [{ uuid, event: 'get plus' }]);
  });

  it('beacon=1 answers 204 with an empty body and stores the event', async () => {
    const distinctId = uniqueId('beacon');
    const ev = jsEvent(d.projectKey, distinctId, '$pageleave');
    const r = await send(d, '/e/?beacon=1', { body: JSON.stringify([ev]), headers: { 'content-type': 'text/plain' } });
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    await expectStored(distinctId, [ev]);
  });
});

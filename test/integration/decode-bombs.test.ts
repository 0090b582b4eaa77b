/**
 * Decoding abuse against a real daemon (two workers): lz64 and gzip bombs on every decoder path,
 * many at once, each answered 413 in PostHog's error shape, while the daemon keeps serving and
 * its resident memory (VmRSS and RssAnon of the child process) stays within a few MB of where it
 * was. Before the decoders measured first, one 55 KB lz64 bomb raised it by ~370 MB and 16 at
 * once left ~500 MB behind; a large payload within the limits is decoded, and its memory given
 * back once the worker is done with it.
 */
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupDaemons, startDaemon, type DaemonHandle } from '../helpers/daemon.js';
import { b64, OK, postJson, send, uniqueId, type Reply } from '../helpers/http.js';
import { lz64Bomb } from '../helpers/lz64-bomb.js';

const MiB = 1024 * 1024;
const FORM = 'application/x-www-form-urlencoded';
/** How far the daemon's memory may rise while the bombs are being answered. */
const PEAK_RISE_MIB = 48;
/** How close to the baseline it must be once they are. */
const SETTLED_RISE_MIB = 32;
/** … and after a 40 MB payload was decoded and parsed (V8 keeps part of the heap it grew). */
const LARGE_SETTLED_RISE_MIB = 64;

interface Memory {
  rss: number;
  anon: number;
}

/** VmRSS and RssAnon of `pid`, in MiB. */
function memoryOf(pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kib('VmRSS') / 1024, anon: kib('RssAnon') / 1024 };
}

/** Samples `pid`'s memory every few ms while `work` runs; resolves with the highest seen. */
async function peakWhile<T>(pid: number, work: Promise<T>): Promise<{ result: T; peak: Memory }> {
  const peak = memoryOf(pid);
  const timer = setInterval(() => {
    const m = memoryOf(pid);
    peak.rss = Math.max(peak.rss, m.rss);
    peak.anon = Math.max(peak.anon, m.anon);
  }, 5);
  try {
    return { result: await work, peak };
  } finally {
    clearInterval(timer);
  }
}

/** Waits (up to `ms`) for the memory to come within `rise` MiB of `base`; returns the last reading. */
async function settled(pid: number, base: Memory, rise: number, ms: number): Promise<Memory> {
  const until = Date.now() + ms;
  let m = memoryOf(pid);
  while ((m.rss > base.rss + rise || m.anon > base.anon + rise) && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 100));
    m = memoryOf(pid);
  }
  return m;
}

afterAll(cleanupDaemons);

describe('decoding bombs (uws backend, two workers)', () => {
  let d: DaemonHandle;
  let pid: number;
  let lz: string;
  let gz: Buffer;
  let lyingGz: Buffer;

  beforeAll(async () => {
    lz = lz64Bomb(24_000).text; // 55 KB -> 288 million characters
    gz = gzipSync(Buffer.alloc(200 * MiB)); // 200 KB -> 200 MiB
    lyingGz = Buffer.from(gz);
    lyingGz.writeUInt32LE(1000, lyingGz.length - 4); // its trailer claims 1,000 bytes
    d = await startDaemon({ backend: 'uws', env: { HEDGEROW_WORKERS: '2' } });
    pid = d.child.pid as number;
    // Warm up every path the bombs take, so that the baseline includes what normal traffic costs.
    for (let i = 0; i < 20; i++) {
      const batch = { api_key: d.projectKey, batch: [{ event: 'warm-up', distinct_id: uniqueId('warm'), properties: { i } }] };
      expect((await send(d, '/batch/', { body: gzipSync(JSON.stringify(batch)), headers: { 'content-encoding': 'gzip' } })).status).toBe(
        200,
      );
      expect((await postJson(d, '/e/', batch)).status).toBe(200);
      expect((await postJson(d, '/flags/?v=2', { token: d.projectKey, distinct_id: 'warm' })).status).toBe(200);
    }
  });
  afterAll(async () => {
    expect(await d.stop()).toBe(0);
  });

  /** Every decoder a hostile body can reach, capture and /flags. */
  function bombs(): Promise<Reply>[] {
    const lzForm = `data=${encodeURIComponent(lz)}`;
    return [
      send(d, '/e/?compression=lz64', { body: lzForm, headers: { 'content-type': FORM } }),
      send(d, '/engage/', { body: `compression=lz64&${lzForm}`, headers: { 'content-type': FORM } }),
      send(d, '/batch/?compression=lz-string', { body: lz, headers: { 'content-type': 'text/plain' } }),
      send(d, '/i/v0/e/', { body: lz, headers: { 'content-type': 'text/plain', 'content-encoding': 'lz64' } }),
      send(d, '/flags/?v=2&compression=lz64', { body: lzForm, headers: { 'content-type': FORM } }),
      send(d, '/batch/', { body: gz, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } }),
      send(d, '/e/', { body: gz, headers: { 'content-type': 'text/plain' } }), // posthog-js: gzip by its magic bytes
      send(d, '/i/v0/e/?compression=gzip-js', { body: lyingGz, headers: { 'content-type': 'text/plain' } }),
      send(d, '/capture/?compression=base64', { body: `data=${encodeURIComponent(b64(gz))}`, headers: { 'content-type': FORM } }),
      send(d, '/flags/?v=2', { body: gz, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } }),
    ];
  }

  it('answers every bomb 413 in PostHog shape, keeps serving, and its memory stays within a few MB', async () => {
    const base = memoryOf(pid);
    const { result: replies, peak } = await peakWhile(pid, Promise.all([...bombs(), ...bombs(), ...bombs(), ...bombs()]));
    for (const r of replies) {
      expect({ status: r.status, type: r.headers.get('content-type') }).toEqual({ status: 413, type: 'application/json' });
      expect(r.json).toEqual({ type: 'validation_error', code: 'payload_too_large', detail: expect.any(String), attr: null });
    }

    const after = await settled(pid, base, SETTLED_RISE_MIB, 5_000);
    const report = `baseline ${JSON.stringify(base)}, peak ${JSON.stringify(peak)}, after ${JSON.stringify(after)} (MiB)`;
    expect(peak.rss - base.rss, report).toBeLessThanOrEqual(PEAK_RISE_MIB);
    expect(peak.anon - base.anon, report).toBeLessThanOrEqual(PEAK_RISE_MIB);
    expect(after.rss - base.rss, report).toBeLessThanOrEqual(SETTLED_RISE_MIB);
    expect(after.anon - base.anon, report).toBeLessThanOrEqual(SETTLED_RISE_MIB);

    expect((await send(d, '/_health')).status).toBe(200);
    const r = await postJson(d, '/batch/', { api_key: d.projectKey, batch: [{ event: 'after bombs', distinct_id: uniqueId('after') }] });
    expect([r.status, r.json]).toEqual([200, OK]);
  });

  it('gives back what a large payload within the limits cost once it is decoded', async () => {
    // ~40 MB of events, gzipped about 20:1 (within the ratio): decoded and parsed, then refused
    // for want of a key, so that only the decoding and parsing stay behind in the worker.
    const parts: string[] = [];
    let length = 0;
    for (let i = 0; length < 40 * MiB; i++) {
      const e = `{"event":"e${i % 97}","distinct_id":"u${(i * 7919) % 100_003}","properties":{"n":${i}}},`;
      parts.push(e);
      length += e.length;
    }
    const body = gzipSync(`[${parts.join('').slice(0, -1)}]`, { level: 1 });
    expect(body.length * 100).toBeGreaterThan(40 * MiB);

    const base = memoryOf(pid);
    const { result: r, peak } = await peakWhile(pid, send(d, '/batch/', { body, headers: { 'content-encoding': 'gzip' } }));
    expect([r.status, (r.json as { code: string }).code]).toEqual([400, 'invalid_project']);
    const after = await settled(pid, base, LARGE_SETTLED_RISE_MIB, 3_000);
    const report = `baseline ${JSON.stringify(base)}, peak ${JSON.stringify(peak)}, after ${JSON.stringify(after)} (MiB)`;
    expect(peak.anon - base.anon, report).toBeGreaterThan(100); // it was decoded and parsed
    // A collection right after the task gives most of it back; V8 keeps some of the heap it grew.
    expect(after.anon - base.anon, report).toBeLessThanOrEqual(LARGE_SETTLED_RISE_MIB);
    expect(peak.anon - after.anon, report).toBeGreaterThan((peak.anon - base.anon) / 2);
  });
});

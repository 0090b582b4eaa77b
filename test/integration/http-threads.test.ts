/**
 * uWS in two front ends, the main thread and a front-end thread, on a port given by number (as
 * `npm start` runs it; tests elsewhere use port 0, which the main thread serves alone): `/flags`
 * and the flag definitions are answered in the front ends themselves, alike whichever one a
 * connection lands on, and counted in `/metrics`; every other route is forwarded to, or run on,
 * the daemon's thread, capture's client address included.
 */
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/api.js';
import { cleanupDaemons, startDaemon, type DaemonHandle } from '../helpers/daemon.js';
import { freePort } from '../helpers/free-port.js';
import { type ConnectionAnswer, eventsOf, metricSample, OK, onNewConnection, postJson, send, uniqueId } from '../helpers/http.js';

afterAll(cleanupDaemons);

const postOnNewConnection = (port: number, path: string, body: unknown): Promise<ConnectionAnswer> =>
  onNewConnection(port, 'POST', path, { 'content-type': 'application/json' }, JSON.stringify(body));

const getOnNewConnection = (port: number, path: string, headers: Record<string, string>): Promise<ConnectionAnswer> =>
  onNewConnection(port, 'GET', path, headers);

describe('uWS front-end threads on a port given by number', () => {
  let d: DaemonHandle;

  beforeAll(async () => {
    d = await startDaemon({ backend: 'uws', env: { HEDGEROW_PORT: String(await freePort()), HEDGEROW_HTTP_THREADS: '2' } });
  });

  it('serves from two threads, as its startup log says: the main thread and http-1', async () => {
    const listening = d.records().find((r) => r.msg?.startsWith('listening on'));
    expect(listening).toMatchObject({ http_backend: 'uws', http_threads: 2, port: d.port });
    expect(listening?.msg).toMatch(/uWebSockets\.js \(native\) backend in 2 threads$/);
    const threads = [...(await send(d, '/metrics')).text.matchAll(/^hedgerow_thread_cpu_seconds_total\{thread="(http-\d+)"/gm)];
    expect(threads.map((m) => m[1])).toEqual(['http-1']);
  });

  it('answers /flags in the threads, alike on every connection, and counts each answer', async () => {
    const admin = apiClient(d, d.personalKey);
    const created = await admin.post('/api/projects/1/feature_flags/', {
      key: 'threads-half',
      filters: { groups: [{ properties: [], rollout_percentage: 50 }] },
    });
    expect(created.status, created.text).toBe(201);
    const before = metricSample((await send(d, '/metrics')).text, 'hedgerow_http_requests_total', {
      route: 'flags',
      method: 'POST',
      status: '200',
    });

    const ids = Array.from({ length: 40 }, (_, i) => `threads-user-${i}`);
    const answers = await Promise.all(
      ids.map((id) => postOnNewConnection(d.port, '/flags/?v=2', { token: d.projectKey, distinct_id: id })),
    );
    const enabled = answers.map((a) => {
      expect(a.status, a.text).toBe(200);
      const body = JSON.parse(a.text) as { flags: Record<string, { enabled: boolean }>; errorsWhileComputingFlags: boolean };
      expect(body.errorsWhileComputingFlags).toBe(false);
      return body.flags['threads-half']?.enabled;
    });
    // The same ids again, in the other order: each gets its answer back wherever it lands.
    const again = await Promise.all(
      [...ids].reverse().map((id) => postOnNewConnection(d.port, '/flags/?v=2', { token: d.projectKey, distinct_id: id })),
    );
    expect(
      again.map((a) => (JSON.parse(a.text) as { flags: Record<string, { enabled: boolean }> }).flags['threads-half']?.enabled),
    ).toEqual([...enabled].reverse());
    expect(enabled).toContain(true);
    expect(enabled).toContain(false);

    const refused = await postOnNewConnection(d.port, '/flags/?v=2', { token: 'phc_notaknownkey123', distinct_id: 'x' });
    expect(refused.status).toBe(401);

    const text = (await send(d, '/metrics')).text;
    const labels = { route: 'flags', method: 'POST' };
    expect(metricSample(text, 'hedgerow_http_requests_total', { ...labels, status: '200' })).toBe((before ?? 0) + 80);
    expect(metricSample(text, 'hedgerow_http_requests_total', { ...labels, status: '401' })).toBe(1);
  });

  it('hands a /flags body that decodes to more than the threads’ size cap to the pool, which answers it', async () => {
    // 3 MB of person properties in a few kilobytes of gzip: too much to decode in a thread that
    // serves other connections, well within the daemon's limit.
    const body = gzipSync(
      JSON.stringify({ token: d.projectKey, distinct_id: 'big-body', person_properties: { blob: 'x'.repeat(3_000_000) } }),
    );
    expect(body.length).toBeLessThan(64 * 1024);
    const answers = await Promise.all(
      [0, 1, 2, 3].map(() =>
        onNewConnection(d.port, 'POST', '/flags/?v=2', { 'content-encoding': 'gzip', 'content-type': 'application/json' }, body),
      ),
    );
    for (const a of answers) {
      expect(a.status, a.text.slice(0, 200)).toBe(200);
      expect(JSON.parse(a.text)).toMatchObject({ errorsWhileComputingFlags: false, flags: { 'threads-half': { key: 'threads-half' } } });
    }
  });

  it('serves flag definitions in the threads: the ETag holds across threads, and a match is a 304', async () => {
    const polls = await Promise.all(
      Array.from({ length: 10 }, () =>
        getOnNewConnection(d.port, `/flags/definitions?token=${d.projectKey}&send_cohorts`, { authorization: `Bearer ${d.personalKey}` }),
      ),
    );
    const etags = new Set(polls.map((p) => p.headers.etag));
    expect(polls.map((p) => p.status)).toEqual(Array(10).fill(200));
    expect(etags.size).toBe(1);
    const [etag] = [...etags] as [string];
    expect(JSON.parse(polls[0]!.text)).toMatchObject({ flags: [expect.objectContaining({ key: 'threads-half' })] });
    const again = await Promise.all(
      Array.from({ length: 10 }, () =>
        getOnNewConnection(d.port, `/flags/definitions?token=${d.projectKey}&send_cohorts`, {
          authorization: `Bearer ${d.personalKey}`,
          'if-none-match': etag,
        }),
      ),
    );
    expect(again.map((p) => [p.status, p.text])).toEqual(Array(10).fill([304, '']));
    const refused = await getOnNewConnection(d.port, `/flags/definitions?token=${d.projectKey}`, {
      authorization: 'Bearer phx_notaknownkey1234567',
    });
    expect(refused.status).toBe(401);
    const text = (await send(d, '/metrics')).text;
    const labels = { route: 'flags:definitions', method: 'GET' };
    expect(metricSample(text, 'hedgerow_http_requests_total', { ...labels, status: '200' })).toBe(10);
    expect(metricSample(text, 'hedgerow_http_requests_total', { ...labels, status: '304' })).toBe(10);
    expect(metricSample(text, 'hedgerow_http_requests_total', { ...labels, status: '401' })).toBe(1);
  });

  it('forwards capture to the daemon, with the client address', async () => {
    const id = uniqueId('threads');
    const r = await postJson(d, '/capture/?ip=1', { api_key: d.projectKey, event: 'threaded', distinct_id: id });
    expect([r.status, r.json]).toEqual([200, OK]);
    const [event] = await eventsOf(d, id);
    expect(event).toMatchObject({ event: 'threaded', distinct_id: id });
    expect(event?.properties['$ip']).toBe('127.0.0.1');
  });
});

/**
 * `/_health`, `/_readyz`, `/metrics` (Prometheus text) with exact counts after known traffic, and
 * the answers for unknown paths and wrong methods. Runs against both HTTP backends.
 */

import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { BACKENDS, cleanupDaemons, useDaemon } from '../helpers/daemon.js';
import { errorBody, metricSample as sample, OK, postJson, send, uniqueId } from '../helpers/http.js';

afterAll(cleanupDaemons);

describe.each(BACKENDS)('health, readiness and metrics (%s backend)', (backend) => {
  const d = useDaemon({ backend });

  async function metrics(): Promise<string> {
    const r = await send(d, '/metrics');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return r.text;
  }

  it('/_health and /_readyz answer 200 once ready', async () => {
    const health = await send(d, '/_health');
    expect([health.status, health.json]).toEqual([200, { status: 'ok' }]);
    const ready = await send(d, '/_readyz');
    expect([ready.status, ready.json]).toEqual([200, { status: 'ready' }]);
    const headHealth = await send(d, '/_health', { method: 'HEAD' });
    expect([headHealth.status, headHealth.text]).toEqual([200, '']);
  });

  it('counts accepted and dropped events, batch sizes, commits and requests exactly', async () => {
    const before = await metrics();
    expect(sample(before, 'hedgerow_events_accepted_total')).toBe(0);
    for (const reason of ['no_event_name', 'no_distinct_id', 'performance_event']) {
      expect(sample(before, 'hedgerow_events_dropped_total', { reason })).toBe(0);
    }

    const id = uniqueId('metrics');
    const ev = (name: string) => ({ event: name, distinct_id: id });
    const bodies: Array<[string, unknown]> = [
      ['/batch/', { api_key: d.projectKey, batch: [ev('a'), ev('b'), ev('c')] }],
      ['/batch/', { api_key: d.projectKey, batch: [ev('d'), { distinct_id: id }, { event: 'no id' }, ev('e')] }],
      [
        '/e/',
        [
          { ...ev('f'), token: d.projectKey },
          { ...ev('g'), token: d.projectKey },
        ],
      ],
      ['/batch/', { api_key: d.projectKey, batch: [ev('$performance_event'), ev('h')] }],
    ];
    // One at a time: each request is then its own worker task and its own commit.
    for (const [path, body] of bodies) {
      const r = await postJson(d, path, body);
      expect([r.status, r.json]).toEqual([200, OK]);
    }
    const refused = await postJson(d, '/batch/', { api_key: 'phc_notaknownkey123', batch: [ev('x')] });
    expect(refused.status).toBe(401);

    const text = await metrics();
    expect(sample(text, 'hedgerow_events_accepted_total')).toBe(8);
    expect(sample(text, 'hedgerow_events_dropped_total', { reason: 'no_event_name' })).toBe(1);
    expect(sample(text, 'hedgerow_events_dropped_total', { reason: 'no_distinct_id' })).toBe(1);
    expect(sample(text, 'hedgerow_events_dropped_total', { reason: 'performance_event' })).toBe(1);
    expect(sample(text, 'hedgerow_batch_size_events_count')).toBe(4);
    expect(sample(text, 'hedgerow_batch_size_events_sum')).toBe(3 + 4 + 2 + 1);
    expect(sample(text, 'hedgerow_batch_size_events_bucket', { le: '2' })).toBe(2);
    expect(sample(text, 'hedgerow_commit_latency_seconds_count')).toBe(4);
    expect(sample(text, 'hedgerow_commit_latency_seconds_sum')).toBeGreaterThan(0);
    expect(sample(text, 'hedgerow_pool_queue_depth')).toBe(0);
    expect(sample(text, 'hedgerow_http_requests_total', { route: 'capture:/batch', method: 'POST', status: '200' })).toBe(3);
    expect(sample(text, 'hedgerow_http_requests_total', { route: 'capture:/e', method: 'POST', status: '200' })).toBe(1);
    expect(sample(text, 'hedgerow_http_requests_total', { route: 'capture:/batch', method: 'POST', status: '401' })).toBe(1);
    expect(text).toMatch(/^# TYPE hedgerow_batch_size_events histogram$/m);
    expect(text).toMatch(/^# TYPE hedgerow_commit_latency_seconds histogram$/m);
    expect(text).toMatch(/^# TYPE hedgerow_pool_queue_depth gauge$/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
  });

  it("names each of the daemon's threads by role and OS thread id, with its CPU time", async () => {
    /** thread → tid of every hedgerow_thread_cpu_seconds_total sample, and the sum of all. */
    const threads = (text: string) => {
      const out = new Map<string, string>();
      for (const m of text.matchAll(/^hedgerow_thread_cpu_seconds_total\{thread="([^"]+)",tid="(\d*)"\} (\S+)$/gm)) {
        expect(Number(m[3])).toBeGreaterThanOrEqual(0);
        out.set(m[1]!, m[2]!);
      }
      return out;
    };
    // Threads announce themselves as they start: wait for the person processor's.
    let seen = new Map<string, string>();
    for (let i = 0; i < 50 && !seen.has('person-processor-1'); i++) {
      seen = threads(await metrics());
      if (!seen.has('person-processor-1')) await new Promise((r) => setTimeout(r, 100));
    }
    const names = [...seen.keys()];
    for (const name of names) expect(name).toMatch(/^(main|http-\d+|pool-\d+|person-processor-1|other)$/);
    expect(names).toEqual(expect.arrayContaining(['main', 'pool-1', 'person-processor-1', 'other']));
    // On port 0 the uWS backend serves from the main thread alone (test/integration/http-threads.test.ts has the threads).
    expect(names.some((n) => n.startsWith('http-'))).toBe(false);
    // Every named thread is a thread of the daemon, each its own; `other` has no id.
    const tids = [...seen].filter(([n]) => n !== 'other').map(([, t]) => Number(t));
    expect(new Set(tids).size).toBe(tids.length);
    for (const tid of tids) expect(existsSync(`/proc/${d.child.pid}/task/${tid}`)).toBe(true);
    expect(seen.get('main')).toBe(String(d.child.pid));
    // The startup log names them too, for `top -H`, which shows every thread as "node".
    const logged = d.records().find((r) => r.thread === 'person-processor-1');
    expect(logged?.tid).toBe(Number(seen.get('person-processor-1')));
    expect(seen.get('other')).toBe('');
    expect(await metrics()).toMatch(/^# TYPE hedgerow_thread_cpu_seconds_total counter$/m);
  });

  it("gives the V8 heap of each of the daemon's named threads", async () => {
    /** thread → bytes of every hedgerow_thread_heap_bytes sample. */
    const heaps = (text: string) =>
      new Map([...text.matchAll(/^hedgerow_thread_heap_bytes\{thread="([^"]+)"\} (\S+)$/gm)].map((m) => [m[1]!, Number(m[2])]));
    // Each thread reports as it starts (and every 10 s after).
    let seen = new Map<string, number>();
    for (let i = 0; i < 50 && !seen.has('person-processor-1'); i++) {
      seen = heaps(await metrics());
      if (!seen.has('person-processor-1')) await new Promise((r) => setTimeout(r, 100));
    }
    expect([...seen.keys()]).toEqual(expect.arrayContaining(['main', 'person-processor-1']));
    for (const [thread, bytes] of seen) {
      expect(thread).toMatch(/^(main|http-\d+|pool-\d+|person-processor-1)$/);
      // An isolate holds at least a few MB once its code is loaded, and far less than the process.
      expect(bytes, thread).toBeGreaterThan(1024 * 1024);
      expect(bytes, thread).toBeLessThan(1024 * 1024 * 1024);
    }
    expect(await metrics()).toMatch(/^# TYPE hedgerow_thread_heap_bytes gauge$/m);
  });

  it("observes each answered request's duration by route and method, the front-end threads' answers included", async () => {
    const duration = (text: string, route: string, method: string, suffix: 'count' | 'sum') =>
      sample(text, `hedgerow_http_request_duration_seconds_${suffix}`, { route, method }) ?? 0;
    const answered = (text: string, route: string, method: string) =>
      [200, 204, 400, 401, 404, 413].reduce(
        (n, status) => n + (sample(text, 'hedgerow_http_requests_total', { route, method, status: String(status) }) ?? 0),
        0,
      );
    const before = await metrics();
    const started = performance.now();
    // /flags: answered in a front-end thread on uWS, through the pool on node:http.
    for (let i = 0; i < 3; i++) {
      const r = await postJson(d, '/flags/?v=2', { token: d.projectKey, distinct_id: uniqueId('duration') });
      expect(r.status).toBe(200);
    }
    expect((await postJson(d, '/e/', { token: d.projectKey, event: 'e', distinct_id: 'duration' })).status).toBe(200);
    expect((await postJson(d, '/flags/?v=2', { token: 'phc_notaknownkey123', distinct_id: 'x' })).status).toBe(401);
    const elapsed = (performance.now() - started) / 1000;
    const text = await metrics();
    expect(text).toMatch(/^# TYPE hedgerow_http_request_duration_seconds histogram$/m);
    for (const [route, method, n] of [
      ['flags', 'POST', 4],
      ['capture:/e', 'POST', 1],
    ] as const) {
      const count = duration(text, route, method, 'count') - duration(before, route, method, 'count');
      expect({ route, count }).toEqual({ route, count: n });
      // Every answer counted in the requests total is observed once.
      expect(duration(text, route, method, 'count')).toBe(answered(text, route, method));
      const sum = duration(text, route, method, 'sum') - duration(before, route, method, 'sum');
      expect(sum).toBeGreaterThan(0);
      expect(sum).toBeLessThan(elapsed);
      expect(sample(text, 'hedgerow_http_request_duration_seconds_bucket', { route, method, le: '+Inf' })).toBe(
        duration(text, route, method, 'count'),
      );
    }
  });

  it('answers an unknown path with a 404 JSON body', async () => {
    for (const [method, path] of [
      ['GET', '/nope'],
      ['POST', '/api/nothing/here/'],
      ['GET', '/batchx/'],
    ] as const) {
      const r = await send(d, path, { method, ...(method === 'POST' ? { body: '{}' } : {}) });
      expect({ path, status: r.status, body: r.json }).toEqual({
        path,
        status: 404,
        body: errorBody('invalid_request', 'not_found', 'Not found.'),
      });
      expect(r.headers.get('content-type')).toBe('application/json');
    }
    const text = await metrics();
    expect(sample(text, 'hedgerow_http_requests_total', { route: 'unmatched', method: 'GET', status: '404' })).toBe(2);
  });

  it('answers DELETE /batch/ and PUT /e with 405 and an Allow header', async () => {
    for (const [method, path] of [
      ['DELETE', '/batch/'],
      ['PUT', '/e'],
    ] as const) {
      const r = await send(d, path, { method });
      expect({ status: r.status, body: r.json }).toEqual({
        status: 405,
        body: errorBody('invalid_request', 'method_not_allowed', `Method "${method}" not allowed.`),
      });
      expect(r.headers.get('allow')).toBe('GET, POST, OPTIONS');
    }
    const post = await send(d, '/_health', { method: 'POST', body: 'x' });
    expect([post.status, post.json]).toEqual([405, errorBody('invalid_request', 'method_not_allowed', 'Method "POST" not allowed.')]);
  });
});

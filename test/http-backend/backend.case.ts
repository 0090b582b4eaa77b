/**
 * The behaviour every HttpBackend must show: one interface, several implementations, one shared
 * suite. test/unit/http-backends.test.ts runs it once per implementation; a new backend passes this
 * suite before it is used.
 */

import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BackendOptions, Handler, HttpBackend, HttpResponse } from '../../src/http/types.js';
import { abortMidBody, json, request, until } from './client.js';

export type BackendFactory = (opts: BackendOptions) => HttpBackend;

const CAP = 2 * 1024 * 1024;

const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

/**
 * `n` UTF-16 code units of text with one-, two-, three- and four-byte UTF-8 characters and a lone
 * surrogate (sent as U+FFFD), the seed repeated through it so that answers are told apart.
 */
function sampleText(n: number, seed: string): string {
  const unit = `${seed}|aé日😀\uD800`;
  return unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
}

/** Echo handler: each path shows one behaviour; the default echoes what the backend read. */
const echoHandler: Handler = async (req): Promise<HttpResponse> => {
  const params = new URLSearchParams(req.query);
  switch (req.path) {
    case '/raw':
      return { status: 200, headers: { 'content-type': 'application/octet-stream' }, body: req.body };
    case '/slow':
      await sleep(Number(params.get('ms') ?? '50'));
      return { status: 200, body: 'slept' };
    case '/status':
      return {
        status: Number(params.get('code')),
        headers: { 'x-reply': 'yes', 'content-length': '999' },
        body: 'custom',
      };
    case '/text':
      return {
        status: 200,
        headers: { 'content-type': 'text/plain; charset=utf-8' },
        body: sampleText(Number(params.get('n')), params.get('seed') ?? ''),
      };
    case '/throw':
      throw new Error('boom');
    case '/bad-header':
      return { status: 200, headers: { 'x-bad': 'a\r\nx-injected: 1' }, body: 'no' };
    default:
      return {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          method: req.method,
          path: req.path,
          query: req.query,
          ip: req.ip,
          test: req.header('x-test'),
          multi: req.header('x-multi'),
          missing: req.header('x-missing'),
          id: req.header('x-id'),
          length: req.body.length,
          sha: sha(req.body),
          ownBuffer: req.body.byteOffset === 0 && req.body.buffer.byteLength === req.body.length,
        }),
      };
  }
};

const syncThrow: Handler = (req) => {
  if (req.path === '/sync-throw') throw new Error('sync boom');
  return echoHandler(req);
};

export function options(handler: Handler = syncThrow): BackendOptions {
  return {
    handler,
    maxBodyBytes: CAP,
    bodyIdleTimeoutMs: 10_000,
    tooLarge: (req): HttpResponse => ({ status: 413, body: `too large: ${req.method} ${req.path}` }),
    onError: (err): HttpResponse => ({ status: 500, body: `onError: ${err instanceof Error ? err.message : String(err)}` }),
  };
}

/** `name` is the backend's own name; `variant` tells apart two setups of one backend in titles. */
export function runBackendSuite(name: string, factory: BackendFactory, variant = name): void {
  describe(`HTTP backend: ${variant}`, () => {
    let backend: HttpBackend;
    let port: number;

    beforeAll(async () => {
      backend = factory(options());
      port = await backend.listen('127.0.0.1', 0);
    });
    afterAll(() => backend.close());

    it('names itself and binds a real port for port 0', () => {
      expect(backend.name).toBe(name);
      expect(port).toBeGreaterThan(0);
    });

    it('answers GET with method, path, empty query, ip, headers and an empty body', async () => {
      const r = await json(port, { path: '/echo', headers: { 'x-test': 'hello' } });
      expect(r).toMatchObject({ status: 200, method: 'GET', path: '/echo', query: '', ip: '127.0.0.1' });
      expect(r).toMatchObject({ test: 'hello', missing: '', length: 0 });
    });

    it.each(['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])('answers %s with its body', async (method) => {
      const r = await json(port, { method, path: '/m', body: Buffer.from('abc') });
      expect(r).toMatchObject({ status: 200, method, path: '/m', length: 3 });
    });

    it('answers HEAD with the headers only', async () => {
      const r = await request(port, { method: 'HEAD', path: '/status?code=200' });
      expect(r.status).toBe(200);
      expect(r.body.length).toBe(0);
      expect(r.headers['x-reply']).toBe('yes');
    });

    it('passes the raw path and query', async () => {
      const r = await json(port, { path: '/p/a%20b?x=1&y=%20z&x=2' });
      expect(r).toMatchObject({ path: '/p/a%20b', query: 'x=1&y=%20z&x=2' });
      expect(await json(port, { path: '/q?' })).toMatchObject({ path: '/q', query: '' });
    });

    it('joins repeated headers and takes the first X-Forwarded-For hop', async () => {
      const r = await json(port, { headers: { 'x-multi': ['a', 'b'], 'x-forwarded-for': ' 203.0.113.7 , 10.0.0.1' } });
      expect(r).toMatchObject({ multi: 'a, b', ip: '203.0.113.7' });
    });

    it("sends the handler's status and headers, computing Content-Length itself", async () => {
      const r = await request(port, { path: '/status?code=418' });
      expect(r.status).toBe(418);
      expect(r.headers['x-reply']).toBe('yes');
      expect(r.headers['content-length']).toBe('6');
      expect(r.body.toString()).toBe('custom');
    });

    it('sends text answers as UTF-8, exactly, short and long', async () => {
      // 349,525 code units: the longest text the uWS backend encodes into its reused buffer.
      for (const n of [0, 9, 13_000, 349_525, 349_526, 600_000]) {
        const r = await request(port, { path: `/text?n=${n}&seed=s${n}` });
        const expected = Buffer.from(sampleText(n, `s${n}`), 'utf8');
        expect(r.headers['content-length'], `n=${n}`).toBe(String(expected.length));
        expect(r.body.equals(expected), `n=${n}`).toBe(true);
      }
    });

    it('keeps a large text answer intact while a slow reader holds it and other answers are sent', async () => {
      const n = 340_000; // ~1 MB of UTF-8: more than the kernel takes for a reader that does not read
      const socket = net.connect(port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.pause();
      socket.write(`GET /text?n=${n}&seed=slow HTTP/1.1\r\nhost: x\r\n\r\n`);
      await sleep(100);
      const others = await Promise.all(Array.from({ length: 20 }, (_, i) => request(port, { path: `/text?n=${n}&seed=other-${i}` })));
      others.forEach((r, i) => expect(r.body.equals(Buffer.from(sampleText(n, `other-${i}`), 'utf8'))).toBe(true));
      const expected = Buffer.from(sampleText(n, 'slow'), 'utf8');
      const received: Buffer[] = [];
      let total = 0;
      await new Promise<void>((resolve, reject) => {
        socket.on('data', (c: Buffer) => {
          received.push(c);
          total += c.length;
          const head = Buffer.concat(received).indexOf('\r\n\r\n');
          if (head >= 0 && total >= head + 4 + expected.length) resolve();
        });
        socket.on('error', reject);
        socket.resume();
      });
      socket.destroy();
      const all = Buffer.concat(received);
      const bodyStart = all.indexOf('\r\n\r\n') + 4;
      expect(all.subarray(0, bodyStart).toString('latin1')).toMatch(new RegExp(`content-length: ${expected.length}\\r\\n`, 'i'));
      expect(all.subarray(bodyStart).equals(expected)).toBe(true);
    });

    it('keeps a random 1 MiB binary body intact, in an exactly sized buffer', async () => {
      const body = randomBytes(1024 * 1024);
      const raw = await request(port, { method: 'POST', path: '/raw', body });
      expect(raw.status).toBe(200);
      expect(raw.body.equals(body)).toBe(true);
      const r = await json(port, { method: 'POST', body });
      expect(r).toMatchObject({ length: body.length, sha: sha(body), ownBuffer: true });
    });

    it('reads a chunked body (no Content-Length)', async () => {
      const parts = [randomBytes(1000), randomBytes(70_000), randomBytes(3)];
      const r = await json(port, { method: 'POST', body: parts });
      expect(r).toMatchObject({ status: 200, length: 71_003, sha: sha(Buffer.concat(parts)), ownBuffer: true });
    });

    it('accepts a body exactly at the cap', async () => {
      const r = await json(port, { method: 'POST', body: Buffer.alloc(CAP, 1) });
      expect(r).toMatchObject({ status: 200, length: CAP });
    });

    it('answers tooLarge over the cap and keeps the connection usable', async () => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const first = await request(port, { agent, method: 'POST', path: '/big', body: Buffer.alloc(CAP + 1) });
        expect(first.status).toBe(413);
        expect(first.body.toString()).toBe('too large: POST /big');
        const chunked = await request(port, { agent, method: 'POST', path: '/big', body: [Buffer.alloc(CAP), Buffer.alloc(9)] });
        expect(chunked.status).toBe(413);
        const next = await request(port, { agent, path: '/after' });
        expect(next.status).toBe(200);
        expect(next.reused).toBe(true);
      } finally {
        agent.destroy();
      }
    });

    it('past twice the cap answers or drops the connection, then serves the next request', async () => {
      for (const body of [Buffer.alloc(CAP * 2 + 1), [Buffer.alloc(CAP), Buffer.alloc(CAP), Buffer.alloc(CAP)]]) {
        const outcome = await request(port, { method: 'POST', path: '/huge', body }).then(
          (r) => r.status,
          (err: NodeJS.ErrnoException) => err.code,
        );
        expect([413, 'ECONNRESET', 'EPIPE']).toContain(outcome);
      }
      expect((await request(port, { path: '/after' })).status).toBe(200);
      expect(await until(() => backend.inFlight === 0)).toBe(true);
    });

    it('survives a client that aborts mid-body', async () => {
      await abortMidBody(port, 1_000_000, 10_000);
      await abortMidBody(port, CAP * 2, CAP + 100); // aborted while discarding
      expect(await until(() => backend.inFlight === 0)).toBe(true);
      expect((await request(port, { path: '/after' })).status).toBe(200);
    });

    it('survives a client that leaves while the handler runs', async () => {
      const ac = new AbortController();
      const pending = request(port, { path: '/slow?ms=150', signal: ac.signal }).catch((e: Error) => e.name);
      expect(await until(() => backend.inFlight === 1)).toBe(true);
      ac.abort();
      expect(await pending).toBe('AbortError');
      expect(await until(() => backend.inFlight === 0)).toBe(true);
      await sleep(200); // the handler finishes after the abort and must not write
      expect((await request(port, { path: '/after' })).status).toBe(200);
    });

    it('serves 200 concurrent keep-alive requests (fetch)', async () => {
      const ids = Array.from({ length: 200 }, (_, i) => String(i));
      const replies = await Promise.all(
        ids.map(async (id) => {
          const res = await fetch(`http://127.0.0.1:${port}/c?i=${id}`, { method: 'POST', headers: { 'x-id': id }, body: `body-${id}` });
          return (await res.json()) as { id: string; query: string; length: number };
        }),
      );
      replies.forEach((r, i) => expect(r).toMatchObject({ id: String(i), query: `i=${i}`, length: 5 + String(i).length }));
    });

    it('reuses keep-alive sockets for sequential requests', async () => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const rs = [];
        for (let i = 0; i < 5; i++) rs.push(await request(port, { agent, method: 'POST', body: Buffer.from('x') }));
        expect(rs.map((r) => r.reused)).toEqual([false, true, true, true, true]);
      } finally {
        agent.destroy();
      }
    });

    it('awaits an async handler', async () => {
      const r = await request(port, { path: '/slow?ms=30' });
      expect(r.status).toBe(200);
      expect(r.body.toString()).toBe('slept');
    });

    it('maps handler throws and rejections and malformed answers through onError', async () => {
      for (const [path, text] of [
        ['/sync-throw', 'onError: sync boom'],
        ['/throw', 'onError: boom'],
      ] as const) {
        const r = await request(port, { path });
        expect(r.status).toBe(500);
        expect(r.body.toString()).toBe(text);
      }
      const bad = await request(port, { path: '/bad-header' });
      expect(bad.status).toBe(500);
      expect(bad.headers['x-injected']).toBeUndefined();
    });
  });

  describe(`HTTP backend lifecycle: ${variant}`, () => {
    it('stopAccepting refuses new connections while drained() waits for an in-flight request', async () => {
      const b = factory(options());
      const p = await b.listen('127.0.0.1', 0);
      try {
        const slow = request(p, { path: '/slow?ms=300' });
        expect(await until(() => b.inFlight === 1)).toBe(true);
        await b.stopAccepting();
        await expect(request(p, { path: '/new' })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
        expect(await b.drained(20)).toBe(false);
        expect(await b.drained(3000)).toBe(true);
        const r = await slow;
        expect(r.status).toBe(200);
        expect(r.headers['connection']).toBe('close');
        expect(b.inFlight).toBe(0);
      } finally {
        void b.close();
      }
    });

    it('after stopAccepting, answers a request on a kept-alive connection without running it, and closes', async () => {
      const paths: string[] = [];
      const b = factory(
        options((req) => {
          paths.push(req.path);
          return { status: 200, body: 'ran' };
        }),
      );
      const p = await b.listen('127.0.0.1', 0);
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        expect((await request(p, { path: '/first', agent })).status).toBe(200);
        await b.stopAccepting();
        // Kept alive, the connection could bring a request after the backend reported itself
        // drained; run, its work could outlive the daemon's close.
        const late = await request(p, { path: '/late', method: 'POST', body: Buffer.from('{}'), agent }).then(
          (r) => ({ status: r.status, connection: r.headers.connection, body: r.body.toString() }),
          (e: NodeJS.ErrnoException) => e.code,
        );
        expect(paths).toEqual(['/first']);
        // node:http closes idle connections itself on close(): the request may find none.
        if (typeof late !== 'string' || name === 'uws') {
          expect(late).toEqual({
            status: 503,
            connection: 'close',
            body: '{"type":"server_error","code":"not_ready","detail":"Hedgerow is starting or shutting down; retry shortly.","attr":null}',
          });
        }
        expect(b.inFlight).toBe(0);
      } finally {
        agent.destroy();
        void b.close();
      }
    });

    it('close() ends in-flight requests', async () => {
      const b = factory(options());
      const p = await b.listen('127.0.0.1', 0);
      const slow = request(p, { path: '/slow?ms=300' }).then(
        (r) => r.status,
        (e: NodeJS.ErrnoException) => e.code,
      );
      expect(await until(() => b.inFlight === 1)).toBe(true);
      void b.close();
      expect(await slow).toBe('ECONNRESET');
      expect(await until(() => b.inFlight === 0)).toBe(true);
      await sleep(350); // the handler finishes after close and must not write
    });

    // Needs IPv6 on loopback (this machine and CI have it): a dual-stack listener is what
    // `--host ::` gives operators, so its peer formatting is checked rather than skipped.
    it('shows IPv4 peers of a dual-stack socket as IPv4 and IPv6 peers in short form', async () => {
      const b = factory(options());
      try {
        const p = await b.listen('::', 0);
        expect(await json(p, { host: '127.0.0.1' })).toMatchObject({ ip: '127.0.0.1' });
        expect(await json(p, { host: '::1' })).toMatchObject({ ip: '::1' });
      } finally {
        void b.close();
      }
    });

    it('rejects listen on a port in use', async () => {
      const a = factory(options());
      const b = factory(options());
      try {
        const p = await a.listen('127.0.0.1', 0);
        await expect(b.listen('127.0.0.1', p)).rejects.toThrow();
      } finally {
        void a.close();
        void b.close();
      }
    });
  });
}

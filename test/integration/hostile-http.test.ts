/**
 * Hostile HTTP on the wire, sent raw: malformed framing is answered (400, 431, 501, 505) and the
 * connection closed, a stalled body gets 408, a slow but steady upload completes, and a request
 * whose sender half-closes is answered or, where the backend cannot answer it, not stored. Where
 * the pinned uWS build cannot answer at all (docs/api.md#http-framing-and-timeouts), the test
 * pins down what it does instead, so that the table there stays true.
 */

import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, cleanupDaemons, startDaemon, type Backend, type DaemonHandle } from '../helpers/daemon.js';
import { listAllEvents, postJson, OK, uniqueId } from '../helpers/http.js';

/** The stall after which a body is answered 408 here (the default is 10 s). */
const BODY_IDLE_MS = 1500;

interface Exchange {
  /** The status of the first answer; undefined when none came. */
  status: number | undefined;
  headers: Record<string, string>;
  body: string;
  /** Every byte that came back. */
  raw: string;
  /** When the server closed the connection (ms after connecting); undefined if it did not within the wait. */
  closedAfterMs: number | undefined;
  /** When the first byte of the answer came. */
  answeredAfterMs: number | undefined;
}

/**
 * Connects, writes `parts` (a number waits that many ms), and collects what comes back until the
 * server closes the connection, an answer that keeps it open has come whole (unless `untilClosed`),
 * or `waitMs` passes.
 */
function talk(port: number, parts: ReadonlyArray<string | Buffer | number>, waitMs = 3000, untilClosed = false): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const chunks: Buffer[] = [];
    let answeredAfterMs: number | undefined;
    let done = false;
    const s = net.connect(port, '127.0.0.1');
    const finish = (closed: boolean): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      s.destroy();
      const raw = Buffer.concat(chunks).toString('latin1');
      const headEnd = raw.indexOf('\r\n\r\n');
      const lines = (headEnd === -1 ? raw : raw.slice(0, headEnd)).split('\r\n');
      const status = /^HTTP\/1\.1 (\d{3}) /.exec(lines[0] ?? '')?.[1];
      const headers: Record<string, string> = {};
      for (const line of lines.slice(1)) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({
        status: status === undefined ? undefined : Number(status),
        headers,
        body: headEnd === -1 ? '' : Buffer.from(raw.slice(headEnd + 4), 'latin1').toString('utf8'),
        raw,
        closedAfterMs: closed ? Date.now() - started : undefined,
        answeredAfterMs,
      });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    s.on('data', (b: Buffer) => {
      answeredAfterMs ??= Date.now() - started;
      chunks.push(b);
      // An answer that keeps the connection open ends the exchange once it has come whole.
      const raw = Buffer.concat(chunks).toString('latin1');
      const headEnd = raw.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: *(\d+)/i.exec(raw.slice(0, headEnd))?.[1];
      const closing = /\r\nconnection: *close/i.test(raw.slice(0, headEnd));
      const whole = headEnd !== -1 && length !== undefined && Buffer.byteLength(raw, 'latin1') >= headEnd + 4 + Number(length);
      if (whole && !closing && !untilClosed) finish(false);
    });
    s.on('close', () => finish(true));
    s.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNRESET' || err.code === 'EPIPE') finish(true);
      else reject(err);
    });
    s.once('connect', () => {
      void (async () => {
        for (const part of parts) {
          if (done) return;
          if (typeof part === 'number') await new Promise((r) => setTimeout(r, part));
          else s.write(part);
        }
      })();
    });
  });
}

/**
 * Sends `request` and shuts down the sending side with the FIN in the same TCP segment as the
 * request's last bytes (TCP_CORK holds the data until the shutdown), as it comes from a client that
 * writes its request and calls shutdown(SHUT_WR) while its data is still queued. node:net cannot:
 * its `end()` sends the FIN one event-loop turn after the data, and a FIN that comes apart from the
 * request may reach uWS after the request was handed over (docs/api.md#http-framing-and-timeouts).
 * python3 is on every machine of this project's kind (node-gyp needs it).
 */
function sendAndHalfClose(port: number, request: Buffer): Promise<string> {
  const script = [
    'import socket, sys',
    'data = sys.stdin.buffer.read()',
    `s = socket.create_connection(("127.0.0.1", ${port}))`,
    's.setsockopt(socket.IPPROTO_TCP, socket.TCP_CORK, 1)',
    's.sendall(data)',
    's.shutdown(socket.SHUT_WR)',
    's.settimeout(5)',
    'out = b""',
    'try:',
    '    while True:',
    '        b = s.recv(65536)',
    '        if not b: break',
    '        out += b',
    'except OSError:',
    '    pass',
    'sys.stdout.buffer.write(out)',
  ].join('\n');
  return new Promise((resolve, reject) => {
    const child = spawn('python3', ['-c', script], { stdio: ['pipe', 'pipe', 'inherit'] });
    const out: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve(Buffer.concat(out).toString('latin1')) : reject(new Error(`python3 exited ${code}`)),
    );
    child.stdin.end(request);
  });
}

function capture(d: DaemonHandle, distinctId: string, name = 'hostile'): string {
  return JSON.stringify({ api_key: d.projectKey, event: name, distinct_id: distinctId, uuid: randomUUID() });
}

function post(path: string, body: string, extraHeaders = '', version = 'HTTP/1.1'): string {
  return `POST ${path} ${version}\r\nHost: x\r\nContent-Type: application/json\r\n${extraHeaders}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

function chunked(body: string, transferEncoding = 'chunked'): string {
  return `POST /capture/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: ${transferEncoding}\r\n\r\n${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`;
}

/** The events stored for `distinctId`, once a later request of the same client is acknowledged and stored. */
async function storedAfterAck(d: DaemonHandle, distinctId: string): Promise<string[]> {
  const ack = await postJson(d, '/capture/', { api_key: d.projectKey, event: 'marker', distinct_id: distinctId });
  expect([ack.status, ack.json]).toEqual([200, OK]);
  const events = await listAllEvents(d, { distinct_id: distinctId });
  expect(events.map((e) => e.event)).toContain('marker');
  return events.map((e) => e.event).filter((e) => e !== 'marker');
}

function errorOf(x: Exchange): { code: string; detail: string } {
  return JSON.parse(x.body) as { code: string; detail: string };
}

/** An answered refusal: the status, PostHog's error code, and a closed connection. */
function expectRefused(x: Exchange, status: number, code: string): void {
  expect({ status: x.status, code: errorOf(x).code, connection: x.headers['connection'] }).toEqual({
    status,
    code,
    connection: 'close',
  });
  expect(x.closedAfterMs).toBeDefined();
}

const daemons = new Map<Backend, DaemonHandle>();

beforeAll(async () => {
  await Promise.all(
    BACKENDS.map(async (backend) => {
      daemons.set(backend, await startDaemon({ backend, env: { HEDGEROW_BODY_IDLE_TIMEOUT_MS: String(BODY_IDLE_MS) } }));
    }),
  );
});
afterAll(async () => {
  for (const d of daemons.values()) expect(await d.stop()).toBe(0);
  await cleanupDaemons();
});

/** Requests uWS's parser waits on for more bytes until its fixed timeout; node:http answers them at once. */
const heldByUws: Array<[string, string, number]> = [
  ['HTTP/1.0 GET', 'GET /_health HTTP/1.0\r\n\r\n', 200],
  ['the HTTP/2 preface', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 505],
  ['HTTP/9.9', 'GET /_health HTTP/9.9\r\nHost: x\r\n\r\n', 505],
  ['HTTP/2.0', 'GET /_health HTTP/2.0\r\nHost: x\r\n\r\n', 505],
  ['no header at all', 'GET /_health HTTP/1.1\r\n\r\n', 400],
  ['bare LF line ends', 'GET /_health HTTP/1.1\nHost: x\n\n', 400],
  ['49 headers', `GET /_health HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 48 }, (_, i) => `X-H${i}: v\r\n`).join('')}\r\n`, 200],
];

/** Framing uWS refuses by closing at once, with no answer; node:http answers. */
const closedAtOnceByUws: Array<[string, string, number]> = [
  ['a negative Content-Length', 'POST /capture/ HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\nhello', 400],
  ['a non-numeric Content-Length', 'POST /capture/ HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\nhello', 400],
  ['a Content-Length over 2^64', 'POST /capture/ HTTP/1.1\r\nHost: x\r\nContent-Length: 18446744073709551621\r\n\r\nhello', 400],
  ['a ten-digit Content-Length', 'POST /capture/ HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000\r\n\r\nhello', 413],
  [
    'Content-Length with Transfer-Encoding',
    'POST /capture/ HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    400,
  ],
  ['a chunk size that is not hex', 'POST /capture/ HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n', 400],
  ['no Host header', 'GET /_health HTTP/1.1\r\nAccept: */*\r\n\r\n', 400],
];

// Both daemons serve at once and every case uses its own distinct_id, so the cases run concurrently:
// the file takes about as long as its slowest case (uWS's fixed 8–12 s timeout, a 13 s upload).
describe.concurrent.each(BACKENDS)('hostile HTTP (%s backend)', (backend: Backend) => {
  const daemon = (): DaemonHandle => daemons.get(backend)!;

  it('slow clients: a 13 s upload completes; an unfinished head is cut at the fixed head timeout; what uWS cannot parse is held to its timeout', {
    timeout: 25_000,
  }, async () => {
    const d = daemon();
    const uploadId = uniqueId('upload');
    const httpId = uniqueId('http10');
    const body = JSON.stringify({
      api_key: d.projectKey,
      event: 'upload',
      distinct_id: uploadId,
      properties: { pad: 'x'.repeat(130_000) },
    });
    const [idle, upload, head, http10, ...held] = await Promise.all([
      talk(d.port, ['GET /_health HTTP/1.1\r\nHost: x\r\n\r\n'], 14_000, true),
      // ~10 KB/s for 13 s: past uWS's own timer (8–12 s), which cuts uploads slower than 16 KB/s.
      talk(d.port, slices(post('/batch/', `{"api_key":"${d.projectKey}","batch":[${body}]}`), 1000, 100), 20_000),
      talk(d.port, ['GET /_health HTTP/1.1\r\nHo'], 14_000),
      talk(d.port, [post('/capture/', capture(d, httpId, 'old'), '', 'HTTP/1.0')], backend === 'uws' ? 14_000 : 2000),
      ...heldByUws.map(([, request]) => talk(d.port, [request], backend === 'uws' ? 14_000 : 2000)),
    ]);
    expect([idle.status, idle.closedAfterMs !== undefined]).toEqual([200, true]);
    // uWS's timer ticks every 4 s: 8–12 s; node:http's keep-alive timeout: 10 s.
    expect(idle.closedAfterMs).toBeGreaterThan(backend === 'uws' ? 7000 : 9900);
    expect([upload.status, upload.body]).toEqual([200, '{"status":1}']);
    expect(upload.answeredAfterMs).toBeGreaterThan(12_500);
    expect(await storedAfterAck(d, uploadId)).toEqual(['upload']);
    if (backend === 'node') {
      expectRefused(head, 408, 'request_timeout');
      expect(head.answeredAfterMs).toBeGreaterThan(9_900);
      expect([http10.status, http10.body, http10.closedAfterMs !== undefined]).toEqual([200, '{"status":1}', true]);
      expect(await storedAfterAck(d, httpId)).toEqual(['old']);
      held.forEach((x, i) =>
        expect({ case: heldByUws[i]![0], status: x.status }).toEqual({ case: heldByUws[i]![0], status: heldByUws[i]![2] }),
      );
    } else {
      for (const [label, x] of [
        ['unfinished head', head],
        ['HTTP/1.0 capture', http10],
        ...held.map((x, i) => [heldByUws[i]![0], x] as const),
      ] as const) {
        expect({ label, raw: x.raw, closed: x.closedAfterMs !== undefined }).toEqual({ label, raw: '', closed: true });
        expect(x.closedAfterMs).toBeGreaterThan(7000);
      }
      expect(await storedAfterAck(d, httpId)).toEqual([]);
    }
  });

  it('a Transfer-Encoding other than chunked: 501, closed, nothing stored', async () => {
    const d = daemon();
    const id = uniqueId('te');
    for (const te of ['xchunked', 'gzip, chunked']) {
      const x = await talk(d.port, [chunked(capture(d, id), te)]);
      expectRefused(x, 501, 'not_implemented');
      expect(errorOf(x).detail).toContain(`"${te}"`);
    }
    expect(await storedAfterAck(d, id)).toEqual([]);
  });

  it('two different Content-Lengths: 400 saying so, closed, nothing stored', async () => {
    const d = daemon();
    const id = uniqueId('cl');
    const body = capture(d, id);
    const x = await talk(d.port, [post('/capture/', body, `Content-Length: ${Buffer.byteLength(body) - 1}\r\n`)]);
    expectRefused(x, 400, 'malformed_request');
    expect(errorOf(x).detail).toMatch(/Content-Length/);
    expect(await storedAfterAck(d, id)).toEqual([]);
  });

  it(`a body that stalls for ${BODY_IDLE_MS} ms: 408, closed, nothing stored`, async () => {
    const d = daemon();
    const id = uniqueId('stall');
    const request = post('/capture/', capture(d, id));
    const x = await talk(d.port, [request.slice(0, -10)], 6000);
    expectRefused(x, 408, 'request_timeout');
    expect(x.answeredAfterMs).toBeGreaterThanOrEqual(BODY_IDLE_MS - 50);
    expect(x.answeredAfterMs).toBeLessThan(BODY_IDLE_MS + 2500);
    expect(errorOf(x).detail).toBe(`the request body stalled: no bytes arrived for ${BODY_IDLE_MS} ms`);
    expect(await storedAfterAck(d, id)).toEqual([]);
  });

  it(`a body arriving slowly but steadily, for longer than the ${BODY_IDLE_MS} ms stall limit: stored and answered`, async () => {
    const d = daemon();
    const id = uniqueId('steady');
    const body = JSON.stringify({ api_key: d.projectKey, event: 'steady', distinct_id: id, properties: { pad: 'x'.repeat(30_000) } });
    const x = await talk(d.port, slices(post('/capture/', body), 1000, 100), 10_000);
    expect([x.status, x.body]).toEqual([200, '{"status":1}']);
    expect(await storedAfterAck(d, id)).toEqual(['steady']);
  });

  it("a request that comes with its client's FIN: answered and stored on node:http; on uWS, neither", async () => {
    const d = daemon();
    const id = uniqueId('half');
    const answers: string[] = [];
    for (let i = 0; i < 5; i++) answers.push(await sendAndHalfClose(d.port, Buffer.from(post('/capture/', capture(d, id, `half ${i}`)))));
    const stored = (await storedAfterAck(d, id)).sort();
    if (backend === 'node') {
      expect(answers.map((a) => a.slice(0, 15))).toEqual(Array(5).fill('HTTP/1.1 200 OK'));
      expect(stored).toEqual(['half 0', 'half 1', 'half 2', 'half 3', 'half 4']);
    } else {
      // uWS closes a connection on its FIN, so no answer can go out; the request is dropped
      // before it reaches the store (workers/http-thread.ts, Forwarder), so a retry stores it once.
      expect(answers).toEqual(Array(5).fill(''));
      expect(stored).toEqual([]);
    }
  });

  it('framing uWS closes on at once: answered by node:http, closed unanswered by uWS', async () => {
    const d = daemon();
    const results = await Promise.all(closedAtOnceByUws.map(([, request]) => talk(d.port, [request])));
    results.forEach((x, i) => {
      const [label, , status] = closedAtOnceByUws[i]!;
      if (backend === 'node') {
        expect({ label, status: x.status, closed: x.closedAfterMs !== undefined }).toEqual({ label, status, closed: true });
      } else {
        expect({ label, raw: x.raw, closed: (x.closedAfterMs ?? Infinity) < 2000 }).toEqual({ label, raw: '', closed: true });
      }
    });
  });

  it('malformed framing after an answered request on the same connection: answered as a first request would be', async () => {
    const d = daemon();
    const [, malformed] = closedAtOnceByUws[0]!;
    const x = await talk(d.port, ['GET /_health HTTP/1.1\r\nHost: x\r\n\r\n', 300, malformed], 3000, true);
    const statuses = [...x.raw.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
    expect({ statuses, closed: x.closedAfterMs !== undefined }).toEqual({
      statuses: backend === 'node' ? [200, 400] : [200],
      closed: true,
    });
  });

  it('chunk data not followed by CRLF: 400 from node:http; uWS skips the two bytes unchecked and serves it', async () => {
    const d = daemon();
    const id = uniqueId('crlf');
    const body = capture(d, id, 'crlf');
    const size = Buffer.byteLength(body).toString(16);
    const x = await talk(
      d.port,
      [`POST /capture/ HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${size}\r\n${body}XX0\r\n\r\n`],
      1000,
    );
    if (backend === 'node') {
      expectRefused(x, 400, 'malformed_request');
      expect(await storedAfterAck(d, id)).toEqual([]);
    } else {
      expect(x.status).toBe(200);
      expect(await storedAfterAck(d, id)).toEqual(['crlf']);
    }
  });

  it('20 KB of headers in one write: 431 from node:http (over its 16 KB); served by uWS (one read)', async () => {
    const x = await talk(daemon().port, [`GET /_health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]);
    if (backend === 'node') expectRefused(x, 431, 'request_header_fields_too_large');
    else expect(x.status).toBe(200);
  });

  it('a chunk extension: stored and answered by node:http, closed unanswered by uWS', async () => {
    const d = daemon();
    const id = uniqueId('ext');
    const body = capture(d, id, 'ext');
    const size = Buffer.byteLength(body).toString(16);
    const x = await talk(
      d.port,
      [`POST /capture/ HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${size};name=value\r\n${body}\r\n0\r\n\r\n`],
      1000,
    );
    if (backend === 'node') {
      expect(x.status).toBe(200);
      expect(await storedAfterAck(d, id)).toEqual(['ext']);
    } else {
      expect([x.raw, x.closedAfterMs !== undefined]).toEqual(['', true]);
      expect(await storedAfterAck(d, id)).toEqual([]);
    }
  });
});

/** `text` as slices of `size` bytes with `gapMs` between them (about size / gapMs KB/s). */
function slices(text: string, size: number, gapMs: number): Array<string | number> {
  const parts: Array<string | number> = [];
  for (let at = 0; at < text.length; at += size) {
    if (at > 0) parts.push(gapMs);
    parts.push(text.slice(at, at + size));
  }
  return parts;
}

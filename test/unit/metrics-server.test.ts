import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type MetricsServer, startMetricsServer } from '../../src/http/metrics-server.js';

const TEXT = { contentType: 'text/plain; version=0.0.4; charset=utf-8', body: 'hedgerow_up 1\n' };

/** One request on a connection kept alive (as a scraper's). */
function get(port: number, path: string, method = 'GET', agent?: http.Agent): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('startMetricsServer', () => {
  const open: MetricsServer[] = [];
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close();
  });

  it('answers GET /metrics with the scrape, and 404 to anything else', async () => {
    let scrapes = 0;
    const s = await startMetricsServer(
      { host: '127.0.0.1', port: 0 },
      async () => {
        scrapes++;
        return TEXT;
      },
      () => {},
    );
    open.push(s);
    expect(await get(s.port, '/metrics')).toEqual({ status: 200, type: TEXT.contentType, body: TEXT.body });
    expect((await get(s.port, '/metrics/?x=1')).status).toBe(200);
    for (const [method, path] of [
      ['GET', '/'],
      ['GET', '/_health'],
      ['GET', '/metricsx'],
      ['POST', '/metrics'],
      ['HEAD', '/metrics'],
    ] as const) {
      expect({ method, path, status: (await get(s.port, path, method)).status }).toEqual({ method, path, status: 404 });
    }
    expect(scrapes).toBe(2);
  });

  it('answers 500 and reports a scrape that fails', async () => {
    const errors: unknown[] = [];
    const s = await startMetricsServer(
      { host: '127.0.0.1', port: 0 },
      () => Promise.reject(new Error('broken')),
      (err) => errors.push(err),
    );
    open.push(s);
    expect((await get(s.port, '/metrics')).status).toBe(500);
    expect(errors).toEqual([new Error('broken')]);
  });

  it('refuses an address in use, naming the setting', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      await expect(
        startMetricsServer(
          { host: '127.0.0.1', port },
          async () => TEXT,
          () => {},
        ),
      ).rejects.toThrow(`cannot serve /metrics on 127.0.0.1:${port} (HEDGEROW_METRICS_ADDRESS): address in use`);
    } finally {
      taken.close();
    }
  });

  it('close() ends kept-alive connections and stops listening', async () => {
    const s = await startMetricsServer(
      { host: '127.0.0.1', port: 0 },
      async () => TEXT,
      () => {},
    );
    const agent = new http.Agent({ keepAlive: true });
    expect((await get(s.port, '/metrics', 'GET', agent)).status).toBe(200);
    await s.close(); // would wait for the idle connection without closing it
    await expect(get(s.port, '/metrics')).rejects.toThrow(/ECONNREFUSED/);
    agent.destroy();
  });
});

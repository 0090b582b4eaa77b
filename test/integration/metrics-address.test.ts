/**
 * HEDGEROW_METRICS_ADDRESS: `/metrics` on an address of its own, with the front-end threads'
 * counts, while the main port answers it 404; an address in use stops the start with a clear
 * error; the address is closed when the daemon stops.
 */
import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { BACKENDS, cleanupDaemons, startDaemon, useDaemon } from '../helpers/daemon.js';
import { metricSample, postJson, send } from '../helpers/http.js';

afterAll(cleanupDaemons);

describe.each(BACKENDS)('/metrics on an address of its own (%s backend)', (backend) => {
  const d = useDaemon({ backend, env: { HEDGEROW_METRICS_ADDRESS: '127.0.0.1:0' } });
  const metricsUrl = () => {
    const line = d.records().find((r) => typeof r.metrics_address === 'string');
    expect(line?.msg).toMatch(/^serving \/metrics on http:\/\/127\.0\.0\.1:\d+\/metrics/);
    return `http://${String(line?.metrics_address)}`;
  };

  it('serves /metrics there, with every thread answers counted, and 404 on the main port', async () => {
    expect((await postJson(d, '/flags/?v=2', { token: d.projectKey, distinct_id: 'metrics-address' })).status).toBe(200);
    const scraped = await fetch(`${metricsUrl()}/metrics`);
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await scraped.text();
    // Answered in a front-end thread on uWS: brought in before the scrape.
    expect(metricSample(text, 'hedgerow_http_requests_total', { route: 'flags', method: 'POST', status: '200' })).toBe(1);
    expect(metricSample(text, 'hedgerow_http_request_duration_seconds_count', { route: 'flags', method: 'POST' })).toBe(1);

    const main = await send(d, '/metrics');
    expect(main.status).toBe(404);
    expect(main.text).not.toContain('hedgerow_');
    expect((await fetch(`${metricsUrl()}/_health`)).status).toBe(404);
    expect((await send(d, '/_health')).status).toBe(200);
  });
});

describe('HEDGEROW_METRICS_ADDRESS', () => {
  it('in use: the daemon does not start, and says why', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const started = startDaemon({ backend: 'uws', env: { HEDGEROW_METRICS_ADDRESS: `127.0.0.1:${port}` } });
      await expect(started).rejects.toThrow(/exited during startup with code 1/);
      await expect(started).rejects.toThrow(`cannot serve /metrics on 127.0.0.1:${port} (HEDGEROW_METRICS_ADDRESS): address in use`);
    } finally {
      taken.close();
    }
  });

  it('is closed when the daemon stops', async () => {
    const d = await startDaemon({ backend: 'uws', env: { HEDGEROW_METRICS_ADDRESS: '127.0.0.1:0' } });
    const at = String(d.records().find((r) => typeof r.metrics_address === 'string')?.metrics_address);
    const agent = await fetch(`http://${at}/metrics`); // a connection kept alive, as a scraper's
    expect(agent.status).toBe(200);
    await agent.text();
    expect(await d.stop()).toBe(0);
    await expect(fetch(`http://${at}/metrics`)).rejects.toThrow();
  });

  it('is refused at start when it is no host:port', async () => {
    const started = startDaemon({ backend: 'node', env: { HEDGEROW_METRICS_ADDRESS: '9464' } });
    await expect(started).rejects.toThrow(/HEDGEROW_METRICS_ADDRESS="9464": must be empty, or host:port/);
  });
});

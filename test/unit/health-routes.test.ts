import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/observability/metrics.js';
import { addHealthRoutes, type Readiness } from '../../src/http/routes/health-routes.js';
import { Router } from '../../src/http/router.js';
import type { HttpRequest, HttpResponse } from '../../src/http/types.js';

function get(router: Router, path: string): Promise<HttpResponse> | HttpResponse {
  const req: HttpRequest = { method: 'GET', path, query: '', header: () => '', ip: '127.0.0.1', body: new Uint8Array(0), receivedAt: 0 };
  return router.match(req).run();
}

describe('health routes', () => {
  it('/_readyz is 200 only while ready; /_health is 200 throughout', async () => {
    let state: Readiness = 'starting';
    const router = new Router();
    addHealthRoutes(router, { readiness: () => state });
    const seen: Array<[Readiness, number, string | Uint8Array | undefined, number]> = [];
    for (const next of ['starting', 'ready', 'stopping'] as const) {
      state = next;
      const ready = await get(router, '/_readyz');
      seen.push([next, ready.status, ready.body, (await get(router, '/_health')).status]);
    }
    expect(seen).toEqual([
      ['starting', 503, '{"status":"starting"}', 200],
      ['ready', 200, '{"status":"ready"}', 200],
      ['stopping', 503, '{"status":"stopping"}', 200],
    ]);
  });

  it('serves /metrics when given the scrape, and leaves the path unknown (404) without it', async () => {
    const metrics = createMetrics();
    const served = new Router();
    addHealthRoutes(served, { readiness: () => 'ready', scrape: () => metrics.render() });
    const answer = await get(served, '/metrics');
    expect(answer.status).toBe(200);
    expect(String(answer.body)).toContain('# TYPE hedgerow_build_info gauge');
    const elsewhere = new Router();
    addHealthRoutes(elsewhere, { readiness: () => 'ready' });
    expect(() => get(elsewhere, '/metrics')).toThrow(expect.objectContaining({ status: 404 }));
  });
});

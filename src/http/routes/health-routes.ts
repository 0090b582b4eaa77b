/** Liveness (`/_health`), readiness (`/_readyz`) and Prometheus metrics (`/metrics`). */
import type { Metrics } from '../../observability/metrics.js';
import { json } from '../respond.js';
import type { Router } from '../router.js';

export type Readiness = 'starting' | 'ready' | 'stopping';

export interface HealthRoutesDeps {
  readiness: () => Readiness;
  metrics: Metrics;
  /** Runs before each scrape: counts kept elsewhere (HTTP threads) come in. */
  beforeScrape?: () => Promise<void> | undefined;
}

export function addHealthRoutes(router: Router, deps: HealthRoutesDeps): void {
  router.add(['GET', 'HEAD'], '/_health', 'health', () => json(200, { status: 'ok' }));
  router.add(['GET', 'HEAD'], '/_readyz', 'readyz', () => {
    const status = deps.readiness();
    return json(status === 'ready' ? 200 : 503, { status });
  });
  router.add(['GET'], '/metrics', 'metrics', async () => {
    await deps.beforeScrape?.();
    const { contentType, body } = await deps.metrics.render();
    return { status: 200, headers: { 'content-type': contentType }, body };
  });
}

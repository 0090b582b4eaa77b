/** Liveness (`/_health`), readiness (`/_readyz`) and Prometheus metrics (`/metrics`). */
import type { Metrics } from '../../observability/metrics.js';
import { json } from '../respond.js';
import type { Router } from '../router.js';

export function addHealthRoutes(router: Router, deps: { isReady: () => boolean; metrics: Metrics }): void {
  router.add(['GET', 'HEAD'], '/_health', 'health', () => json(200, { status: 'ok' }));
  router.add(['GET', 'HEAD'], '/_readyz', 'readyz', () =>
    deps.isReady() ? json(200, { status: 'ready' }) : json(503, { status: 'starting' }),
  );
  router.add(['GET'], '/metrics', 'metrics', async () => {
    const { contentType, body } = await deps.metrics.render();
    return { status: 200, headers: { 'content-type': contentType }, body };
  });
}

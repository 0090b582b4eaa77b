/**
 * Liveness (`/_health`), readiness (`/_readyz`) and Prometheus metrics (`/metrics`, unless it has
 * an address of its own: metrics-server.ts; the path is then unknown here, a 404).
 */
import type { Unavailability } from '../../store/write-availability.js';
import type { MetricsText } from '../metrics-server.js';
import { json } from '../respond.js';
import type { Router } from '../router.js';

export type Readiness = 'starting' | 'ready' | 'stopping';

/** Cluster mode: this node's name and its connection to the NATS cluster. */
interface ClusterConnection {
  readonly node: string;
  readonly state: string;
  readonly server?: string;
}

export interface HealthRoutesDeps {
  readiness: () => Readiness;
  /** Set while the store refuses writes: the daemon is up but cannot take events. */
  storeUnavailable?: () => Readonly<Unavailability> | undefined;
  /** Cluster mode: the node's connection to the NATS cluster. */
  cluster?: () => ClusterConnection;
  /** The Prometheus text for `/metrics`; absent when it is served on an address of its own. */
  scrape?: () => Promise<MetricsText>;
}

export function addHealthRoutes(router: Router, deps: HealthRoutesDeps): void {
  router.add(['GET', 'HEAD'], '/_health', 'health', () =>
    json(200, deps.cluster ? { status: 'ok', cluster: deps.cluster() } : { status: 'ok' }),
  );
  router.add(['GET', 'HEAD'], '/_readyz', 'readyz', () => {
    const status = deps.readiness();
    const store = status === 'ready' ? deps.storeUnavailable?.() : undefined;
    if (store) {
      // Reads and /flags go on; capture answers 503 until a write commits again.
      return json(503, {
        status: 'store_unavailable',
        detail: `the store refuses writes: ${store.reason}`,
        since: new Date(store.since).toISOString(),
      });
    }
    const cluster = status === 'ready' ? deps.cluster?.() : undefined;
    if (cluster && cluster.state !== 'connected') {
      // Reads and /flags go on from the node's own store; capture answers 503 until it is back.
      return json(503, { status: 'cluster_unavailable', detail: `the connection to the NATS cluster is ${cluster.state}`, cluster });
    }
    return json(status === 'ready' ? 200 : 503, { status });
  });
  const scrape = deps.scrape;
  if (scrape === undefined) return;
  router.add(['GET'], '/metrics', 'metrics', async () => {
    const { contentType, body } = await scrape();
    return { status: 200, headers: { 'content-type': contentType }, body };
  });
}

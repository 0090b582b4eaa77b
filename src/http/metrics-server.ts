/**
 * `/metrics` on an address of its own (HEDGEROW_METRICS_ADDRESS), so that a port open to SDKs
 * need not expose it: a small node:http server on the main thread that answers `GET /metrics`
 * with the daemon's Prometheus text and 404 to anything else. A scraper asks every few seconds
 * at most, so node:http's cost per request does not matter here; its requests are neither
 * counted in `hedgerow_http_requests_total` nor access-logged, which are about the daemon's port.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { formatListenAddress, type ListenAddress } from '../config/listen-address.js';

export interface MetricsText {
  contentType: string;
  body: string;
}

export interface MetricsServer {
  /** The bound port (the configured one, or the one picked for port 0). */
  readonly port: number;
  /** Stops listening and ends its connections (scrapers keep theirs open). */
  close(): Promise<void>;
}

/** Rejects, naming the setting, when the address cannot be bound (in use, not an address of this machine). */
export async function startMetricsServer(
  address: ListenAddress,
  scrape: () => Promise<MetricsText>,
  onError: (err: unknown) => void,
): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    const path = url.includes('?') ? url.slice(0, url.indexOf('?')) : url;
    if (req.method !== 'GET' || (path !== '/metrics' && path !== '/metrics/')) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found: this address serves GET /metrics only\n');
      return;
    }
    scrape().then(
      ({ contentType, body }) => {
        res.writeHead(200, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) }).end(body);
      },
      (err: unknown) => {
        onError(err);
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('internal error\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    const failed = (err: NodeJS.ErrnoException) => {
      const why = err.code === 'EADDRINUSE' ? 'address in use' : err.message;
      reject(new Error(`cannot serve /metrics on ${formatListenAddress(address)} (HEDGEROW_METRICS_ADDRESS): ${why}`));
    };
    server.once('error', failed);
    // exclusive: a bind of its own, never shared with another process's listener.
    server.listen({ host: address.host, port: address.port, exclusive: true }, () => {
      server.off('error', failed);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

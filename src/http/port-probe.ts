/**
 * uWS listens with SO_REUSEPORT on a port given by number, so a second server on a port already
 * served by another process succeeds and the kernel splits the connections between the two (a
 * second daemon started by mistake would take half of the SDKs' traffic). A plain bind first,
 * without that option, fails when anything listens there, as an operator expects.
 */
import net from 'node:net';
import { listenError } from './listen-error.js';

/** Rejects when something already listens on host:port; resolves once the probe is closed. */
export function ensurePortFree(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (err) => reject(listenError(host, port, err)));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

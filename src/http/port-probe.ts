/**
 * uWS listens with SO_REUSEPORT on a port given by number, so a second server on a port already
 * served by another process succeeds and the kernel splits the connections between the two (a
 * second daemon started by mistake would take half of the SDKs' traffic). A plain bind first,
 * without that option, fails when anything listens there, as an operator expects.
 */
import net from 'node:net';

/** Rejects when something already listens on host:port; resolves once the probe is closed. */
export function ensurePortFree(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (err: NodeJS.ErrnoException) =>
      reject(new Error(`cannot listen on ${host}:${port}: ${err.code === 'EADDRINUSE' ? 'address in use' : err.message}`)),
    );
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

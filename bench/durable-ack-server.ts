/**
 * The durable floor: the ceiling's uWS server (bench/ack-server.ts), except that every request's
 * body is appended to an event log in a store opened exactly as the daemon opens it (durable
 * sync, LZ4 blocks) and answered only once that commit is durable, as the daemon's durability
 * contract requires. No parsing, no validation, no persons: what acknowledging durably costs
 * on this machine before any of the daemon's own work.
 * Usage: node dist/bench/durable-ack-server.js <data dir> [port]   (prints {"msg":"listening","port":N})
 */
import { loadUws } from '../src/http/load-uws.js';
import { EventWriter } from '../src/store/event-log.js';
import { openStore } from '../src/store/open-store.js';

const loaded = loadUws();
if (!loaded.ok) {
  process.stderr.write(`durable-ack-server: ${loaded.reason}\n`);
  process.exit(1);
}
const dataDir = process.argv[2];
if (dataDir === undefined) {
  process.stderr.write('usage: durable-ack-server <data dir> [port]\n');
  process.exit(1);
}
const { uws } = loaded;
const dbs = openStore({ dataDir, sync: 'durable' });
const writer = new EventWriter(dbs);
const app = uws.App();

app.any('/*', (res) => {
  let aborted = false;
  res.onAborted(() => {
    aborted = true;
  });
  const chunks: Buffer[] = [];
  res.onData((chunk, isLast) => {
    // uWS reuses the chunk's memory after this call: keep a copy.
    chunks.push(Buffer.from(new Uint8Array(chunk)));
    if (!isLast) return;
    writer.append(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).then(
      () => {
        if (aborted) return;
        res.cork(() => {
          res.writeStatus('200 OK').writeHeader('content-type', 'application/json').end('{"status":1}');
        });
      },
      (err: unknown) => {
        if (aborted) return;
        res.cork(() => {
          res.writeStatus('503 Service Unavailable').end(String(err));
        });
      },
    );
  });
});

const port = Number(process.argv[3] ?? 0);
app.listen('127.0.0.1', port, (socket) => {
  if (socket === false) {
    process.stderr.write(`durable-ack-server: cannot listen on 127.0.0.1:${port}\n`);
    process.exit(1);
  }
  process.stdout.write(`${JSON.stringify({ msg: 'listening', port: uws.us_socket_local_port(socket) })}\n`);
});

process.on('SIGTERM', () => {
  void dbs.root.close().then(() => process.exit(0));
});

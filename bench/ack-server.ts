/**
 * The ceiling: a uWS server, loaded exactly as the daemon loads it, that reads every request's
 * body to the end and answers `{"status":1}` with no other work. bench/run.ts runs it as its own
 * process and drives it with the same wrk settings as the daemon.
 * Usage: node dist/bench/ack-server.js [port]   (prints {"msg":"listening","port":N} on stdout)
 */
import { loadUws } from '../src/http/load-uws.js';

const loaded = loadUws();
if (!loaded.ok) {
  process.stderr.write(`ack-server: ${loaded.reason}\n`);
  process.exit(1);
}
const { uws } = loaded;
const app = uws.App();

app.any('/*', (res) => {
  let aborted = false;
  res.onAborted(() => {
    aborted = true;
  });
  // Every chunk is received and dropped: copying it would be work the ceiling must not do.
  res.onData((_chunk, isLast) => {
    if (!isLast || aborted) return;
    res.cork(() => {
      res.writeStatus('200 OK').writeHeader('content-type', 'application/json').end('{"status":1}');
    });
  });
});

const port = Number(process.argv[2] ?? 0);
app.listen('127.0.0.1', port, (socket) => {
  if (socket === false) {
    process.stderr.write(`ack-server: cannot listen on 127.0.0.1:${port}\n`);
    process.exit(1);
  }
  process.stdout.write(`${JSON.stringify({ msg: 'listening', port: uws.us_socket_local_port(socket), binary: loaded.binaryPath })}\n`);
});

process.on('SIGTERM', () => process.exit(0));

/**
 * An HTTP front-end thread (src/http/uws-threads-backend.ts): its own uWS app on the daemon's
 * port, the routes it answers itself (src/http/local-routes.ts), and every other request
 * forwarded to the daemon's thread, gathered into one message per event-loop turn. It writes the
 * access-log lines of the requests it answers itself (the daemon's thread writes those of the
 * requests it forwards), at the daemon's level, which comes with every change.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { HedgerowError } from '../src/errors.js';
import { AccessLog } from '../src/http/access-log.js';
import { openLocalRoutes, type LocalRoutes } from '../src/http/local-routes.js';
import { loadUws } from '../src/http/load-uws.js';
import { errorResponse } from '../src/http/respond.js';
import { ANSWERS_REPORT_EVERY_MS, AnswerCounts, CLIENT_GONE, frontEndHandler, NextTurn } from '../src/http/front-end.js';
import type { ForwardedRequest, FromThread, HttpThreadSetup, ToThread } from '../src/http/thread-messages.js';
import type { HttpRequest, HttpResponse } from '../src/http/types.js';
import { createUwsBackend, uwsHeaderList } from '../src/http/uws-backend.js';
import { announceThread } from '../src/observability/thread-cpu.js';
import { collectWhenQuiet, QUIET_COLLECTION } from '../src/util/heap-release.js';

announceThread('http');
collectWhenQuiet(QUIET_COLLECTION);
const setup = workerData as HttpThreadSetup;
const port = parentPort!;
const send = (m: FromThread) => port.postMessage(m);
const accessLog = new AccessLog();
accessLog.setLevel(setup.logLevel); // and at every change, by message
const NO_BODY = new Uint8Array(0);

/** A request waiting for its turn to go to the daemon's thread. */
interface Outgoing {
  readonly forwarded: ForwardedRequest;
  readonly req: Omit<HttpRequest, 'body'>;
}

/**
 * Requests handed to the daemon's thread, one message per turn (front-end.ts's NextTurn says
 * why a turn late), and their answers as they come back.
 */
class Forwarder {
  private readonly waiting = new Map<number, (res: HttpResponse) => void>();
  private readonly queue = new NextTurn<Outgoing>(
    (due) => send({ type: 'requests', requests: due.map((o) => o.forwarded) }),
    (gone) => this.settle(gone.forwarded.id, CLIENT_GONE),
  );
  private nextId = 1;

  forward(req: Omit<HttpRequest, 'body'> & { body?: Uint8Array }, tooLarge: boolean): Promise<HttpResponse> {
    const id = this.nextId++;
    this.queue.push({
      req,
      forwarded: {
        id,
        tooLarge,
        method: req.method,
        path: req.path,
        query: req.query,
        headers: uwsHeaderList(req as HttpRequest) ?? [],
        ip: req.ip,
        body: tooLarge ? NO_BODY : (req.body ?? NO_BODY),
        receivedAt: req.receivedAt,
      },
    });
    return new Promise((resolve) => this.waiting.set(id, resolve));
  }

  answered(responses: Extract<ToThread, { type: 'responses' }>['responses']): void {
    for (const r of responses) this.settle(r.id, r.response);
  }

  private settle(id: number, response: HttpResponse): void {
    const resolve = this.waiting.get(id);
    this.waiting.delete(id);
    resolve?.(response);
  }
}

/** Tells the daemon's log of an unexpected error here (the request it happened in got a 500). */
function reportBug(err: unknown): void {
  send({ type: 'bug', error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
}

const counts = new AnswerCounts();

function openLocal(): LocalRoutes | undefined | Error {
  try {
    return setup.local
      ? openLocalRoutes(
          setup.local,
          reportBug,
          (endpoint) => counts.addFlagErrors(endpoint),
          (w) => send({ type: 'hash-keys', writes: [w] }),
        )
      : undefined;
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}

const loaded = loadUws(setup.uwsBinaryPath);
const local = loaded.ok ? openLocal() : undefined;
if (!loaded.ok) {
  send({ type: 'failed', reason: loaded.reason });
} else if (local instanceof Error) {
  send({ type: 'failed', reason: `could not open the store: ${local.message}` });
} else {
  const forwarder = new Forwarder();
  const backend = createUwsBackend(
    loaded.uws,
    {
      maxBodyBytes: setup.maxBodyBytes,
      bodyIdleTimeoutMs: setup.bodyIdleTimeoutMs,
      handler: frontEndHandler(local, counts, accessLog, (req) => forwarder.forward(req, false)),
      tooLarge: (req) => forwarder.forward(req, true),
      // A local route's bug, or a forwarded answer that cannot go on the wire (a bad header).
      onError: (err) => {
        reportBug(err);
        return errorResponse(new HedgerowError('HR_INTERNAL'));
      },
    },
    new Int32Array(setup.inFlight),
  );

  port.on('message', (m: ToThread) => {
    switch (m.type) {
      case 'responses':
        forwarder.answered(m.responses);
        return;
      case 'listen':
        backend.listen(m.host, m.port).then(
          (bound) => send({ type: 'listening', port: bound }),
          (err: unknown) => send({ type: 'listen-failed', reason: err instanceof Error ? err.message : String(err) }),
        );
        return;
      case 'stop-accepting':
        void backend.stopAccepting().then(() => send({ type: 'stopped-accepting', id: m.id }));
        return;
      case 'drain':
        void backend.drained(m.timeoutMs).then((drained) => send({ type: 'drained', id: m.id, drained }));
        return;
      case 'collect':
        send({ type: 'collected', id: m.id, answers: counts.take() });
        return;
      case 'log-level':
        accessLog.setLevel(m.level);
        return;
      case 'close':
        void backend
          .close()
          .then(() => local?.close())
          .finally(() => {
            send({ type: 'closed', answers: counts.take() });
            process.exit(0);
          });
        return;
    }
  });
  // Between scrapes the counts go to the daemon every second, so they never pile up here.
  setInterval(() => {
    if (!counts.empty) send({ type: 'answers', answers: counts.take() });
  }, ANSWERS_REPORT_EVERY_MS).unref();
  send({ type: 'ready' });
}

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
import type { ForwardedRequest, FromThread, HttpThreadSetup, LocalAnswers, ToThread } from '../src/http/thread-messages.js';
import type { HttpRequest, HttpResponse } from '../src/http/types.js';
import { createUwsBackend, uwsClientGone, uwsHeaderList } from '../src/http/uws-backend.js';
import { DurationTally } from '../src/observability/request-durations.js';
import { announceThread } from '../src/observability/thread-cpu.js';
import { monotonicMs } from '../src/util/monotonic-ms.js';

announceThread('http');
const setup = workerData as HttpThreadSetup;
const port = parentPort!;
const send = (m: FromThread) => port.postMessage(m);
const accessLog = new AccessLog();
accessLog.setLevel(setup.logLevel); // and at every change, by message
const NO_BODY = new Uint8Array(0);
const REPORT_EVERY_MS = 1000;

/** Counts of the requests answered here, until the daemon collects them (at most a second's worth). */
class AnswerCounts {
  private counts = new Map<string, [string, string, number, number]>();
  private bodyBytes: number[] = [];
  private readonly durations = new DurationTally();
  private flagErrors = new Map<string, number>();

  add(route: string, method: string, status: number, bodyBytes: number, seconds: number): void {
    const key = `${route} ${method} ${status}`;
    const entry = this.counts.get(key);
    if (entry) entry[3]++;
    else this.counts.set(key, [route, method, status, 1]);
    if (bodyBytes > 0) this.bodyBytes.push(bodyBytes);
    this.durations.observe(route, method, seconds);
  }

  addFlagErrors(route: string): void {
    this.flagErrors.set(route, (this.flagErrors.get(route) ?? 0) + 1);
  }

  get empty(): boolean {
    return this.counts.size === 0;
  }

  take(): LocalAnswers {
    const answers = {
      counts: [...this.counts.values()],
      bodyBytes: this.bodyBytes,
      durations: this.durations.take(),
      flagErrors: [...this.flagErrors],
    };
    this.counts = new Map();
    this.bodyBytes = [];
    this.flagErrors = new Map();
    return answers;
  }
}

/** A request waiting for its turn to go to the daemon's thread. */
interface Outgoing {
  readonly forwarded: ForwardedRequest;
  readonly req: Omit<HttpRequest, 'body'>;
}

/** Never written: its client has gone (uWS ignores an answer to an aborted request). */
const CLIENT_GONE: HttpResponse = { status: 499 };

/**
 * Requests handed to the daemon's thread, and their answers as they come back. A request goes
 * one event-loop turn after the turn it was read in, gathered with the others of its turn: the
 * poll phase in between reads a FIN that came with the request, on which uWS closes the connection
 * (it does not keep half-closed sockets), and a request whose client has gone is dropped here
 * instead of being stored with no one to acknowledge it to (a client that sends a request and
 * shuts down its side at once would otherwise have it stored, get no answer, and send it again).
 */
class Forwarder {
  private readonly waiting = new Map<number, (res: HttpResponse) => void>();
  /** Read in this turn. */
  private arriving: Outgoing[] = [];
  /** Read in the previous turn: sent in this one. */
  private due: Outgoing[] = [];
  private turnQueued = false;
  private nextId = 1;

  forward(req: Omit<HttpRequest, 'body'> & { body?: Uint8Array }, tooLarge: boolean): Promise<HttpResponse> {
    const id = this.nextId++;
    this.arriving.push({
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
    this.queueTurn();
    return new Promise((resolve) => this.waiting.set(id, resolve));
  }

  answered(responses: Extract<ToThread, { type: 'responses' }>['responses']): void {
    for (const r of responses) {
      const resolve = this.waiting.get(r.id);
      this.waiting.delete(r.id);
      resolve?.(r.response);
    }
  }

  private queueTurn(): void {
    if (this.turnQueued) return;
    this.turnQueued = true;
    // An immediate queued from the check phase runs in the next turn's, after its poll phase.
    setImmediate(this.turn);
  }

  private readonly turn = (): void => {
    this.turnQueued = false;
    const due = this.due;
    this.due = this.arriving;
    this.arriving = [];
    if (due.length > 0) {
      const requests: ForwardedRequest[] = [];
      for (const o of due) {
        if (!uwsClientGone(o.req)) {
          requests.push(o.forwarded);
          continue;
        }
        const resolve = this.waiting.get(o.forwarded.id);
        this.waiting.delete(o.forwarded.id);
        resolve?.(CLIENT_GONE);
      }
      if (requests.length > 0) send({ type: 'requests', requests });
    }
    if (this.due.length > 0) this.queueTurn();
  };
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
      handler: (req) => {
        const answered = local?.answer(req);
        if (answered === undefined) return forwarder.forward(req, false);
        const { route, response } = answered;
        const count = (res: HttpResponse): HttpResponse => {
          const ms = monotonicMs() - req.receivedAt;
          counts.add(route, req.method, res.status, req.body.byteLength, ms / 1000);
          if (accessLog.enabled) accessLog.write(req, req.body.byteLength, res, ms);
          return res;
        };
        return response instanceof Promise ? response.then(count) : count(response);
      },
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
  }, REPORT_EVERY_MS).unref();
  send({ type: 'ready' });
}

/**
 * What every uWS front end does, on the daemon's thread (uws-threads-backend.ts) and in each
 * front-end thread (workers/http-thread.ts): answer the routes it can answer alone
 * (local-routes.ts) while counting them for the daemon's metrics and access log, and pass every
 * other request on one event-loop turn after the turn it was read in.
 */
import type { AccessLog } from './access-log.js';
import type { LocalRoutes } from './local-routes.js';
import type { LocalAnswers } from './thread-messages.js';
import type { HttpRequest, HttpResponse } from './types.js';
import { uwsClientGone } from './uws-backend.js';
import { DurationTally } from '../observability/request-durations.js';
import { monotonicMs } from '../util/monotonic-ms.js';

/** How often a front end's counts go to the daemon's metrics between scrapes, so that they stay small. */
export const ANSWERS_REPORT_EVERY_MS = 1000;

/** Counts of the requests a front end answered itself, until the daemon's metrics take them. */
export class AnswerCounts {
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

/** Never written: its client has gone (uWS ignores an answer to an aborted request). */
export const CLIENT_GONE: HttpResponse = { status: 499 };

/**
 * Requests passed on one event-loop turn after the turn they were read in, gathered with the
 * others of their turn: the poll phase in between reads a FIN that came with the request, on which
 * uWS closes the connection (it does not keep half-closed sockets), and a request whose client
 * has gone is dropped here (answered CLIENT_GONE) instead of being stored with no one to
 * acknowledge it to. A client that sends a request and shuts down its side at once would
 * otherwise have it stored, get no answer, and send it again.
 */
export class NextTurn<T extends { readonly req: Omit<HttpRequest, 'body'> }> {
  /** Read in this turn. */
  private arriving: T[] = [];
  /** Read in the previous turn: passed on in this one. */
  private due: T[] = [];
  private turnQueued = false;

  /** `pass` gets each turn's requests whose clients are still there; `gone` each of the others. */
  constructor(
    private readonly pass: (items: T[]) => void,
    private readonly gone: (item: T) => void,
  ) {}

  push(item: T): void {
    this.arriving.push(item);
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
      const live: T[] = [];
      for (const item of due) {
        if (uwsClientGone(item.req)) this.gone(item);
        else live.push(item);
      }
      if (live.length > 0) this.pass(live);
    }
    if (this.due.length > 0 && !this.turnQueued) {
      this.turnQueued = true;
      setImmediate(this.turn);
    }
  };
}

/**
 * A front end's handler: the local routes' answer, counted (and logged at `debug`), or else
 * `passOn`'s. `req.body` is the body as read.
 */
export function frontEndHandler(
  local: LocalRoutes | undefined,
  counts: AnswerCounts,
  accessLog: AccessLog,
  passOn: (req: HttpRequest) => Promise<HttpResponse>,
): (req: HttpRequest) => HttpResponse | Promise<HttpResponse> {
  return (req) => {
    const answered = local?.answer(req);
    if (answered === undefined) return passOn(req);
    const { route, response } = answered;
    const count = (res: HttpResponse): HttpResponse => {
      const ms = monotonicMs() - req.receivedAt;
      counts.add(route, req.method, res.status, req.body.byteLength, ms / 1000);
      if (accessLog.enabled) accessLog.write(req, req.body.byteLength, res, ms);
      return res;
    };
    return response instanceof Promise ? response.then(count) : count(response);
  };
}

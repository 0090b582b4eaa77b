/**
 * HTTP on uWebSockets.js in several front ends: the daemon's own thread (main-front-end.ts) and
 * front-end threads (workers/http-thread.ts), each with its own uWS app on the same port (the
 * kernel spreads connections over them, SO_REUSEPORT). Each answers the routes it can answer
 * alone (`LocalRoutesSetup`: flag evaluation reads the store itself); a thread forwards every
 * other request to the `handler` on the daemon's thread, in batches per event-loop turn, and the
 * daemon's thread runs it directly. A `/flags` request then costs no thread hop at all, and
 * socket work is spread over the cores instead of all falling on the daemon's thread.
 */
import { fileURLToPath } from 'node:url';
import type { LogLevel } from '../config/schema.js';
import { Worker } from 'node:worker_threads';
import { THREAD_RESOURCE_LIMITS } from '../util/thread-heap.js';
import { headerFromList, runHandler, runTooLarge } from './backend-common.js';
import { ensurePortFree } from './port-probe.js';
import { StartError } from '../start-error.js';
import type { ForwardedRequest, ForwardedResponse, FromThread, HttpThreadSetup, ToThread } from './thread-messages.js';
import { createMainFrontEnd, type MainFrontEndOptions } from './main-front-end.js';
import type { HttpBackend, HttpRequest, HttpResponse } from './types.js';

/** The main front end's options (the log level, the local routes, the reports) and the threads'. */
export interface ThreadsBackendOptions extends MainFrontEndOptions {
  /** Front ends, the daemon's thread included unless `serveOnThisThread` is false. */
  threads: number;
  /** The daemon's thread serves as one of the front ends (default true; false: threads only, for tests of forwarding). */
  serveOnThisThread?: boolean;
  /** The native file of `uws` (each thread loads the same file). */
  uwsBinaryPath: string;
  /** A thread died: the daemon cannot serve its connections any more. */
  onThreadError: (err: Error) => void;
  /** The threads' script; by default the built workers/http-thread.js next to this module's tree. */
  threadScript?: URL;
}

const THREAD_SCRIPT = new URL('../../workers/http-thread.js', import.meta.url);

export interface ThreadsBackend extends HttpBackend {
  /** Front ends serving (after `listen`): the daemon's thread and the front-end threads. */
  readonly threadCount: number;
  /** Brings the threads' counts of the requests they answered themselves up to date. */
  collect(): Promise<void>;
  /** Tells every thread, and those started later, the daemon's log level. */
  setLogLevel(level: LogLevel): void;
}

/** A forwarded request as handlers see it. */
class ForwardedHttpRequest implements HttpRequest {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly ip: string;
  readonly body: Uint8Array;
  readonly receivedAt: number;
  private readonly headers: readonly string[];

  constructor(f: ForwardedRequest) {
    this.method = f.method;
    this.path = f.path;
    this.query = f.query;
    this.ip = f.ip;
    this.body = f.body;
    this.receivedAt = f.receivedAt;
    this.headers = f.headers;
  }

  header(name: string): string {
    return headerFromList(this.headers, name);
  }
}

/** One front-end thread: its worker, its batch of answers for this turn, its questions. */
class FrontThread {
  readonly worker: Worker;
  private outgoing: ForwardedResponse[] = [];
  private flushQueued = false;
  private readonly waiting = new Map<number, (m: FromThread) => void>();
  private nextId = 1;
  private readonly inFlightCount: Int32Array;
  readonly started: Promise<void>;
  readonly exited: Promise<void>;

  constructor(
    setup: Omit<HttpThreadSetup, 'inFlight'>,
    private readonly opts: ThreadsBackendOptions,
  ) {
    const inFlight = new SharedArrayBuffer(4);
    this.inFlightCount = new Int32Array(inFlight);
    this.worker = new Worker(fileURLToPath(opts.threadScript ?? THREAD_SCRIPT), {
      workerData: { ...setup, inFlight } satisfies HttpThreadSetup,
      resourceLimits: THREAD_RESOURCE_LIMITS,
    });
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()));
    this.started = new Promise<void>((resolve, reject) => {
      const onError = (err: Error) => reject(err);
      this.worker.once('error', onError);
      this.worker.once('message', (m: FromThread) => {
        this.worker.off('error', onError);
        if (m.type === 'ready') {
          this.worker.on('error', (err) => opts.onThreadError(err));
          this.worker.on('message', (msg: FromThread) => this.onMessage(msg));
          resolve();
        } else {
          reject(new Error(`HTTP thread did not start: ${m.type === 'failed' ? m.reason : m.type}`));
        }
      });
    });
    this.started.catch(() => {}); // `listen` reports it
  }

  /** Requests the thread has read and not yet answered. */
  get inFlight(): number {
    return Atomics.load(this.inFlightCount, 0);
  }

  send(m: ToThread): void {
    this.worker.postMessage(m);
  }

  /** Sends `m` (built with a fresh id) and resolves with the thread's reply to it. */
  ask<T extends FromThread>(build: (id: number) => ToThread): Promise<T> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve as (m: FromThread) => void);
      this.send(build(id));
    });
  }

  /** The next thread message of one of `types` (for answers that carry no id: listen's). */
  next<T extends FromThread>(types: FromThread['type'][]): Promise<T> {
    return new Promise((resolve) => {
      const listener = (m: FromThread) => {
        if (!types.includes(m.type)) return;
        this.worker.off('message', listener);
        resolve(m as T);
      };
      this.worker.on('message', listener);
    });
  }

  private onMessage(m: FromThread): void {
    switch (m.type) {
      case 'requests':
        for (const r of m.requests) this.serve(r);
        return;
      case 'drained':
      case 'stopped-accepting':
        this.answer(m.id, m);
        return;
      case 'collected':
        this.opts.onLocalAnswers?.(m.answers);
        this.answer(m.id, m);
        return;
      case 'bug':
        this.opts.onThreadBug?.(m.error);
        return;
      case 'hash-keys':
        this.opts.onHashKeys?.(m.writes);
        return;
      case 'answers':
      case 'closed':
        this.opts.onLocalAnswers?.(m.answers);
        return;
      default:
        return;
    }
  }

  private answer(id: number, m: FromThread): void {
    const resolve = this.waiting.get(id);
    this.waiting.delete(id);
    resolve?.(m);
  }

  private serve(f: ForwardedRequest): void {
    const req = new ForwardedHttpRequest(f);
    const reply = (res: HttpResponse) => this.reply(f.id, res);
    if (f.tooLarge) runTooLarge(this.opts, req, reply);
    else runHandler(this.opts, req, reply);
  }

  private reply(id: number, response: HttpResponse): void {
    this.outgoing.push({ id, response });
    if (this.flushQueued) return;
    this.flushQueued = true;
    setImmediate(() => {
      this.flushQueued = false;
      const responses = this.outgoing;
      this.outgoing = [];
      this.send({ type: 'responses', responses });
    });
  }
}

export function createUwsThreadsBackend(opts: ThreadsBackendOptions): ThreadsBackend {
  let logLevel = opts.logLevel;
  const setup: Omit<HttpThreadSetup, 'inFlight' | 'logLevel'> = {
    uwsBinaryPath: opts.uwsBinaryPath,
    maxBodyBytes: opts.maxBodyBytes,
    bodyIdleTimeoutMs: opts.bodyIdleTimeoutMs,
    ...(opts.local ? { local: opts.local } : {}),
  };
  const main = opts.serveOnThisThread === false ? undefined : createMainFrontEnd(opts);
  const threads: FrontThread[] = [];
  let listening = false;
  let closing: Promise<void> | undefined;

  async function startAndListen(host: string, port: number): Promise<number> {
    const t = new FrontThread({ ...setup, logLevel }, opts);
    threads.push(t);
    await t.started;
    const answer = t.next<Extract<FromThread, { type: 'listening' | 'listen-failed' }>>(['listening', 'listen-failed']);
    t.send({ type: 'listen', host, port });
    const m = await answer;
    // The thread's uWS says why in its own words (it gives no errno); with a port given by
    // number, ensurePortFree has already named the usual reason, a port in use.
    if (m.type === 'listen-failed') throw new StartError(m.reason);
    return m.port;
  }

  return {
    name: 'uws',
    get threadCount() {
      return (listening ? 1 : 0) + threads.length;
    },
    get inFlight() {
      return threads.reduce((n, t) => n + t.inFlight, main?.inFlight ?? 0);
    },
    async listen(host, port) {
      if (port !== 0) await ensurePortFree(host, port);
      let bound: number;
      if (main === undefined) {
        bound = await startAndListen(host, port);
      } else {
        try {
          bound = await main.listen(host, port);
        } catch (err) {
          throw new StartError(err instanceof Error ? err.message : String(err));
        }
        listening = true;
      }
      // uWS shares a port between sockets (SO_REUSEPORT) only when it is given by number: asked
      // for any free port (0, as tests do), the first front end serves alone.
      if (port === 0) return bound;
      const more = Math.max(1, opts.threads) - 1;
      await Promise.all(Array.from({ length: more }, () => startAndListen(host, bound)));
      return bound;
    },
    async stopAccepting() {
      // A thread that has exited accepts nothing: do not wait for its answer.
      await Promise.all([
        main?.stopAccepting(),
        ...threads.map((t) => Promise.race([t.ask((id) => ({ type: 'stop-accepting', id })), t.exited])),
      ]);
    },
    async drained(timeoutMs) {
      const answers = await Promise.all([
        main?.drained(timeoutMs) ?? true,
        ...threads.map((t) =>
          t.ask<Extract<FromThread, { type: 'drained' }>>((id) => ({ type: 'drain', id, timeoutMs })).then((a) => a.drained),
        ),
      ]);
      return answers.every((drained) => drained);
    },
    async collect() {
      main?.collect();
      await Promise.all(threads.map((t) => t.ask((id) => ({ type: 'collect', id }))));
    },
    setLogLevel(level) {
      logLevel = level;
      main?.setLogLevel(level);
      for (const t of threads) t.send({ type: 'log-level', level });
    },
    close() {
      closing ??= (async () => {
        for (const t of threads) t.send({ type: 'close' });
        await Promise.all([main?.close(), ...threads.map((t) => t.exited)]);
      })();
      return closing;
    },
  };
}

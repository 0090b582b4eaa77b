/**
 * The daemon's own thread as one of the uWS front ends (uws-threads-backend.ts): a uWS app on the
 * daemon's port beside the front-end threads', answering the local routes as they do and running
 * every other request through the daemon's handler here, with no hop between threads. A capture
 * that arrives on one of its connections goes from the socket to the commit on one thread, as the
 * durable floor's does (docs/benchmarks.md), and the front ends cost one V8 isolate fewer.
 */
import type { LogLevel } from '../config/schema.js';
import { HedgerowError } from '../errors.js';
import type { HashKeyWrite } from '../store/hash-key-override-store.js';
import type { StoreDatabases } from '../store/open-store.js';
import { AccessLog } from './access-log.js';
import { runHandler } from './backend-common.js';
import { ANSWERS_REPORT_EVERY_MS, AnswerCounts, CLIENT_GONE, frontEndHandler, NextTurn } from './front-end.js';
import type { UwsBinding } from './load-uws.js';
import { localRoutesOn, type LocalRoutes } from './local-routes.js';
import { errorResponse } from './respond.js';
import type { LocalAnswers, LocalRoutesSetup } from './thread-messages.js';
import type { BackendOptions, HttpBackend, HttpRequest, HttpResponse } from './types.js';
import { createUwsBackend } from './uws-backend.js';

export interface MainFrontEndOptions extends BackendOptions {
  /** The uWS binding this process loaded. */
  uws: UwsBinding;
  /** The log level the front ends start with (their access log); `setLogLevel` changes it. */
  logLevel: LogLevel;
  local?: LocalRoutesSetup;
  /** The daemon's own store handle, on which this thread answers the local routes (local-routes.ts says why). */
  store?: StoreDatabases;
  /** Counts of the requests the front ends answered themselves (every second, on `collect`, at close). */
  onLocalAnswers?: (answers: LocalAnswers) => void;
  /** Cluster mode: hash keys the front ends' `/flags` requests wrote (`local.replicateHashKeys`). */
  onHashKeys?: (writes: HashKeyWrite[]) => void;
  /** An unexpected error in a front end: a local route's, or an answer with a bad header (a 500 went out). */
  onThreadBug?: (error: string) => void;
}

export interface MainFrontEnd extends HttpBackend {
  /** Hands the counts of the requests answered here to `onLocalAnswers`. */
  collect(): void;
  setLogLevel(level: LogLevel): void;
}

interface Waiting {
  readonly req: HttpRequest;
  readonly resolve: (res: HttpResponse) => void;
}

export function createMainFrontEnd(opts: MainFrontEndOptions): MainFrontEnd {
  const counts = new AnswerCounts();
  const accessLog = new AccessLog();
  accessLog.setLevel(opts.logLevel);
  const reportBug = (err: unknown) => opts.onThreadBug?.(err instanceof Error ? (err.stack ?? err.message) : String(err));
  const local: LocalRoutes | undefined =
    opts.local && opts.store
      ? localRoutesOn(
          opts.store,
          opts.local,
          reportBug,
          (endpoint) => counts.addFlagErrors(endpoint),
          (w) => opts.onHashKeys?.([w]),
        )
      : undefined;
  const queue = new NextTurn<Waiting>(
    (due) => {
      for (const w of due) runHandler(opts, w.req, w.resolve);
    },
    (gone) => gone.resolve(CLIENT_GONE),
  );
  const backend = createUwsBackend(opts.uws, {
    maxBodyBytes: opts.maxBodyBytes,
    bodyIdleTimeoutMs: opts.bodyIdleTimeoutMs,
    handler: frontEndHandler(local, counts, accessLog, (req) => new Promise((resolve) => queue.push({ req, resolve }))),
    tooLarge: opts.tooLarge,
    // A local route's bug (the daemon's handler answers its own errors).
    onError: (err) => {
      reportBug(err);
      return errorResponse(new HedgerowError('HR_INTERNAL'));
    },
  });
  const collect = (): void => {
    if (!counts.empty) opts.onLocalAnswers?.(counts.take());
  };
  const timer = setInterval(collect, ANSWERS_REPORT_EVERY_MS);
  timer.unref();

  return {
    name: 'uws',
    get inFlight() {
      return backend.inFlight;
    },
    listen: (host, port) => backend.listen(host, port),
    stopAccepting: () => backend.stopAccepting(),
    drained: (timeoutMs) => backend.drained(timeoutMs),
    collect,
    setLogLevel: (level) => accessLog.setLevel(level),
    async close() {
      clearInterval(timer);
      await backend.close();
      collect();
    },
  };
}

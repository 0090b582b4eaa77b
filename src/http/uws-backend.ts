/**
 * HTTP backend on uWebSockets.js (native). Rules that keep the process alive (without them uWS
 * aborts the process in native code, where no JavaScript handler can catch it):
 * `onAborted` is attached before anything asynchronous; everything from the uWS request is
 * read synchronously inside the route callback (the object is invalid after it returns);
 * body chunks are copied (uWS reuses and neuters their ArrayBuffers); answers are written
 * inside `cork()` and never after an abort.
 */

import { HedgerowError } from '../errors.js';
import { HTTP_REQUEST_TIMEOUT_MS } from '../limits.js';
import { concatBytes } from '../util/concat-bytes.js';
import { monotonicMs } from '../util/monotonic-ms.js';
import { BodyWatch, type WatchedBody } from './body-watch.js';
import { framingFault, requestTimeout } from './framing.js';
import { errorResponse } from './respond.js';
import {
  InFlight,
  bodyBytes,
  bodyVerdict,
  clientIp,
  formatIp,
  headerFromList,
  parseContentLength,
  prepareOrError,
  runHandler,
  runTooLarge,
} from './backend-common.js';
import type { UwsBinding, UwsListenSocket, UwsResponse } from './load-uws.js';
import type { BackendOptions, HttpBackend, HttpRequest, HttpResponse } from './types.js';

/** The answer to a request that arrives while the backend stops accepting (SDKs retry a 503). */
const NOT_READY = errorResponse(new HedgerowError('HR_NOT_READY'));

/** Per-request state shared by the abort, data and answer callbacks. */
interface Exchange extends WatchedBody {
  readonly res: UwsResponse;
  readonly method: string;
  aborted: boolean;
  answered: boolean;
  /** The too-large answer is on its way (it may come asynchronously): the rest of the body is ignored. */
  refused: boolean;
  /** The request's headers, [name, value, …]. */
  headers: readonly string[];
}

/**
 * Re-arms uWS's own timer on a connection whose body is still arriving within our limits: its
 * `resume()` sets the fixed 10 s HTTP timeout afresh, and pausing first keeps the socket's poll
 * state as it was (uNetworking/uWebSockets src/HttpResponse.h). Without it uWS cuts, silently, any
 * upload slower than 16 KB/s at 8–12 s (src/HttpContext.h there: it re-arms per 160 KB received).
 */
function keepUwsTimerOff(ex: Exchange): void {
  if (ex.aborted || ex.answered) return;
  ex.res.pause();
  ex.res.resume();
}

/** uWS's timer fires 8–12 s after it is armed; re-arming every 4 s keeps it well clear. */
const UWS_REARM_EVERY_MS = 4000;

/** uWS gives the method in lower case; the common ones are mapped without a new string. */
const UPPER_METHODS: Readonly<Record<string, string>> = {
  get: 'GET',
  post: 'POST',
  head: 'HEAD',
  options: 'OPTIONS',
  put: 'PUT',
  patch: 'PATCH',
  delete: 'DELETE',
};

const NO_BODY = new Uint8Array(0);
const NO_HEADERS: readonly string[] = [];

function clientSaidClose(headers: readonly string[]): boolean {
  return /(^|,)\s*close\s*(,|$)/i.test(headerFromList(headers, 'connection'));
}

/**
 * Text bodies are UTF-8 encoded into this buffer, reused, and uWS is handed the bytes: given a
 * string, uWS.js measures its UTF-8 length in one pass over it and encodes it in a second (about
 * 4% of a /flags request's CPU for its ~13 KB answer, perf); here it is one pass. uWS copies
 * whatever it does not send at once, during the call, so the buffer is free again when `end`
 * returns. Longer text (more than a third of the buffer in UTF-16 units, so that it surely fits)
 * is encoded into a buffer of its own: never handed to uWS as a string, whose encoder writes a
 * lone surrogate as ED A0 80 (not UTF-8) where Node's writes U+FFFD as node:http does.
 */
const TEXT_SCRATCH = Buffer.allocUnsafe(1024 * 1024);
const TEXT_SCRATCH_MAX_UNITS = Math.floor(TEXT_SCRATCH.length / 3);

function wireBody(body: string | Uint8Array): string | Uint8Array {
  if (typeof body !== 'string') return body;
  if (body.length > TEXT_SCRATCH_MAX_UNITS) return Buffer.from(body, 'utf8');
  return TEXT_SCRATCH.subarray(0, TEXT_SCRATCH.write(body, 0, 'utf8'));
}

/**
 * The request as handlers see it. Headers are kept as a flat [name, value, …] list (a request
 * has a handful; a scan beats building a Map), and the client address is formatted only when
 * asked for (capture asks, flags and the management API do not).
 */
class UwsRequest implements HttpRequest {
  body: Uint8Array = NO_BODY;
  private address: string | undefined;

  constructor(
    private readonly ex: Exchange,
    readonly method: string,
    readonly path: string,
    readonly query: string,
    private readonly headers: string[],
    readonly receivedAt: number,
  ) {}

  get headerList(): readonly string[] {
    return this.headers;
  }

  get clientGone(): boolean {
    return this.ex.aborted;
  }

  header(name: string): string {
    return headerFromList(this.headers, name);
  }

  get ip(): string {
    if (this.address === undefined) {
      this.address = clientIp(this.header('x-forwarded-for'), () =>
        // The uWS response may not be touched once answered or aborted.
        this.ex.aborted || this.ex.answered ? '' : formatIp(new Uint8Array(this.ex.res.getRemoteAddress())),
      );
    }
    return this.address;
  }
}

/** A request's headers as this backend read them, [name, value, …]; undefined for other backends' requests. */
export function uwsHeaderList(req: HttpRequest): readonly string[] | undefined {
  return req instanceof UwsRequest ? req.headerList : undefined;
}

/** Whether the client of a request this backend read has gone (closed, or half-closed: uWS closes on FIN). */
export function uwsClientGone(req: Omit<HttpRequest, 'body'>): boolean {
  return req instanceof UwsRequest && req.clientGone;
}

/** `inFlightMirror`: shared memory where the in-flight count is kept for another thread. */
export function createUwsBackend(uws: UwsBinding, opts: BackendOptions, inFlightMirror?: Int32Array): HttpBackend {
  const app = uws.App();
  const inFlight = new InFlight(inFlightMirror);
  const cap = opts.maxBodyBytes;
  const bodies = new BodyWatch<Exchange>({
    idleMs: opts.bodyIdleTimeoutMs,
    totalMs: HTTP_REQUEST_TIMEOUT_MS,
    onExpired: (ex, reason) => answer(ex, requestTimeout(reason, opts.bodyIdleTimeoutMs), true),
    onAlive: keepUwsTimerOff,
    aliveEveryMs: UWS_REARM_EVERY_MS,
  });
  let listenSocket: UwsListenSocket | undefined;
  /** Set by stopAccepting: every later answer closes its connection. */
  let closing = false;

  function answer(ex: Exchange, response: HttpResponse, closeConnection: boolean): void {
    if (ex.aborted || ex.answered) return;
    ex.answered = true;
    bodies.delete(ex);
    inFlight.done();
    const p = prepareOrError(opts, response);
    const close = closeConnection || closing;
    try {
      ex.res.cork(() => {
        ex.res.writeStatus(p.statusLine);
        for (const [k, v] of p.headers) ex.res.writeHeader(k, v);
        // end(.., true) writes `Connection: close` itself unless the request said it (internalEnd
        // in uNetworking/uWebSockets src/HttpResponse.h): say it here only then, exactly once.
        if (close && clientSaidClose(ex.headers)) ex.res.writeHeader('connection', 'close');
        if (ex.method === 'HEAD') ex.res.endWithoutBody(bodyBytes(p.body), close);
        else ex.res.end(wireBody(p.body), close);
      });
    } catch {
      // The socket closed between the abort check and the write; nothing is left to answer.
    }
  }

  function refuse(ex: Exchange, head: UwsRequest, closeConnection: boolean): void {
    ex.refused = true;
    bodies.delete(ex);
    runTooLarge(opts, head, (response) => answer(ex, response, closeConnection));
  }

  app.any('/*', (res, req) => {
    const receivedAt = monotonicMs();
    const lower = req.getMethod();
    const ex: Exchange = {
      res,
      method: UPPER_METHODS[lower] ?? lower.toUpperCase(),
      aborted: false,
      answered: false,
      refused: false,
      headers: NO_HEADERS,
      startedAt: 0,
      lastDataAt: 0,
      aliveAt: 0,
    };
    inFlight.add();
    res.onAborted(() => {
      ex.aborted = true;
      bodies.delete(ex);
      if (!ex.answered) inFlight.done();
    });

    // Everything from `req` is read now: it is invalid once this callback returns.
    const query = req.getQuery() ?? ''; // undefined, not '', when the URL has no '?'
    const headers: string[] = [];
    req.forEach((k, v) => {
      for (let i = 0; i < headers.length; i += 2) {
        if (headers[i] === k) {
          headers[i + 1] = `${headers[i + 1]}, ${v}`;
          return;
        }
      }
      headers.push(k, v);
    });
    ex.headers = headers;
    const head = new UwsRequest(ex, ex.method, req.getUrl(), query, headers, receivedAt);

    const contentLength = head.header('content-length');
    const transferEncoding = head.header('transfer-encoding');
    const declared = parseContentLength(contentLength);
    const noBody = (declared === undefined || declared === 0) && transferEncoding === '';
    if (closing) {
      // Shutting down: a request arriving now on a kept-alive connection is not started (it could
      // commit after this thread reported itself drained, and lose its answer when the daemon
      // closes); the client is told to retry, and the connection closes.
      answer(ex, NOT_READY, true);
      return;
    }
    if (transferEncoding !== '' || (declared === undefined && contentLength !== '')) {
      // uWS frames what it lets through by the first Content-Length, or as chunked for any
      // Transfer-Encoding: answer what that would misread, and close.
      const fault = framingFault(contentLength, transferEncoding);
      if (fault !== undefined) {
        answer(ex, fault, true);
        return;
      }
    }
    if (declared !== undefined && bodyVerdict(declared, cap) === 'close') {
      refuse(ex, head, true);
      return;
    }
    if (noBody) {
      // No body can follow: answer without waiting for uWS's empty last chunk.
      runHandler(opts, head, (response) => answer(ex, response, false));
      return;
    }
    // Preallocate when the size is known and allowed; otherwise collect copied chunks.
    let buf: Uint8Array | undefined = declared !== undefined && declared <= cap ? new Uint8Array(declared) : undefined;
    let chunks: Uint8Array[] | undefined = buf === undefined && declared === undefined ? [] : undefined;
    let total = 0;
    ex.startedAt = ex.lastDataAt = ex.aliveAt = bodies.time();
    bodies.add(ex);

    res.onData((chunk, isLast) => {
      if (ex.aborted || ex.answered || ex.refused) return;
      if (isLast) bodies.delete(ex);
      else ex.lastDataAt = bodies.time();
      const at = total;
      total += chunk.byteLength;
      const verdict = bodyVerdict(total, cap);
      if (verdict === 'close') {
        refuse(ex, head, true);
        return;
      }
      if (verdict === 'keep') {
        if (buf !== undefined && total <= buf.length) buf.set(new Uint8Array(chunk), at);
        else if (chunks !== undefined && chunk.byteLength > 0) chunks.push(new Uint8Array(chunk.slice(0)));
      } else {
        buf = undefined; // over the cap: keep reading, stop buffering
        chunks = undefined;
      }
      if (!isLast) return;
      if (verdict === 'discard') {
        refuse(ex, head, false);
        return;
      }
      head.body = buf !== undefined ? (total === buf.length ? buf : buf.slice(0, total)) : concatBytes(chunks ?? [], total);
      runHandler(opts, head, (response) => answer(ex, response, false));
    });
  });

  function stopAccepting(): void {
    closing = true;
    if (listenSocket !== undefined) {
      uws.us_listen_socket_close(listenSocket);
      listenSocket = undefined;
    }
  }

  return {
    name: 'uws',
    get inFlight() {
      return inFlight.count;
    },
    listen(host, port) {
      return new Promise<number>((resolve, reject) => {
        app.listen(host, port, (socket) => {
          if (socket === false) {
            reject(new Error(`uWS could not listen on ${host}:${port} (address in use or not available)`));
            return;
          }
          listenSocket = socket;
          resolve(uws.us_socket_local_port(socket));
        });
      });
    },
    stopAccepting() {
      stopAccepting();
      return Promise.resolve();
    },
    drained: (timeoutMs) => inFlight.drained(timeoutMs),
    close() {
      stopAccepting();
      bodies.close();
      app.close?.(); // closes every connection; pending requests see onAborted
      return Promise.resolve();
    },
  };
}

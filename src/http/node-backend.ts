/**
 * HTTP backend on node:http, with the same behaviour as the uWS one: the body cap is enforced
 * while reading (declared Content-Length first, then streamed counting), over-cap bodies are
 * drained up to one more cap before the 413, keep-alive stays on, stalled bodies get 408, and
 * stopAccepting lets in-flight requests finish while their answers close the connection. Where
 * uWS cannot answer at all (malformed framing, HTTP/1.0, a half-closed request) this one does.
 */

import { HedgerowError } from '../errors.js';
import { HTTP_HEAD_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS } from '../limits.js';
import { concatBytes } from '../util/concat-bytes.js';
import { monotonicMs } from '../util/monotonic-ms.js';
import { BodyWatch, type WatchedBody } from './body-watch.js';
import { framingAnswer, framingFault, requestTimeout } from './framing.js';
import { listenError } from './listen-error.js';
import { answerClientError } from './node-client-errors.js';
import { errorResponse } from './respond.js';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  InFlight,
  bodyBytes,
  bodyVerdict,
  clientIp,
  normalizePeer,
  parseContentLength,
  prepareOrError,
  runHandler,
  runTooLarge,
} from './backend-common.js';
import type { BackendOptions, HttpBackend, HttpRequest, HttpResponse } from './types.js';

/** The answer to a request that arrives while the backend stops accepting (SDKs retry a 503). */
const NOT_READY = errorResponse(new HedgerowError('HR_NOT_READY'));

/** A body being read, for the stall watch. */
interface Upload extends WatchedBody {
  expire(reason: 'idle' | 'total'): void;
}

const VERSION_UNSUPPORTED = framingAnswer('HR_HTTP_VERSION_UNSUPPORTED');
const MISSING_HOST = framingAnswer('HR_HOST_MISSING');

export function createNodeBackend(opts: BackendOptions): HttpBackend {
  const inFlight = new InFlight();
  const cap = opts.maxBodyBytes;
  /** Set by stopAccepting: every later answer closes its connection. */
  let closing = false;
  const uploads = new BodyWatch<Upload>({
    idleMs: opts.bodyIdleTimeoutMs,
    totalMs: HTTP_REQUEST_TIMEOUT_MS,
    onExpired: (upload, reason) => upload.expire(reason),
  });

  /** Each connection's latest response: a parse error later in its body must not answer it twice. */
  const responses = new WeakMap<object, http.ServerResponse>();

  const server = http.createServer(
    {
      // uWS's fixed timeouts (src/limits.ts), so both backends hold connections alike; checked every
      // second rather than Node's default 30 s, so that a head that does not come is cut on time.
      keepAliveTimeout: HTTP_HEAD_TIMEOUT_MS,
      headersTimeout: HTTP_HEAD_TIMEOUT_MS,
      requestTimeout: HTTP_REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: 1000,
      // Checked below instead, to answer with PostHog's error body (Node's own 400 has none).
      requireHostHeader: false,
    },
    (req, res) => {
      const receivedAt = monotonicMs();
      responses.set(req.socket, res);
      inFlight.add();
      let answered = false;
      let upload: Upload | undefined;
      res.on('close', () => {
        if (upload !== undefined) uploads.delete(upload);
        if (!answered) {
          answered = true; // the client went away first: never write, stop counting it
          inFlight.done();
        }
      });
      req.on('error', () => {}); // an aborted upload; the response's 'close' does the bookkeeping

      const answer = (response: HttpResponse, closeConnection: boolean): void => {
        if (answered) return;
        answered = true;
        if (upload !== undefined) uploads.delete(upload);
        inFlight.done();
        const p = prepareOrError(opts, response);
        res.statusCode = p.status;
        for (const [k, v] of p.headers) res.setHeader(k, v);
        res.setHeader('content-length', bodyBytes(p.body));
        if (closeConnection || closing) res.setHeader('connection', 'close');
        res.end(p.body);
      };
      if (closing) {
        // Shutting down: a request on a kept-alive connection is not started (see uws-backend.ts).
        answer(NOT_READY, true);
        return;
      }
      // llhttp reads any 1.x and also `HTTP/2.0` in a request line; HTTP/1.0 and 1.1 are served.
      if (req.httpVersionMajor !== 1 || req.httpVersionMinor > 1) {
        answer(VERSION_UNSUPPORTED, true);
        return;
      }
      if (req.httpVersionMinor === 1 && req.headers.host === undefined) {
        answer(MISSING_HOST, true); // RFC 9112 §3.2: an HTTP/1.1 request without Host is refused with 400
        return;
      }

      const url = req.url ?? '/';
      const q = url.indexOf('?');
      const distinct = req.headersDistinct;
      const header = (name: string): string => distinct[name]?.join(', ') ?? '';
      const head: Omit<HttpRequest, 'body'> = {
        method: (req.method ?? 'GET').toUpperCase(),
        path: q === -1 ? url : url.slice(0, q),
        query: q === -1 ? '' : url.slice(q + 1),
        ip: clientIp(header('x-forwarded-for'), () => normalizePeer(req.socket.remoteAddress)),
        header,
        receivedAt,
      };

      /** Set once the too-large answer is asked for (it may come asynchronously): later data is ignored. */
      let refused = false;
      const refuse = (closeConnection: boolean): void => {
        refused = true;
        runTooLarge(opts, head, (response) => answer(response, closeConnection));
      };

      const transferEncoding = header('transfer-encoding');
      const contentLength = header('content-length');
      const fault = framingFault(contentLength, transferEncoding);
      if (fault !== undefined) {
        answer(fault, true);
        return;
      }
      const declared = parseContentLength(contentLength);
      if (declared !== undefined && bodyVerdict(declared, cap) === 'close') {
        refuse(true);
        return;
      }
      if ((declared ?? 0) > 0 || transferEncoding !== '') {
        const now = uploads.time();
        upload = {
          startedAt: now,
          lastDataAt: now,
          aliveAt: now,
          expire: (reason) => answer(requestTimeout(reason, opts.bodyIdleTimeoutMs), true),
        };
        uploads.add(upload);
      }
      let buf: Uint8Array | undefined = declared !== undefined && declared <= cap ? new Uint8Array(declared) : undefined;
      let chunks: Uint8Array[] | undefined = buf === undefined && declared === undefined ? [] : undefined;
      let total = 0;

      req.on('data', (chunk: Buffer) => {
        if (answered || refused) return;
        if (upload !== undefined) upload.lastDataAt = uploads.time();
        const at = total;
        total += chunk.length;
        const verdict = bodyVerdict(total, cap);
        if (verdict === 'close') {
          refuse(true);
        } else if (verdict === 'discard') {
          buf = undefined; // over the cap: keep reading, stop buffering
          chunks = undefined;
        } else if (buf !== undefined) {
          buf.set(chunk, at);
        } else {
          chunks?.push(chunk);
        }
      });
      req.on('end', () => {
        if (upload !== undefined) uploads.delete(upload);
        if (answered || refused) return;
        if (bodyVerdict(total, cap) !== 'keep') {
          refuse(false);
          return;
        }
        const body = buf !== undefined ? (total === buf.length ? buf : buf.slice(0, total)) : concatBytes(chunks ?? [], total);
        runHandler(opts, { ...head, body }, (response) => answer(response, false));
      });
    },
  );

  // Answer a request whose sender has shut down its side (a FIN after the request): by default
  // Node ends the connection there and drops the request unanswered (socketOnEnd in nodejs/node
  // lib/_http_server.js).
  (server as http.Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  server.on('clientError', (err: Error, socket) => {
    // An answer in progress, or one that closes the connection (the bytes after a refused body
    // are no request), leaves nothing to answer; once a kept-alive answer has ended, a malformed
    // request after it is answered as a first one would be.
    const previous = responses.get(socket);
    const closes = (r: http.ServerResponse): boolean => !r.shouldKeepAlive || /close/i.test(String(r.getHeader('connection') ?? ''));
    const busyOrClosing = previous?.headersSent && (!previous.writableEnded || closes(previous));
    if (busyOrClosing) socket.destroy();
    else answerClientError(socket, err);
  });

  function stopAccepting(): void {
    closing = true;
    server.close(); // Node 19+ also closes idle keep-alive connections here
  }

  return {
    name: 'node',
    get inFlight() {
      return inFlight.count;
    },
    listen(host, port) {
      return new Promise<number>((resolve, reject) => {
        const refused = (err: Error) => reject(listenError(host, port, err));
        server.once('error', refused);
        server.listen({ host, port }, () => {
          server.off('error', refused);
          resolve((server.address() as AddressInfo).port);
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
      uploads.close();
      server.closeAllConnections();
      return Promise.resolve();
    },
  };
}

/**
 * HTTP backend on node:http, with the same behaviour as the uWS one: the body cap is enforced
 * while reading (declared Content-Length first, then streamed counting), over-cap bodies are
 * drained up to one more cap before the 413, keep-alive stays on, and stopAccepting lets
 * in-flight requests finish while their answers close the connection.
 */

import { HedgerowError } from '../errors.js';
import { concatBytes } from '../util/concat-bytes.js';
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

/** Matches uWS's fixed 10 s keep-alive idle timeout, so both backends hold connections alike. */
const KEEP_ALIVE_TIMEOUT_MS = 10_000;

export function createNodeBackend(opts: BackendOptions): HttpBackend {
  const inFlight = new InFlight();
  const cap = opts.maxBodyBytes;
  /** Set by stopAccepting: every later answer closes its connection. */
  let closing = false;

  const server = http.createServer({ keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS }, (req, res) => {
    inFlight.add();
    let answered = false;
    res.on('close', () => {
      if (!answered) {
        answered = true; // the client went away first: never write, stop counting it
        inFlight.done();
      }
    });
    req.on('error', () => {}); // an aborted upload; the response's 'close' does the bookkeeping

    const answer = (response: HttpResponse, closeConnection: boolean): void => {
      if (answered) return;
      answered = true;
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

    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const distinct = req.headersDistinct;
    const header = (name: string): string => distinct[name]?.join(', ') ?? '';
    const head: Omit<HttpRequest, 'body'> = {
      method: (req.method ?? 'GET').toUpperCase(),
      path: q === -1 ? url : url.slice(0, q),
      query: q === -1 ? '' : url.slice(q + 1),
      ip: clientIp(header('x-forwarded-for'), normalizePeer(req.socket.remoteAddress)),
      header,
    };

    /** Set once the too-large answer is asked for (it may come asynchronously): later data is ignored. */
    let refused = false;
    const refuse = (closeConnection: boolean): void => {
      refused = true;
      runTooLarge(opts, head, (response) => answer(response, closeConnection));
    };

    const declared = parseContentLength(header('content-length'));
    if (declared !== undefined && bodyVerdict(declared, cap) === 'close') {
      refuse(true);
      return;
    }
    let buf: Uint8Array | undefined = declared !== undefined && declared <= cap ? new Uint8Array(declared) : undefined;
    let chunks: Uint8Array[] | undefined = buf === undefined && declared === undefined ? [] : undefined;
    let total = 0;

    req.on('data', (chunk: Buffer) => {
      if (answered || refused) return;
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
      if (answered || refused) return;
      if (bodyVerdict(total, cap) !== 'keep') {
        refuse(false);
        return;
      }
      const body = buf !== undefined ? (total === buf.length ? buf : buf.slice(0, total)) : concatBytes(chunks ?? [], total);
      runHandler(opts, { ...head, body }, (response) => answer(response, false));
    });
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
        server.once('error', reject);
        server.listen({ host, port }, () => {
          server.off('error', reject);
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
      server.closeAllConnections();
      return Promise.resolve();
    },
  };
}


/**
 * What node:http's `clientError` event is answered with: llhttp refuses malformed requests before
 * any handler sees them, and Node's own answer is a bare `400 Bad Request` with no body. Here each
 * gets PostHog's error body and the status that fits (431, 505, 501, 408), and the connection closes.
 */

import type { Duplex } from 'node:stream';
import { catalogueError } from '../errors.js';
import { prepare } from './backend-common.js';
import { framingAnswer } from './framing.js';
import type { HttpResponse } from './types.js';

/** The error node:http hands to `clientError`: llhttp's `HPE_*` codes, or Node's own. */
export interface ClientError extends Error {
  code?: string;
  reason?: string;
}

/** The answer for a request node:http refused; undefined when the socket is beyond answering. */
export function clientErrorAnswer(err: ClientError): HttpResponse | undefined {
  const reason = err.reason ?? err.message;
  switch (err.code) {
    case 'ECONNRESET':
    case 'EPIPE':
      return undefined;
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return framingAnswer('HR_REQUEST_HEAD_TIMEOUT');
    case 'HPE_HEADER_OVERFLOW':
      return framingAnswer('HR_HEADERS_TOO_LARGE');
    case 'HPE_INVALID_VERSION':
      // The same code for a version llhttp does not know and for a request line not ended by CRLF.
      return /invalid http version/i.test(reason)
        ? framingAnswer('HR_HTTP_VERSION_UNSUPPORTED')
        : framingAnswer(catalogueError('HR_MALFORMED_REQUEST', { reason }));
    case 'HPE_PAUSED_H2_UPGRADE': // the HTTP/2 connection preface
      return framingAnswer('HR_HTTP_VERSION_UNSUPPORTED');
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return framingAnswer('HR_REPEATED_CONTENT_LENGTH');
    case 'HPE_INVALID_TRANSFER_ENCODING':
      // llhttp gives this code both to a coding other than chunked and to Transfer-Encoding with
      // Content-Length; only its reason tells them apart.
      return /content-length/i.test(reason)
        ? framingAnswer('HR_CONTENT_LENGTH_WITH_TRANSFER_ENCODING')
        : framingAnswer('HR_TRANSFER_ENCODING_UNSUPPORTED');
    default:
      return framingAnswer(catalogueError('HR_MALFORMED_REQUEST', { reason }));
  }
}

/** Writes `response` on a socket node:http has given up on, and closes it. */
export function answerClientError(socket: Duplex, err: ClientError): void {
  const response = socket.writable ? clientErrorAnswer(err) : undefined;
  if (response === undefined) {
    socket.destroy();
    return;
  }
  const p = prepare(response);
  const body = Buffer.from(p.body);
  const head = [
    `HTTP/1.1 ${p.statusLine}`,
    ...p.headers.map(([k, v]) => `${k}: ${v}`),
    `content-length: ${body.length}`,
    'connection: close',
    '',
    '',
  ].join('\r\n');
  socket.end(Buffer.concat([Buffer.from(head, 'latin1'), body]));
}

/**
 * A small node:http client for the backend suite: exact control over method, headers,
 * chunked or fixed-length bodies, keep-alive agents, and whether a socket was reused.
 */

import http from 'node:http';
import net from 'node:net';

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** True when the request went over a kept-alive socket. */
  reused: boolean;
}

export interface RequestSpec {
  method?: string;
  path?: string;
  headers?: http.OutgoingHttpHeaders;
  /** A Buffer is sent with Content-Length; an array of Buffers is sent chunked. */
  body?: Buffer | Buffer[];
  agent?: http.Agent;
  signal?: AbortSignal;
  host?: string;
}

export function request(port: number, spec: RequestSpec = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const chunked = Array.isArray(spec.body);
    const headers: http.OutgoingHttpHeaders = { ...spec.headers };
    if (chunked) headers['transfer-encoding'] = 'chunked';
    else if (spec.body !== undefined) headers['content-length'] = String(spec.body.length);
    const req = http.request(
      {
        host: spec.host ?? '127.0.0.1',
        port,
        method: spec.method ?? 'GET',
        path: spec.path ?? '/',
        headers,
        agent: spec.agent ?? false,
        signal: spec.signal,
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('error', reject);
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts), reused: req.reusedSocket }),
        );
      },
    );
    req.on('error', reject);
    if (Array.isArray(spec.body)) for (const c of spec.body) req.write(c);
    else if (spec.body !== undefined) req.write(spec.body);
    req.end();
  });
}

export async function json(port: number, spec: RequestSpec = {}): Promise<Record<string, unknown> & { status: number }> {
  const r = await request(port, spec);
  return { ...(JSON.parse(r.body.toString()) as Record<string, unknown>), status: r.status };
}

/** Opens a raw socket, sends the head of a request with a large declared body and part of it, then destroys it. */
export function abortMidBody(port: number, declared: number, sent: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => {
      s.write(`POST /echo HTTP/1.1\r\nhost: x\r\ncontent-length: ${declared}\r\n\r\n`);
      s.write(Buffer.alloc(sent, 7), () => {
        setTimeout(() => {
          s.destroy();
          resolve();
        }, 20);
      });
    });
    s.on('error', reject);
  });
}

/** Polls until `cond` holds or the timeout passes. */
export async function until(cond: () => boolean, timeoutMs = 2000): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 5));
  }
  return true;
}

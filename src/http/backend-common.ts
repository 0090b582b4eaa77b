/**
 * Pieces both HTTP backends share, so their behaviour cannot drift apart: the in-flight
 * counter behind drain, the body-cap policy, running the handler with its error fallbacks,
 * header joining and peer-address formatting.
 */

import { STATUS_CODES, validateHeaderName, validateHeaderValue } from 'node:http';
import type { BackendOptions, HttpRequest, HttpResponse } from './types.js';

/**
 * Counts requests between "started reading" and "answered or aborted"; resolves drain waiters.
 * A `mirror` (shared memory) shows the count to another thread.
 */
export class InFlight {
  private n = 0;
  private waiters: Array<() => void> = [];

  constructor(private readonly mirror?: Int32Array) {}

  get count(): number {
    return this.n;
  }

  add(): void {
    this.n++;
    if (this.mirror) Atomics.store(this.mirror, 0, this.n);
  }

  done(): void {
    this.n--;
    if (this.mirror) Atomics.store(this.mirror, 0, this.n);
    if (this.n === 0 && this.waiters.length > 0) {
      const ws = this.waiters;
      this.waiters = [];
      for (const w of ws) w();
    }
  }

  drained(timeoutMs: number): Promise<boolean> {
    if (this.n === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== onDrained);
        resolve(false);
      }, timeoutMs);
      const onDrained = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      this.waiters.push(onDrained);
    });
  }
}

/**
 * What to do with a body of `total` bytes so far. Over the cap we stop buffering but keep
 * reading and discarding up to one more cap, so the client finishes sending and reads the 413
 * on a connection that stays usable; past twice the cap we answer at once and close.
 */
export type BodyVerdict = 'keep' | 'discard' | 'close';

export function bodyVerdict(total: number, cap: number): BodyVerdict {
  if (total <= cap) return 'keep';
  if (total <= cap * 2) return 'discard';
  return 'close';
}

/**
 * Parses a Content-Length header; undefined when absent or malformed. The same length sent twice
 * arrives joined (`47, 47`) and counts once (RFC 9110 §8.6); different lengths are malformed.
 * A length of more than 15 digits is not exact as a number, but it is over any body cap all the same.
 */
export function parseContentLength(value: string): number | undefined {
  if (value === '') return undefined;
  const first = value.includes(',') ? sameEverywhere(value.split(',').map((v) => v.trim())) : value;
  if (first === undefined || !/^\d+$/.test(first)) return undefined;
  return Number(first);
}

function sameEverywhere(values: string[]): string | undefined {
  return values.every((v) => v === values[0]) ? values[0] : undefined;
}

const EMPTY = new Uint8Array(0);

/** A response with its body as bytes and a status line ready for the wire. */
export interface Prepared {
  readonly status: number;
  readonly statusLine: string;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  /** Text is encoded to UTF-8 by the backend as it writes it (uWS: into a reused buffer; node:http: by Node). */
  readonly body: string | Uint8Array;
}

/** The body's size on the wire. */
export function bodyBytes(body: string | Uint8Array): number {
  return typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.byteLength;
}

/** Prepares the answer; a malformed one (bad header name or value) becomes onError's answer. */
export function prepareOrError(opts: BackendOptions, res: HttpResponse): Prepared {
  try {
    return prepare(res);
  } catch (err) {
    try {
      return prepare(errorResponse(opts, err));
    } catch {
      return prepare(FALLBACK_500);
    }
  }
}

/** Throws on header names or values that would be invalid on the wire (CR/LF injection). */
export function prepare(res: HttpResponse): Prepared {
  const status = Number.isInteger(res.status) && res.status >= 100 && res.status <= 999 ? res.status : 500;
  const headers: Array<[string, string]> = [];
  if (res.headers) {
    for (const [k, v] of Object.entries(res.headers)) {
      const lower = k.toLowerCase();
      if (lower === 'content-length' || lower === 'transfer-encoding' || lower === 'connection') continue;
      validateHeaderName(k);
      validateHeaderValue(k, v);
      headers.push([k, v]);
    }
  }
  const body = res.body ?? EMPTY;
  return { status, statusLine: `${status} ${STATUS_CODES[status] ?? 'Unknown'}`, headers, body };
}

const FALLBACK_500: HttpResponse = {
  status: 500,
  headers: { 'content-type': 'application/json' },
  body: '{"type":"server_error","code":"internal_error","detail":"internal error","attr":null}',
};

/** Maps a thrown error through onError; if onError itself throws, a fixed 500. */
function errorResponse(opts: BackendOptions, err: unknown): HttpResponse {
  try {
    return opts.onError(err);
  } catch {
    return FALLBACK_500;
  }
}

/**
 * Runs the handler and hands its answer to `send`, synchronously when the handler is
 * synchronous (no microtask on the hot path), otherwise when its promise settles.
 * `send` must not throw (a throw from the async path would be an unhandled rejection).
 */
export function runHandler(opts: BackendOptions, req: HttpRequest, send: (res: HttpResponse) => void): void {
  deliver(opts, () => opts.handler(req), send);
}

/** Calls tooLarge with the error fallback and hands its answer to `send` (as `runHandler` does). */
export function runTooLarge(opts: BackendOptions, req: Omit<HttpRequest, 'body'>, send: (res: HttpResponse) => void): void {
  deliver(opts, () => opts.tooLarge(req), send);
}

/** Hands `produce`'s answer, or onError's for what it throws or rejects with, to `send`. */
function deliver(opts: BackendOptions, produce: () => Promise<HttpResponse> | HttpResponse, send: (res: HttpResponse) => void): void {
  let out: Promise<HttpResponse> | HttpResponse;
  try {
    out = produce();
  } catch (err) {
    send(errorResponse(opts, err));
    return;
  }
  if (out instanceof Promise) {
    out.then(
      (res) => send(checked(opts, res)),
      (err: unknown) => send(errorResponse(opts, err)),
    );
  } else {
    send(checked(opts, out));
  }
}

/** A handler that breaks its type (returns no object with a numeric status) goes through onError. */
function checked(opts: BackendOptions, res: HttpResponse): HttpResponse {
  if (typeof res === 'object' && res !== null && typeof res.status === 'number') return res;
  return errorResponse(opts, new TypeError('handler returned no HttpResponse'));
}

/** A header's value from a flat [name, value, …] list of lower-case names; '' when absent. */
export function headerFromList(list: readonly string[], name: string): string {
  for (let i = 0; i < list.length; i += 2) if (list[i] === name) return list[i + 1] as string;
  return '';
}

/**
 * First X-Forwarded-For hop, else the peer address. `peer` is asked only when the header names
 * no hop: with uWS, finding the peer is a system call per request (getpeername), which a daemon
 * behind a proxy need not make.
 */
export function clientIp(forwardedFor: string, peer: () => string): string {
  if (forwardedFor !== '') {
    const comma = forwardedFor.indexOf(',');
    const first = (comma === -1 ? forwardedFor : forwardedFor.slice(0, comma)).trim();
    if (first !== '') return first;
  }
  return peer();
}

/** Formats a 4- or 16-byte address; IPv4-mapped IPv6 becomes dotted IPv4, IPv6 uses RFC 5952 form. */
export function formatIp(b: Uint8Array): string {
  if (b.length === 4) return `${b[0]}.${b[1]}.${b[2]}.${b[3]}`;
  if (b.length !== 16) return '';
  let mapped = b[10] === 0xff && b[11] === 0xff;
  for (let i = 0; i < 10 && mapped; i++) if (b[i] !== 0) mapped = false;
  if (mapped) return `${b[12]}.${b[13]}.${b[14]}.${b[15]}`;
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((b[i] ?? 0) << 8) | (b[i + 1] ?? 0));
  let bestStart = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) [bestStart, bestLen] = [i, j - i];
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart === -1) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

/** Node reports IPv4 peers of a dual-stack socket as `::ffff:a.b.c.d`; show them as IPv4. */
export function normalizePeer(address: string | undefined): string {
  if (address === undefined) return '';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

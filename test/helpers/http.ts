/**
 * Raw HTTP helpers for the integration suite: send capture requests exactly as built (fetch),
 * read events back through the personal-key events API, and build payloads.
 */

import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import type { DaemonHandle } from './daemon.js';

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

export interface SendOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  signal?: AbortSignal;
}

/** Sends one request to `path` (which may carry a query string) and reads the whole answer. */
export async function send(d: Pick<DaemonHandle, 'baseUrl'>, path: string, opts: SendOptions = {}): Promise<Reply> {
  const res = await fetch(d.baseUrl + path, {
    method: opts.method ?? (opts.body === undefined ? 'GET' : 'POST'),
    headers: opts.headers ?? {},
    // Buffers are valid fetch bodies; TypeScript's BodyInit does not list Uint8Array<ArrayBufferLike>.
    ...(opts.body !== undefined ? { body: opts.body as NonNullable<RequestInit['body']> } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** POSTs a JSON value with `Content-Type: application/json`. */
export function postJson(
  d: Pick<DaemonHandle, 'baseUrl'>,
  path: string,
  value: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  return send(d, path, { body: JSON.stringify(value), headers: { 'content-type': 'application/json', ...headers } });
}

export interface ConnectionAnswer {
  status: number;
  text: string;
  headers: http.IncomingHttpHeaders;
}

/**
 * One request on a connection of its own, to 127.0.0.1:`port` (so that requests spread over a
 * uWS daemon's listening threads, which fetch's pooled connections would not).
 */
export function onNewConnection(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string | Uint8Array,
): Promise<ConnectionAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path, method, agent: false, headers: { ...headers, connection: 'close' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString(), headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export const OK = { status: 1 } as const;

/** The PostHog error body the daemon sends. */
export function errorBody(type: string, code: string, detail: string, attr: string | null = null) {
  return { type, code, detail, attr };
}

export interface ApiEvent {
  id: string;
  event: string;
  distinct_id: string;
  properties: Record<string, unknown>;
  timestamp: string;
  created_at: string;
  [k: string]: unknown;
}

export interface ApiPage {
  next: string | null;
  results: ApiEvent[];
}

/** One page of `GET /api/projects/:project/events/`. */
export async function listEvents(
  d: Pick<DaemonHandle, 'baseUrl' | 'personalKey'>,
  query: Record<string, string> = {},
  opts: { key?: string; project?: string | number } = {},
): Promise<ApiPage> {
  const qs = new URLSearchParams(query).toString();
  const url = `${d.baseUrl}/api/projects/${opts.project ?? 1}/events/${qs ? `?${qs}` : ''}`;
  return getPage(url, opts.key ?? d.personalKey);
}

async function getPage(url: string, key: string): Promise<ApiPage> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET ${url} -> ${res.status}: ${text}`);
  return JSON.parse(text) as ApiPage;
}

/** Every matching event, following `next` until it is null (newest first). */
export async function listAllEvents(
  d: Pick<DaemonHandle, 'baseUrl' | 'personalKey'>,
  query: Record<string, string> = {},
  opts: { key?: string; project?: string | number } = {},
): Promise<ApiEvent[]> {
  let page = await listEvents(d, { limit: '1000', ...query }, opts);
  const out = [...page.results];
  while (page.next !== null) {
    page = await getPage(page.next, opts.key ?? d.personalKey);
    out.push(...page.results);
  }
  return out;
}

/** Every stored event of one distinct_id, oldest first. */
export async function eventsOf(
  d: Pick<DaemonHandle, 'baseUrl' | 'personalKey'>,
  distinctId: string,
  project: string | number = 1,
): Promise<ApiEvent[]> {
  return (await listAllEvents(d, { distinct_id: distinctId }, { project })).reverse();
}

/** A distinct_id no other test uses. */
export function uniqueId(label = 'user'): string {
  return `${label}-${randomUUID()}`;
}

export const gzip = (s: string | Uint8Array): Buffer => gzipSync(typeof s === 'string' ? Buffer.from(s) : s);
export const b64 = (s: string | Uint8Array): string => Buffer.from(s).toString('base64');

/** Waits until the person processor has applied every event committed so far (never a sleep). */
export async function waitForPersons(d: Pick<DaemonHandle, 'baseUrl'>, timeoutMs = 15_000): Promise<void> {
  const r = await send(d, `/_persons/caught_up?timeout_ms=${timeoutMs}`);
  if (r.status !== 200) throw new Error(`the person processor did not catch up within ${timeoutMs} ms: ${r.text}`);
}

/** The value of one sample in Prometheus text; labels must match exactly (in any order). */
export function metricSample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) got[k!] = v!;
    if (JSON.stringify(Object.entries(got).sort()) === JSON.stringify(Object.entries(labels).sort())) return Number(m[3]);
  }
  return undefined;
}

/**
 * The access log: one `debug` line per answered request, written by the thread that answered it
 * (an HTTP front-end thread for `/flags`, `/decide` and flag definitions; the main thread for the
 * rest, and for everything on node:http). A line names the request (method, and path without its
 * query string, which can carry a key), its answer (status, body bytes), its duration, its body
 * size and, when the handler learned it, its project; never a header, a key or a body. At a level
 * above `debug` a request costs one comparison: callers test `enabled` first.
 *
 * Lines have the daemon's log format (observability/logger.ts: pino's fields and order) but are
 * made here, as one template string, and written at the end of each event-loop turn, several per
 * write: through pino, with a write per line, a line cost ~9 µs of the thread that answered,
 * against ~1 µs now (measured 2026-11-28, docs/operations.md#logs).
 */
import { pino } from 'pino';
import type { LogLevel } from '../config/schema.js';
import { type LineSink, TurnBatchedLines } from '../observability/turn-batched-lines.js';
import { bodyBytes } from './backend-common.js';
import type { HttpRequest, HttpResponse } from './types.js';

/** Paths longer than this are cut in the log, so a line stays short. */
const MAX_PATH_CHARS = 512;

export class AccessLog {
  /** Whether lines are written at the daemon's level now; test it before calling `write`. */
  enabled = false;
  private readonly lines: TurnBatchedLines;
  /** The time of the last line, kept while the millisecond lasts (toISOString was most of a line's cost). */
  private timeMs = 0;
  private timeText = '';

  /** `out`: where the lines go, by default a synchronous stdout, as the daemon's logger's. */
  constructor(out: LineSink = pino.destination({ dest: 1, sync: true })) {
    this.lines = new TurnBatchedLines(out);
  }

  /** The daemon's log level, at start and after each change: lines are written at `debug` and `trace`. */
  setLevel(level: LogLevel): void {
    this.enabled = level === 'debug' || level === 'trace';
  }

  /**
   * One line for an answered request that took `ms`. `requestBytes`: its body's size, undefined
   * when it was not read (a body over the cap, whose declared length is given when there is one).
   */
  write(req: Omit<HttpRequest, 'body'>, requestBytes: number | undefined, res: HttpResponse, ms: number): void {
    const project = res.projectId === undefined ? '' : `,"project_id":${res.projectId}`;
    const received = requestBytes === undefined ? '' : `,"request_bytes":${requestBytes}`;
    // The body as sent: none for HEAD, whatever the handler put in it.
    const sent = req.method === 'HEAD' || res.body === undefined ? 0 : bodyBytes(res.body);
    this.lines.write(
      `{"level":"debug","time":"${this.time()}","pid":${process.pid},"method":${JSON.stringify(req.method)},` +
        `"path":${JSON.stringify(loggedPath(req.path))},"status":${res.status},"duration_ms":${Math.round(ms * 1000) / 1000}` +
        `${project}${received},"response_bytes":${sent},"msg":"request"}\n`,
    );
  }

  private time(): string {
    const now = Date.now();
    if (now !== this.timeMs) {
      this.timeMs = now;
      this.timeText = new Date(now).toISOString();
    }
    return this.timeText;
  }
}

/**
 * The path as logged. posthog-js's remote config puts the project key in the path
 * (`/array/<key>/config.js`): everything under `/array/` has that segment replaced. A path past
 * MAX_PATH_CHARS is cut there.
 */
export function loggedPath(path: string): string {
  let out = path;
  if (out.startsWith('/array/')) {
    const next = out.indexOf('/', '/array/'.length);
    out = `/array/[key]${next === -1 ? '' : out.slice(next)}`;
  }
  return out.length > MAX_PATH_CHARS ? `${out.slice(0, MAX_PATH_CHARS)}…` : out;
}

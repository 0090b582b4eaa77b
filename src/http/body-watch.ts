/**
 * Watches request bodies while they arrive: a body that has not advanced for `idleMs`, or that
 * has taken longer than `totalMs` in all, is given up (`onExpired`: the backend answers 408 and
 * closes). One sweep a second serves every request in flight, so a request whose body arrives in
 * one read costs a Set insertion and deletion, and a slow one a clock read per chunk.
 *
 * `onAlive` runs for each body still within its limits once every `aliveEveryMs`: the uWS backend
 * re-arms uWS's own fixed timer there, which would otherwise cut any upload slower than 16 KB/s
 * after 8–12 s (uNetworking/uWebSockets src/HttpContext.h, HTTP_RECEIVE_THROUGHPUT_BYTES).
 */

export interface WatchedBody {
  /** When the request head was read (ms, `now()`'s clock). */
  startedAt: number;
  /** When the last body bytes arrived. */
  lastDataAt: number;
  /** When `onAlive` last ran for it. */
  aliveAt: number;
}

export interface BodyWatchOptions<T extends WatchedBody> {
  idleMs: number;
  totalMs: number;
  onExpired: (body: T, reason: 'idle' | 'total') => void;
  onAlive?: (body: T) => void;
  aliveEveryMs?: number;
  now?: () => number;
}

const SWEEP_MS = 1000;

export class BodyWatch<T extends WatchedBody> {
  private readonly bodies = new Set<T>();
  private timer: NodeJS.Timeout | undefined;
  private readonly now: () => number;
  private readonly sweepMs: number;

  constructor(private readonly opts: BodyWatchOptions<T>) {
    this.now = opts.now ?? Date.now;
    // Sweep at least four times per idle period, so a stall is cut within a quarter of it late.
    this.sweepMs = Math.max(50, Math.min(SWEEP_MS, Math.floor(opts.idleMs / 4)));
  }

  /** The current time on the watch's clock (for `startedAt`, `lastDataAt`). */
  time(): number {
    return this.now();
  }

  get size(): number {
    return this.bodies.size;
  }

  add(body: T): void {
    this.bodies.add(body);
    // The sweep runs only while some body is watched; unref'd, it never keeps a process alive.
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.sweep(), this.sweepMs);
      this.timer.unref();
    }
  }

  delete(body: T): void {
    this.bodies.delete(body);
  }

  /** Stops the sweep (the backend is closing). */
  close(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.bodies.clear();
  }

  /** Exposed for tests: what one tick of the sweep does. */
  sweep(): void {
    const now = this.now();
    const { idleMs, totalMs, onExpired, onAlive } = this.opts;
    const aliveEvery = this.opts.aliveEveryMs ?? 0;
    for (const body of this.bodies) {
      if (now - body.lastDataAt >= idleMs || now - body.startedAt >= totalMs) {
        this.bodies.delete(body);
        onExpired(body, now - body.startedAt >= totalMs ? 'total' : 'idle');
      } else if (onAlive !== undefined && now - body.aliveAt >= aliveEvery) {
        body.aliveAt = now;
        onAlive(body);
      }
    }
    if (this.bodies.size === 0 && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}

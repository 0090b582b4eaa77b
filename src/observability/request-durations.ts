/**
 * Request durations by route and method, kept as histogram bucket counts in plain arrays: an
 * observation is a few comparisons and an increment, with no label hashing (prom-client's
 * `observe` builds a key string from its labels on every call). The HTTP front-end threads keep
 * one for the requests they answer themselves (a `/flags` request there costs tens of
 * microseconds, so the tally must cost next to nothing) and hand its counts to the main thread,
 * which adds them to its own; request-duration-metric.ts renders that as a Prometheus histogram.
 */

/**
 * Upper bounds in seconds, from a `/flags` or `/flags/definitions` answer (~0.1–1 ms) through a
 * durable capture (a few ms: the commit's fsync) to the slowest management reads and the
 * `/flags` time budget (2 s by default).
 */
export const REQUEST_DURATION_BUCKETS: readonly number[] = Object.freeze([
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
]);

/**
 * One route and method's observations, plain data that crosses threads: how many fell in each
 * bucket (not cumulative; one more entry than there are bounds, for those past every bound) and
 * their sum in seconds.
 */
export type DurationSeries = [route: string, method: string, counts: number[], sumSeconds: number];

interface Series {
  readonly counts: number[];
  sum: number;
}

const BOUNDS = REQUEST_DURATION_BUCKETS;

export class DurationTally {
  private byRoute = new Map<string, Map<string, Series>>();

  observe(route: string, method: string, seconds: number): void {
    const s = this.series(route, method);
    let i = 0;
    while (i < BOUNDS.length && seconds > (BOUNDS[i] as number)) i++;
    (s.counts[i] as number)++;
    s.sum += seconds;
  }

  /** Adds observations made elsewhere (a front-end thread's `take`). */
  add(all: readonly DurationSeries[]): void {
    for (const [route, method, counts, sum] of all) {
      const s = this.series(route, method);
      // Only as many buckets as this side has: counts from another thread are data, not trusted shape.
      for (let i = 0; i < s.counts.length; i++) (s.counts[i] as number) += counts[i] ?? 0;
      s.sum += sum;
    }
  }

  get empty(): boolean {
    return this.byRoute.size === 0;
  }

  /** Everything observed so far; the tally starts again empty (a thread's report to the main thread). */
  take(): DurationSeries[] {
    const out = this.all();
    this.byRoute = new Map();
    return out;
  }

  /** Everything observed so far, kept. */
  all(): DurationSeries[] {
    const out: DurationSeries[] = [];
    for (const [route, byMethod] of this.byRoute) {
      for (const [method, s] of byMethod) out.push([route, method, s.counts, s.sum]);
    }
    return out;
  }

  private series(route: string, method: string): Series {
    let byMethod = this.byRoute.get(route);
    if (byMethod === undefined) this.byRoute.set(route, (byMethod = new Map()));
    let s = byMethod.get(method);
    if (s === undefined) byMethod.set(method, (s = { counts: new Array<number>(BOUNDS.length + 1).fill(0), sum: 0 }));
    return s;
  }
}

/**
 * Milliseconds on the process's monotonic clock, comparable between threads. `performance.now()`
 * counts from each thread's own start, so a time taken in an HTTP front-end thread means nothing
 * on the main thread; both count on libuv's monotonic clock (`process.hrtime`), so this thread's
 * offset from it is taken once and added. One fast call per reading, no allocation (hrtime's
 * bigint or array would allocate).
 */
const OFFSET_MS = Number(process.hrtime.bigint()) / 1e6 - performance.now();

export function monotonicMs(): number {
  return performance.now() + OFFSET_MS;
}

/**
 * Milliseconds on the process's monotonic clock, comparable between threads: a request's head is
 * read in an HTTP front-end thread and its answer may be made on the main thread. Node 20's
 * `performance.now()` counts from the process's start in every thread, but the web's rule (which
 * Node has discussed following: nodejs/node#50492) gives each worker its own origin; both count
 * on libuv's monotonic clock (`process.hrtime`), so this thread's offset from it is taken once
 * and added, and durations across threads stay right either way. One fast call per reading and
 * no allocation (hrtime's bigint or array would allocate).
 */
const OFFSET_MS = offsetFromHrtime();

export function monotonicMs(): number {
  return performance.now() + OFFSET_MS;
}

/**
 * hrtime minus performance.now(), from the closest of a few pairs of readings: a thread
 * descheduled between the two readings of one pair (a busy machine) would otherwise put its
 * pause into every duration measured across threads.
 */
function offsetFromHrtime(): number {
  let window = Infinity;
  let offset = 0;
  for (let i = 0; i < 8; i++) {
    const before = performance.now();
    const hr = Number(process.hrtime.bigint()) / 1e6;
    const after = performance.now();
    if (after - before < window) {
      window = after - before;
      offset = hr - (before + after) / 2;
    }
  }
  return offset;
}

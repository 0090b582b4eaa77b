/** Event-log keys `[ingest µs, writer id, counter]` (event-log.ts), compared. Pure. */
import type { EventKey } from './open-store.js';

/** Orders event-log keys (ingest µs, writer id, counter). */
export function compareEventKeys(a: EventKey, b: EventKey): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/**
 * The free-space reserve (`HEDGEROW_MIN_FREE_DISK_BYTES`): writes that grow the store are refused
 * while the data directory's filesystem has less free space than the reserve, before they reach
 * LMDB. Hedgerow's own growth then stops while there is still room, so LMDB's page writes do not
 * fail outright for lack of space: lmdb-js 3.5.6 can damage the process's heap when one does
 * (docs/decisions.md, "A free-space reserve keeps LMDB's writes from failing").
 *
 * Capture's event-log commits keep the whole reserve free. Management writes (rare, small) may
 * use its upper half, so that a flag can still be changed while capture waits; the person
 * processor is not held (its writes follow events already acknowledged, bounded by the backlog
 * limit), nor are the flag requests' hash-key overrides (a few bytes per person and flag).
 */
import { statfsSync } from 'node:fs';

/** Which writes ask: capture keeps the whole reserve free, management writes half of it. */
export type ReserveUser = 'capture' | 'management';

/** Why a write of `user` must wait with `freeBytes` free, or undefined; a reserve of 0 never refuses. */
export function reserveShortfall(freeBytes: number, minFreeBytes: number, user: ReserveUser = 'capture'): string | undefined {
  const keep = user === 'capture' ? minFreeBytes : Math.floor(minFreeBytes / 2);
  if (keep <= 0 || freeBytes >= keep) return undefined;
  const setting = user === 'capture' ? 'HEDGEROW_MIN_FREE_DISK_BYTES' : 'half of HEDGEROW_MIN_FREE_DISK_BYTES';
  return `the data directory's disk has ${freeBytes} bytes free, less than ${setting} (${keep})`;
}

/** Free bytes for an unprivileged writer on the filesystem that holds `dir`. */
function freeBytesOf(dir: string): number {
  const s = statfsSync(dir);
  return s.bavail * s.bsize;
}

export interface DiskReserveOptions {
  dir: string;
  minFreeBytes: number;
  freeBytes?: (dir: string) => number;
  now?: () => number;
}

export class DiskReserve {
  private free = Infinity;
  private lookedAt = -Infinity;

  constructor(private readonly opts: DiskReserveOptions) {}

  /**
   * Why a write of `user` must wait now, or undefined, from a look at the disk at most `maxAgeMs`
   * old (a `statfs` takes ~8 µs); when `statfs` fails the last look stands (before any, the
   * write is not held).
   */
  shortfall(user: ReserveUser = 'capture', maxAgeMs = 100): string | undefined {
    if (this.opts.minFreeBytes <= 0) return undefined;
    // A monotonic clock: a wall clock stepped back would freeze the last look.
    const now = (this.opts.now ?? performance.now.bind(performance))();
    if (now - this.lookedAt >= maxAgeMs || now < this.lookedAt) {
      try {
        this.free = (this.opts.freeBytes ?? freeBytesOf)(this.opts.dir);
      } catch {
        // A filesystem that cannot say keeps the last look (none yet: not held against writes).
      }
      this.lookedAt = now;
    }
    return reserveShortfall(this.free, this.opts.minFreeBytes, user);
  }
}

/**
 * Gives a thread's memory back once a task has left a large heap behind. V8 collects the old
 * generation only when it allocates past a limit, which the large allocation itself raised: a
 * worker that decoded and parsed a 100 MiB payload and then idles, or handles small requests,
 * kept those hundreds of MB resident indefinitely (measured: 4 such requests left the daemon
 * ~700 MB above its baseline for as long as it was watched). A full collection right after such
 * a task frees them: the large strings and buffers live in their own mappings, unmapped when
 * collected. It waits until the thread has been idle for a moment, so that no task waits behind
 * the collection's pause (tens of ms); a thread kept busy collects as it allocates anyway.
 *
 * `--expose-gc` is set at run time and `gc` taken from a fresh context (only contexts created
 * after the flag carry it); where that is not possible, `collect` is absent and nothing is done.
 */
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { performance } from 'node:perf_hooks';
import { runInNewContext } from 'node:vm';

export interface HeapReleaseOptions {
  /** Growth over the heap measured after the last collection that calls for one. */
  growthBytes: number;
  /** The collection runs once no task has ended for this long. */
  idleMs: number;
  /** At most one collection per this many ms; one due earlier waits for the rest of the interval. */
  minIntervalMs: number;
  /** Test seam: the heap's size now (V8 heap plus memory held outside it by its objects). */
  heapBytes?: () => number;
  /** Test seam: a full collection. */
  collect?: () => void;
}

export interface HeapRelease {
  /** Call after each task: when the heap grew, (re)schedules a collection for when the thread is idle. */
  afterTask(): void;
  /** Collections done so far. */
  readonly collections: number;
}

export function heapRelease(opts: HeapReleaseOptions): HeapRelease {
  const heapBytes = opts.heapBytes ?? currentHeapBytes;
  const collect = opts.collect ?? exposedGc();
  let baseline = heapBytes();
  let lastAt = -Infinity;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let collections = 0;

  function run(): void {
    timer = undefined;
    collect?.();
    collections++;
    lastAt = performance.now();
    baseline = heapBytes();
  }

  return {
    afterTask() {
      if (collect === undefined) return;
      if (timer === undefined && heapBytes() - baseline < opts.growthBytes) return;
      clearTimeout(timer);
      const wait = Math.max(opts.idleMs, lastAt + opts.minIntervalMs - performance.now());
      timer = setTimeout(run, wait);
      timer.unref?.();
    },
    get collections() {
      return collections;
    },
  };
}

export interface QuietCollectionOptions {
  /** How often the thread's event loop is looked at. */
  everyMs: number;
  /** A look that found the loop busy less than this share of the time finds the thread quiet. */
  quietUtilization: number;
  /** Growth of the heap since the last collection that calls for one. */
  growthBytes: number;
}

/**
 * Every thread of the daemon: once the thread is quiet (its event loop almost idle for a whole
 * look), a full collection if its heap grew since the last one. What start-up or a load left
 * behind is otherwise kept until the thread next allocates enough to collect: an idle daemon held
 * 14–34 MiB more without it (docs/decisions.md#quiet-threads-collect-their-garbage). At most one
 * collection per quiet spell; a busy thread collects as it allocates anyway.
 */
export function collectWhenQuiet(opts: QuietCollectionOptions): void {
  const collect = exposedGc();
  if (collect === undefined) return;
  let baseline = 0; // the first quiet look collects what start-up left
  let last = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    if (busy >= opts.quietUtilization || currentHeapBytes() - baseline < opts.growthBytes) return;
    collect();
    baseline = currentHeapBytes();
  }, opts.everyMs);
  timer.unref();
}

/** The daemon's threads look every 10 s; quiet is under 1% busy; 4 MiB of growth is worth a collection. */
export const QUIET_COLLECTION: QuietCollectionOptions = { everyMs: 10_000, quietUtilization: 0.01, growthBytes: 4 * 1024 * 1024 };

function currentHeapBytes(): number {
  const h = getHeapStatistics();
  return h.total_heap_size + h.external_memory;
}

/** This thread's `gc`, found once: null where it cannot be had. */
let threadGc: (() => void) | null | undefined;

function exposedGc(): (() => void) | undefined {
  if (threadGc === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      const gc: unknown = runInNewContext('gc');
      threadGc = typeof gc === 'function' ? (gc as () => void) : null;
    } catch {
      threadGc = null;
    }
  }
  return threadGc ?? undefined;
}

/**
 * CPU time and V8 heap per thread of the daemon (Linux). `top -H` lists every thread as "node";
 * here each thread the daemon starts announces its role and OS thread id on a BroadcastChannel,
 * and the main thread reads their user + system time from /proc/self/task/<tid>/stat when
 * /metrics is scraped. What no named thread accounts for (V8's GC helpers, libuv's and lmdb-js's
 * threads, threads that ended) is `other`. Each announced thread also reports the size of its V8
 * heap every HEAP_REPORT_EVERY_MS, so that the process's memory can be told apart by thread. Where
 * /proc is missing nothing is announced or read.
 */
import { readFileSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';
import { BroadcastChannel } from 'node:worker_threads';
import { osThreadId } from '../util/os-thread-id.js';
import { cpuTicks, statFields, TICKS_PER_SECOND } from '../util/proc-stat.js';

const CHANNEL = 'hedgerow:threads';
const HEAPS_CHANNEL = 'hedgerow:thread-heaps';
/** How often each announced thread reports its heap's size (as often as quiet threads look to collect). */
export const HEAP_REPORT_EVERY_MS = 10_000;

export type ThreadRole = 'http' | 'pool' | 'person-processor';
const ROLES: ReadonlySet<string> = new Set<ThreadRole>(['http', 'pool', 'person-processor']);

function threadIdIfKnown(): number | undefined {
  try {
    return osThreadId();
  } catch {
    return undefined;
  }
}

/** Called once by each thread the daemon starts, first thing. */
export function announceThread(role: ThreadRole): void {
  const tid = threadIdIfKnown();
  if (tid === undefined) return;
  const channel = new BroadcastChannel(CHANNEL);
  channel.postMessage({ role, tid });
  channel.close();
  reportHeap(tid);
  setInterval(() => reportHeap(tid), HEAP_REPORT_EVERY_MS).unref();
}

/**
 * The size of this thread's V8 heap (the pages its isolate holds), sent on a channel opened for
 * the one message: an open channel would wake this thread for every other thread's reports.
 */
function reportHeap(tid: number): void {
  const channel = new BroadcastChannel(HEAPS_CHANNEL);
  channel.postMessage({ tid, bytes: getHeapStatistics().total_heap_size });
  channel.close();
}

export interface ThreadHeap {
  thread: string;
  bytes: number;
}

export interface ThreadSample {
  /** `main`, `http-1`, `pool-2`, `person-processor-1`, … or `other`. */
  thread: string;
  /** The OS thread id; undefined for `other`. */
  tid: number | undefined;
  seconds: number;
}

/** User + system ticks of the stat file at `path`. */
function statTicks(path: string): number | undefined {
  try {
    return cpuTicks(statFields(readFileSync(path, 'utf8')));
  } catch {
    return undefined; // the thread ended, or no /proc
  }
}

/** Names the daemon's threads as they announce themselves; lives on the main thread. */
export class ThreadCpu {
  /** tid → name; the main thread's is known at once. */
  private readonly names = new Map<number, string>();
  private readonly channel = new BroadcastChannel(CHANNEL);
  /** tid → the heap size it last reported. */
  private readonly heapBytes = new Map<number, number>();
  private readonly heapsChannel = new BroadcastChannel(HEAPS_CHANNEL);

  /** Must exist before the threads start: announcements made before it are not kept. */
  constructor(onThread?: (thread: string, tid: number) => void) {
    const main = threadIdIfKnown();
    if (main !== undefined) this.names.set(main, 'main');
    this.channel.onmessage = (e: unknown) => {
      const m = (e as { data?: unknown }).data as { role?: unknown; tid?: unknown } | undefined;
      if (typeof m?.role !== 'string' || !ROLES.has(m.role) || typeof m.tid !== 'number' || this.names.get(m.tid) === 'main') return;
      // A thread's id may be one an ended thread had: the new thread's name replaces the old one.
      this.names.delete(m.tid);
      const thread = `${m.role}-${this.freeNumber(m.role)}`;
      this.names.set(m.tid, thread);
      onThread?.(thread, m.tid);
    };
    this.heapsChannel.onmessage = (e: unknown) => {
      const m = (e as { data?: unknown }).data as { tid?: unknown; bytes?: unknown } | undefined;
      if (typeof m?.tid === 'number' && typeof m.bytes === 'number') this.heapBytes.set(m.tid, m.bytes);
    };
    // Never what keeps the daemon running.
    this.channel.unref();
    this.heapsChannel.unref();
  }

  /**
   * The lowest number no running thread of `role` has: a thread started again in place of one that
   * ended (the pool's, after an idle spell) takes its name, so that names stay few.
   */
  private freeNumber(role: string): number {
    const taken = new Set<string>();
    for (const [tid, thread] of this.names) {
      if (statTicks(`/proc/self/task/${tid}/stat`) === undefined) this.names.delete(tid);
      else taken.add(thread);
    }
    let n = 1;
    while (taken.has(`${role}-${n}`)) n++;
    return n;
  }

  /** CPU seconds of each named thread still running, and `other` for the rest of the process. */
  sample(): ThreadSample[] {
    const total = statTicks('/proc/self/stat');
    if (total === undefined) return [];
    const out: ThreadSample[] = [];
    let named = 0;
    for (const [tid, thread] of this.names) {
      const ticks = statTicks(`/proc/self/task/${tid}/stat`);
      if (ticks === undefined) {
        this.names.delete(tid); // ended: its time stays in the process total, so in `other`
        continue;
      }
      named += ticks;
      out.push({ thread, tid, seconds: ticks / TICKS_PER_SECOND });
    }
    out.push({ thread: 'other', tid: undefined, seconds: Math.max(0, total - named) / TICKS_PER_SECOND });
    return out;
  }

  /** The V8 heap of each named thread still running: the main thread's now, the others' as last reported. */
  heaps(): ThreadHeap[] {
    const out: ThreadHeap[] = [];
    for (const [tid, thread] of this.names) {
      const bytes = thread === 'main' ? getHeapStatistics().total_heap_size : this.heapBytes.get(tid);
      if (bytes !== undefined && statTicks(`/proc/self/task/${tid}/stat`) !== undefined) out.push({ thread, bytes });
    }
    for (const tid of this.heapBytes.keys()) if (!this.names.has(tid)) this.heapBytes.delete(tid);
    return out;
  }

  close(): void {
    this.channel.close();
    this.heapsChannel.close();
  }
}

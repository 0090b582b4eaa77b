/**
 * CPU time per thread of the daemon (Linux). `top -H` lists every thread as "node"; here each
 * thread the daemon starts announces its role and OS thread id on a BroadcastChannel, and the
 * main thread reads their user + system time from /proc/self/task/<tid>/stat when /metrics is
 * scraped. What no named thread accounts for (V8's GC helpers, libuv's and lmdb-js's threads,
 * threads that ended) is `other`. Where /proc is missing nothing is announced or read.
 */
import { readFileSync } from 'node:fs';
import { BroadcastChannel } from 'node:worker_threads';
import { osThreadId } from '../util/os-thread-id.js';
import { cpuTicks, statFields, TICKS_PER_SECOND } from '../util/proc-stat.js';

const CHANNEL = 'hedgerow:threads';

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
    // Never what keeps the daemon running.
    this.channel.unref();
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

  close(): void {
    this.channel.close();
  }
}

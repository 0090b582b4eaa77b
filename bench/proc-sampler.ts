/**
 * CPU and memory of processes from /proc (Linux): per-thread utime+stime deltas while a load
 * runs, the machine's idle share over the same window, and VmRSS/VmHWM. This is how the runner
 * tells "the server was saturated" from "the load generator or an idle core was the limit".
 */
import { readFileSync, readdirSync } from 'node:fs';
import { cpus } from 'node:os';
import { cpuTicks, statFields, TICKS_PER_SECOND } from '../src/util/proc-stat.js';

interface Snapshot {
  atMs: number;
  /** Whole process, including threads that already exited (their ticks leave the task list). */
  process: number;
  /** tid → CPU ticks (user + system). */
  threads: Map<number, number>;
}

export interface CpuUsage {
  /** Whole process, in % of one core (200 = two cores busy). */
  total: number;
  /** The thread whose id is the pid: Node's main thread (the uWS event loop). */
  main: number;
  /** The busiest other threads, highest first, in % of one core. */
  busiestOthers: number[];
  /** Every thread seen at both ends of the window, by OS thread id, in % of one core. */
  byThread: Record<string, number>;
}

/** CPU ticks (user + system) of the process and of each live thread; undefined once it exited. */
function ticks(pid: number): Omit<Snapshot, 'atMs'> | undefined {
  try {
    const f = statFields(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    // A zombie (exited, not yet reaped) has lost its threads' ticks: keep the previous sample.
    if (f[0] === 'Z' || f[0] === 'X') return undefined;
    const threads = new Map<number, number>();
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const t = statFields(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'));
        threads.set(Number(tid), cpuTicks(t));
      } catch {
        // the thread ended between readdir and read
      }
    }
    return { process: cpuTicks(f), threads };
  } catch {
    return undefined; // exited
  }
}

function machineTicks(): { idle: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] as string;
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  const total = v.slice(0, 8).reduce((a, b) => a + b, 0); // guest time is already in user
  return { idle: (v[3] ?? 0) + (v[4] ?? 0), total };
}

/**
 * Samples processes every `intervalMs` from `start()` to `stop()`. Processes that exit during
 * the window (wrk) keep their last sample, so their usage covers nearly the whole window.
 */
export class CpuSampler {
  private readonly first = new Map<number, Snapshot>();
  private readonly last = new Map<number, Snapshot>();
  private machineStart = machineTicks();
  private machineEnd = this.machineStart;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly pids: () => number[],
    private readonly intervalMs = 250,
  ) {}

  start(): void {
    this.machineStart = machineTicks();
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.sample();
    this.machineEnd = machineTicks();
  }

  /** % of all cores that were idle during the window. */
  machineIdle(): number {
    const total = this.machineEnd.total - this.machineStart.total;
    return total > 0 ? (100 * (this.machineEnd.idle - this.machineStart.idle)) / total : 0;
  }

  /** CPU used by the whole machine during the window, in % of one core (like `usage`). */
  machineBusy(): number {
    const total = this.machineEnd.total - this.machineStart.total;
    const busy = total - (this.machineEnd.idle - this.machineStart.idle);
    return total > 0 ? (100 * busy * cpus().length) / total : 0;
  }

  usage(pid: number): CpuUsage | undefined {
    const a = this.first.get(pid);
    const b = this.last.get(pid);
    if (!a || !b || b.atMs <= a.atMs) return undefined;
    const seconds = (b.atMs - a.atMs) / 1000;
    const pct = (ticks: number) => (100 * ticks) / TICKS_PER_SECOND / seconds;
    let main = 0;
    const others: number[] = [];
    const byThread: Record<string, number> = {};
    for (const [tid, end] of b.threads) {
      const d = pct(end - (a.threads.get(tid) ?? 0));
      byThread[String(tid)] = d;
      if (tid === pid) main = d;
      else others.push(d);
    }
    return { total: pct(b.process - a.process), main, busiestOthers: others.sort((x, y) => y - x).slice(0, 3), byThread };
  }

  private sample(): void {
    const atMs = performance.now();
    for (const pid of this.pids()) {
      const t = ticks(pid);
      if (t === undefined) continue;
      const snap = { atMs, ...t };
      if (!this.first.has(pid)) this.first.set(pid, snap);
      this.last.set(pid, snap);
    }
  }
}

export interface Memory {
  rssMiB: number;
  hwmMiB: number;
  anonMiB: number;
  fileMiB: number;
}

/** VmRSS (now), VmHWM (peak), and the anonymous / file-backed (LMDB map) parts of the RSS. */
export function memory(pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  const mib = (key: string) => Math.round((kib(key) / 1024) * 10) / 10;
  return { rssMiB: mib('VmRSS'), hwmMiB: mib('VmHWM'), anonMiB: mib('RssAnon'), fileMiB: mib('RssFile') };
}

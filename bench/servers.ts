/**
 * The servers under load, each in its own process: the daemon (`node dist/src/cli/main.js
 * serve` on a random port and a fresh data directory), the ack-only ceiling
 * (dist/bench/ack-server.js) and the durable floor (dist/bench/durable-ack-server.js). Each
 * announces its port as a JSON line on stdout.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { freePort } from '../test/helpers/free-port.js';
import type { RouteMatch } from './measure.js';
import { BENCH_API_KEY, BENCH_PERSONAL_API_KEY } from './payloads.js';

/** The repository root, from dist/bench/servers.js. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const START_TIMEOUT_MS = 30_000;

export interface Server {
  readonly name: string;
  readonly pid: number;
  readonly port: number;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code. */
  stop(graceMs?: number): Promise<number | null>;
  /** Why the process is gone ("exit code 1", "signal SIGKILL") and its last lines; undefined while it runs. */
  died(): string | undefined;
}

type LogLine = Record<string, unknown> & { msg?: string };

/** Every server process still running, so an interrupted run does not leave them behind. */
const live = new Set<ChildProcess>();

/** For a signal handler: kills every server this process started, at once. */
export function killServers(): void {
  for (const child of live) child.kill('SIGKILL');
}

/** Spawns `node <args>` and resolves once `portOf` finds the port in the JSON lines seen so far. */
function spawnNode(
  name: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  portOf: (lines: LogLine[]) => number | undefined,
): Promise<Server> {
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  child.once('exit', () => live.delete(child));
  const lines: LogLine[] = [];
  const tail: string[] = []; // last lines of output, for error messages
  const keep = (l: string) => {
    tail.push(l);
    if (tail.length > 20) tail.shift();
  };
  child.stderr?.on('data', (d: Buffer) => keep(d.toString().trimEnd()));
  return new Promise<Server>((resolve, reject) => {
    const timer = setTimeout(() => fail(`no ready line within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
    const fail = (why: string) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${name} did not start: ${why}\n${tail.join('\n')}`));
    };
    const onEarlyExit = (code: number | null) => fail(`exited with ${code}`);
    child.on('exit', onEarlyExit);
    let started = false;
    // Keep draining stdout for the whole run: a full pipe would block the daemon's synchronous logger.
    createInterface({ input: child.stdout! }).on('line', (l) => {
      keep(l);
      if (started) return;
      try {
        lines.push(JSON.parse(l) as LogLine);
      } catch {
        return;
      }
      const port = portOf(lines);
      if (port === undefined) return;
      started = true;
      clearTimeout(timer);
      child.off('exit', onEarlyExit);
      let exit: string | undefined;
      child.on('exit', (code, signal) => (exit = signal ? `signal ${signal}` : `exit code ${code}`));
      const died = () => (exit === undefined ? undefined : `${name} exited (${exit}); its last output:\n${tail.join('\n')}`);
      resolve({ name, pid: child.pid!, port, stop: (graceMs) => stopChild(child, graceMs), died });
    });
  });
}

function stopChild(child: ChildProcess, graceMs = 15_000): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', (code) => {
      clearTimeout(kill);
      resolve(code);
    });
    child.kill('SIGTERM');
  });
}

export function startAckServer(): Promise<Server> {
  return spawnNode('ack-server', ['dist/bench/ack-server.js'], process.env, (lines) => {
    const l = lines.find((x) => x.msg === 'listening');
    return typeof l?.port === 'number' ? l.port : undefined;
  });
}

/**
 * The durable floor (dist/bench/durable-ack-server.js): the ceiling's server, except that each
 * body is appended to a store in `dataDir` and answered once that commit is durable.
 */
export function startDurableAckServer(dataDir: string): Promise<Server> {
  return spawnNode('durable-ack-server', ['dist/bench/durable-ack-server.js', dataDir], process.env, (lines) => {
    const l = lines.find((x) => x.msg === 'listening');
    return typeof l?.port === 'number' ? l.port : undefined;
  });
}

export interface DaemonSettings {
  dataDir: string;
  sync: string;
  /** Node flags before the script, e.g. --cpu-prof (which NODE_OPTIONS does not accept). */
  nodeArgs: string[];
}

/**
 * The daemon as `npm start` would run it, on its uWS backend. HEDGEROW_WORKERS,
 * HEDGEROW_HTTP_THREADS, HEDGEROW_TASKS_PER_WORKER, HEDGEROW_WORKER_NICE,
 * HEDGEROW_MAX_PERSON_BACKLOG, HEDGEROW_BATCH_WINDOW_MS and NODE_OPTIONS pass through from the
 * environment.
 */
export async function startDaemon(s: DaemonSettings): Promise<Server> {
  const env = {
    ...process.env,
    // By number: with port 0 only one of the uWS front-end threads would serve.
    HEDGEROW_PORT: String(await freePort()),
    HEDGEROW_HOST: '127.0.0.1',
    HEDGEROW_DATA_DIR: s.dataDir,
    HEDGEROW_SYNC: s.sync,
    HEDGEROW_HTTP_BACKEND: 'uws',
    HEDGEROW_LOG_LEVEL: 'info',
    HEDGEROW_BOOTSTRAP_PROJECT_API_KEY: BENCH_API_KEY,
    // The admin's key, so the runner can create the flag scenarios' flags and read definitions.
    HEDGEROW_BOOTSTRAP_PERSONAL_API_KEY: BENCH_PERSONAL_API_KEY,
  };
  return spawnNode('daemon', [...s.nodeArgs, 'dist/src/cli/main.js', 'serve'], env, (lines) => {
    const listening = lines.find((x) => x.msg?.startsWith('listening on http://'));
    const ready = lines.some((x) => x.msg === 'ready');
    return ready && typeof listening?.port === 'number' ? listening.port : undefined;
  });
}

export interface DaemonCounters {
  accepted: number;
  dropped: number;
  /** hedgerow_flags_errors_total, summed over endpoints: answers that said errorsWhileComputingFlags. */
  flagErrors: number;
  /** hedgerow_http_requests_total by route label, then status (summed over methods). */
  requests: Map<string, Map<string, number>>;
  /** OS thread id → the daemon's name for it (main, http-1, pool-2, …), from hedgerow_thread_cpu_seconds_total. */
  threadNames: Map<string, string>;
  /** Thread name → bytes of its V8 heap, from hedgerow_thread_heap_bytes. */
  threadHeaps: Map<string, number>;
}

/** Reads the counters the runner checks against wrk from GET /metrics. */
export async function scrapeCounters(port: number): Promise<DaemonCounters> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const c: DaemonCounters = { accepted: 0, dropped: 0, flagErrors: 0, requests: new Map(), threadNames: new Map(), threadHeaps: new Map() };
  for (const line of text.split('\n')) {
    const m = /^(\w+)(?:\{(.*)\})? ([\d.e+-]+)$/.exec(line);
    if (!m) continue;
    const [, name, labels = '', value] = m;
    if (name === 'hedgerow_events_accepted_total') c.accepted += Number(value);
    else if (name === 'hedgerow_events_dropped_total') c.dropped += Number(value);
    else if (name === 'hedgerow_flags_errors_total') c.flagErrors += Number(value);
    else if (name === 'hedgerow_thread_cpu_seconds_total') {
      const thread = /thread="([^"]*)"/.exec(labels)?.[1];
      const tid = /tid="(\d+)"/.exec(labels)?.[1];
      if (thread !== undefined && tid !== undefined) c.threadNames.set(tid, thread);
    } else if (name === 'hedgerow_thread_heap_bytes') {
      const thread = /thread="([^"]*)"/.exec(labels)?.[1];
      if (thread !== undefined) c.threadHeaps.set(thread, Number(value));
    } else if (name === 'hedgerow_http_requests_total') {
      const route = /route="([^"]*)"/.exec(labels)?.[1] ?? '?';
      const status = /status="(\d+)"/.exec(labels)?.[1] ?? '?';
      const byStatus = c.requests.get(route) ?? new Map<string, number>();
      byStatus.set(status, (byStatus.get(status) ?? 0) + Number(value));
      c.requests.set(route, byStatus);
    }
  }
  return c;
}

/** The answers by status, summed over the routes `route` matches. */
export function routeRequests(c: DaemonCounters, route: RouteMatch): Map<string, number> {
  const out = new Map<string, number>();
  for (const [label, byStatus] of c.requests) {
    if (route.match === 'exact' ? label !== route.label : !label.startsWith(route.label)) continue;
    for (const [status, n] of byStatus) out.set(status, (out.get(status) ?? 0) + n);
  }
  return out;
}

/**
 * Scrapes until `progress` (accepted events plus the scenario's answered requests) stops moving:
 * requests in flight when wrk stopped are done.
 */
export async function settledCounters(port: number, progress: (c: DaemonCounters) => number, quietMs = 300): Promise<DaemonCounters> {
  let prev = await scrapeCounters(port);
  for (;;) {
    await new Promise((r) => setTimeout(r, quietMs));
    const next = await scrapeCounters(port);
    if (progress(next) === progress(prev)) return next;
    prev = next;
  }
}

/** The person processor's metrics (the `persons` scenario). */
export interface PersonCounters {
  /** hedgerow_person_events_processed_total summed over outcomes: events applied. */
  processed: number;
  /** hedgerow_person_processor_events_behind. */
  behind: number;
  /** hedgerow_person_processing_lag_seconds: cumulative counts by upper bound (s), +Inf last. */
  lagBuckets: { le: number; count: number }[];
  /** hedgerow_person_blocks_read_total by source: blocks from the hand-off ring, and read back. */
  blocksHandedOff: number;
  blocksReadBack: number;
}

export async function scrapePersons(port: number): Promise<PersonCounters> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const c: PersonCounters = { processed: 0, behind: 0, lagBuckets: [], blocksHandedOff: 0, blocksReadBack: 0 };
  for (const line of text.split('\n')) {
    const m = /^(\w+)(?:\{(.*)\})? ([\d.e+-]+)$/.exec(line);
    if (!m) continue;
    const [, name, labels = '', value] = m;
    if (name === 'hedgerow_person_events_processed_total') c.processed += Number(value);
    else if (name === 'hedgerow_person_processor_events_behind') c.behind = Number(value);
    else if (name === 'hedgerow_person_blocks_read_total') {
      if (labels.includes('source="hand-off"')) c.blocksHandedOff = Number(value);
      else c.blocksReadBack += Number(value);
    } else if (name === 'hedgerow_person_processing_lag_seconds_bucket') {
      const le = /le="([^"]*)"/.exec(labels)?.[1] ?? '+Inf';
      c.lagBuckets.push({ le: le === '+Inf' ? Infinity : Number(le), count: Number(value) });
    }
  }
  c.lagBuckets.sort((a, b) => a.le - b.le);
  return c;
}

/** GET /_persons/caught_up: true once the processor applied everything committed before the call. */
export async function personsCaughtUp(port: number, timeoutMs: number): Promise<boolean> {
  const res = await fetch(`http://127.0.0.1:${port}/_persons/caught_up?timeout_ms=${timeoutMs}`);
  await res.text();
  return res.status === 200;
}

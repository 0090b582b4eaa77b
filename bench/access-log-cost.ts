/**
 * `npm run bench:access-log`: what the access log costs. One daemon (as `npm run bench` runs it:
 * durable sync, uWS front-end threads on a port given by number, the flag scenario's 100,000
 * persons and 50 flags) started with `--env-file`; its level goes between `info` (no access
 * lines) and `debug` (one line per request) by rewriting that file and sending SIGHUP, as an
 * operator would. Each round measures `/flags` and `/capture/` at both levels back to back,
 * alternating which goes first; stdout goes to a file, so writing the lines costs what it costs
 * the daemon and nothing reads them. Prints each run, the medians, and the median of the
 * per-round ratios debug/info, of the rate and of the daemon's CPU time per request (all its
 * threads, from the run's start until the person processor has applied what it brought): on a
 * shared machine the rate moves with the neighbours' load, the CPU a request costs much less.
 */
import { intOption } from './int-option.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { freePort } from '../test/helpers/free-port.js';
import { cpuTicks, statFields, TICKS_PER_SECOND } from '../src/util/proc-stat.js';
import { PERSONS } from './flag-fixtures.js';
import { wrkScript } from './measure.js';
import { BENCH_API_KEY, BENCH_PERSONAL_API_KEY, nextCaptureRun, writePayloads } from './payloads.js';
import { createFlags, FLAGS_PATH, seedPersons } from './seed-flags.js';
import { personsCaughtUp, ROOT } from './servers.js';
import { checkWrk, failures, killWrk, startWrk, type WrkResult, type WrkSettings } from './wrk-runner.js';

const USAGE = `usage: npm run bench:access-log -- [options]
  --rounds <n>        rounds; each measures both scenarios at both levels (default 3)
  --duration <s>      seconds per measurement (default 10)
  --connections <n>   wrk connections (default 32)
  --warmup <s>        unrecorded warm-up per scenario and level (default 2, 0 = none)`;

const LEVELS = ['info', 'debug'] as const;
type Level = (typeof LEVELS)[number];
const SCENARIOS = ['flags', 'capture'] as const;
type ScenarioName = (typeof SCENARIOS)[number];
const SETTLE_MS = 1000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};

function options() {
  const { values } = parseArgs({
    options: {
      rounds: { type: 'string', default: '3' },
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '32' },
      warmup: { type: 'string', default: '2' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const int = intOption(USAGE);
  return {
    rounds: int('rounds', values.rounds, 1),
    warmup: int('warmup', values.warmup, 0),
    wrk: {
      threads: 1,
      connections: int('connections', values.connections, 1),
      durationSeconds: int('duration', values.duration, 1),
    } satisfies WrkSettings,
  };
}

/** The daemon, its stdout in `logFile`, its level in `envFile`. */
interface Daemon {
  readonly child: ChildProcess;
  readonly port: number;
  setLevel(level: Level): Promise<void>;
  stop(): Promise<void>;
}

/** Lines of the log file so far that parse as JSON. */
function logLines(logFile: string): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      out.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // a line being written
    }
  }
  return out;
}

async function waitFor(what: string, ok: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

async function startDaemon(work: string, dataDir: string): Promise<Daemon> {
  const envFile = path.join(work, 'hedgerow.env');
  const logFile = path.join(work, 'daemon.log');
  writeFileSync(envFile, 'HEDGEROW_LOG_LEVEL=info\n');
  const port = await freePort(); // by number: with port 0 only one front-end thread would serve
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HEDGEROW_PORT: String(port),
    HEDGEROW_HOST: '127.0.0.1',
    HEDGEROW_DATA_DIR: dataDir,
    HEDGEROW_SYNC: 'durable',
    HEDGEROW_HTTP_BACKEND: 'uws',
    HEDGEROW_BOOTSTRAP_PROJECT_API_KEY: BENCH_API_KEY,
    HEDGEROW_BOOTSTRAP_PERSONAL_API_KEY: BENCH_PERSONAL_API_KEY,
  };
  delete env.HEDGEROW_LOG_LEVEL; // the file's
  const out = openSync(logFile, 'w');
  const child = spawn(process.execPath, ['dist/src/cli/main.js', 'serve', '--env-file', envFile], {
    cwd: ROOT,
    env,
    stdio: ['ignore', out, 'inherit'],
  });
  closeSync(out);
  let exited = false;
  child.once('exit', () => (exited = true));
  await waitFor('the daemon to be ready', () => {
    if (exited) throw new Error(`the daemon exited during startup:\n${readFileSync(logFile, 'utf8')}`);
    return logLines(logFile).some((l) => l.msg === 'ready');
  });
  const reloads = () => logLines(logFile).filter((l) => l.msg === 'SIGHUP: reloaded the log level').length;
  return {
    child,
    port,
    async setLevel(level) {
      const before = reloads();
      writeFileSync(envFile, `HEDGEROW_LOG_LEVEL=${level}\n`);
      child.kill('SIGHUP');
      await waitFor(`the reload to ${level}`, () => reloads() > before, 5000);
    },
    async stop() {
      if (exited) return;
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await gone;
    },
  };
}

interface Run {
  round: number;
  scenario: ScenarioName;
  level: Level;
  wrk: WrkResult;
  /** Bytes the daemon wrote to stdout during the run. */
  logBytes: number;
  /** The daemon's CPU time (every thread) per request, from the run's start until persons caught up. */
  cpuMicros: number;
}

/** CPU time of the whole process so far, in seconds. */
function cpuSeconds(pid: number): number {
  return cpuTicks(statFields(readFileSync(`/proc/${pid}/stat`, 'utf8'))) / TICKS_PER_SECOND;
}

async function main(): Promise<void> {
  const opts = options();
  const wrkVersion = checkWrk();
  const work = mkdtempSync(path.join(os.tmpdir(), 'hedgerow-access-log-'));
  const dataDir = path.join(work, 'data');
  let daemon: Daemon | undefined;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      killWrk();
      daemon?.child.kill('SIGKILL');
      rmSync(work, { recursive: true, force: true });
      process.exit(130);
    });
  }
  try {
    console.log(
      `npm run bench:access-log -- ${process.argv.slice(2).join(' ')}\n${wrkVersion}; ${os.cpus().length} cores; node ${process.version}; ` +
        `wrk -t1 -c${opts.wrk.connections} -d${opts.wrk.durationSeconds}s; the daemon's stdout to a file in ${os.tmpdir()}`,
    );
    const payload = writePayloads(work);
    await seedPersons(dataDir);
    daemon = await startDaemon(work, dataDir);
    const d = daemon;
    await createFlags(d.port);
    const logFile = path.join(work, 'daemon.log');
    const scriptArgs: Record<ScenarioName, string[]> = {
      flags: [BENCH_API_KEY, String(PERSONS)],
      capture: [payload.captureTemplate],
    };
    const paths: Record<ScenarioName, string> = { flags: FLAGS_PATH, capture: '/capture/' };
    const caughtUp = async () => {
      if (!(await personsCaughtUp(d.port, 60_000))) throw new Error('the person processor did not catch up in 60 s');
    };
    const pid = d.child.pid as number;
    const measure = async (scenario: ScenarioName, level: Level, settings: WrkSettings) => {
      await d.setLevel(level);
      // The capture scenario makes a person per request: the run starts from an idle processor.
      await caughtUp();
      await sleep(SETTLE_MS);
      const logBefore = statSync(logFile).size;
      const cpuBefore = cpuSeconds(pid);
      // Each capture run has its own run number: its distinct ids are new persons.
      const args = scenario === 'capture' ? [...scriptArgs.capture, nextCaptureRun()] : scriptArgs[scenario];
      const wrk = await startWrk(`http://127.0.0.1:${d.port}${paths[scenario]}`, wrkScript(scenario), args, settings).done;
      const logBytes = statSync(logFile).size - logBefore;
      await caughtUp(); // the persons its requests made are part of what they cost
      const cpuMicros = ((cpuSeconds(pid) - cpuBefore) * 1e6) / wrk.requests;
      if (failures(wrk) > 0) throw new Error(`${wrk.command}: ${failures(wrk)} failed requests`);
      return { wrk, logBytes, cpuMicros };
    };
    if (opts.warmup > 0) {
      for (const scenario of SCENARIOS) {
        for (const level of LEVELS) await measure(scenario, level, { ...opts.wrk, durationSeconds: opts.warmup });
      }
    }
    const runs: Run[] = [];
    for (let round = 1; round <= opts.rounds; round++) {
      for (const scenario of SCENARIOS) {
        const order: Level[] = round % 2 === 1 ? ['info', 'debug'] : ['debug', 'info'];
        for (const level of order) {
          const { wrk, logBytes, cpuMicros } = await measure(scenario, level, opts.wrk);
          runs.push({ round, scenario, level, wrk, logBytes, cpuMicros });
          console.log(
            `round ${round} ${scenario.padEnd(7)} ${level.padEnd(5)} ${Math.round(wrk.requestsPerSecond).toLocaleString('en-US')} req/s` +
              ` p50 ${wrk.latencyMs.p50.toFixed(2)} ms p99 ${wrk.latencyMs.p99.toFixed(2)} ms; daemon CPU ${cpuMicros.toFixed(1)} µs/request;` +
              ` stdout ${(logBytes / wrk.requests).toFixed(0)} B/request`,
          );
        }
      }
    }
    console.log('\nmedians (ratios debug/info: the median of the per-round ratios, and their range)');
    for (const scenario of SCENARIOS) {
      const of = (level: Level) => runs.filter((r) => r.scenario === scenario && r.level === level);
      const med = (level: Level, value: (r: Run) => number) => median(of(level).map(value));
      const ratio = (value: (r: Run) => number) => {
        const ratios = of('debug').map((r) => value(r) / value(of('info').find((i) => i.round === r.round) as Run));
        return `${median(ratios).toFixed(3)} [${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)}]`;
      };
      const rate = (r: Run) => r.wrk.requestsPerSecond;
      const cpu = (r: Run) => r.cpuMicros;
      console.log(
        `${scenario.padEnd(7)} rate: info ${Math.round(med('info', rate)).toLocaleString('en-US')}, debug ${Math.round(med('debug', rate)).toLocaleString('en-US')} req/s, ratio ${ratio(rate)}; ` +
          `CPU: info ${med('info', cpu).toFixed(1)}, debug ${med('debug', cpu).toFixed(1)} µs/request, ratio ${ratio(cpu)}; ` +
          `p99 info ${med('info', (r) => r.wrk.latencyMs.p99).toFixed(2)}, debug ${med('debug', (r) => r.wrk.latencyMs.p99).toFixed(2)} ms`,
      );
    }
  } finally {
    await daemon?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  killWrk();
  process.exit(1);
});

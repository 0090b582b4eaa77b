/**
 * `npm run bench`: the end-to-end benchmark. Starts the ack-only ceiling and the daemon, then for
 * each round drives both with the same wrk settings, back to back (alternating which goes first),
 * for `/capture/` (one event per request) and `/batch/` (100 gzip'd events per request).
 * Prints medians with their spread, the daemon/ceiling ratio, CPU saturation, the /metrics check,
 * the daemon's memory and the targets of issue 2. Exits 1 when any run saw errors.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { measure, wrkScript, type Run, type Scenario, type ScenarioName, type Target } from './measure.js';
import { EVENTS_PER_BATCH, writePayloads } from './payloads.js';
import { memory, type Memory } from './proc-sampler.js';
import { isNoisy, saturation, saturationNotes, summarize, table, targets } from './report.js';
import { killServers, ROOT, startAckServer, startDaemon, type Server } from './servers.js';
import { checkWrk, killWrk, type WrkSettings } from './wrk-runner.js';

const USAGE = `usage: npm run bench -- [options]
  --duration <s>      seconds per measurement (default 10)
  --rounds <n>        rounds; each measures ceiling and daemon for each scenario (default 3)
  --connections <n>   wrk connections (default 64)
  --threads <n>       wrk threads (default 1)
  --warmup <s>        unrecorded warm-up per server and scenario (default 2, 0 = none)
  --only <scenario>   capture | batch (default both)
  --sync <mode>       daemon HEDGEROW_SYNC: durable | async | none (default durable)
  --json              also write bench/results/<timestamp>.json
  --keep-data         keep the daemon's temporary data directory
  --cpu-prof <dir>    run the daemon with --cpu-prof into <dir> (one profile per thread;
                      read them with node dist/bench/profile-summary.js <dir>/*.cpuprofile)
Environment passed to the daemon: HEDGEROW_WORKERS, HEDGEROW_TASKS_PER_WORKER,
HEDGEROW_BATCH_WINDOW_MS, NODE_OPTIONS.`;

/** Pause between measurements so one run's leftovers (flushes, GC) do not bleed into the next. */
const SETTLE_MS = 1000;

function options() {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '10' },
      rounds: { type: 'string', default: '3' },
      connections: { type: 'string', default: '64' },
      threads: { type: 'string', default: '1' },
      warmup: { type: 'string', default: '2' },
      only: { type: 'string' },
      sync: { type: 'string', default: 'durable' },
      json: { type: 'boolean', default: false },
      'keep-data': { type: 'boolean', default: false },
      'cpu-prof': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const int = (name: string, v: string, min: number) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer ≥ ${min}, got "${v}"\n${USAGE}`);
    return n;
  };
  const only = values.only;
  if (only !== undefined && only !== 'capture' && only !== 'batch') throw new Error(`--only must be capture or batch\n${USAGE}`);
  if (!['durable', 'async', 'none'].includes(values.sync)) throw new Error(`--sync must be durable, async or none\n${USAGE}`);
  return {
    wrk: {
      durationSeconds: int('duration', values.duration, 1),
      connections: int('connections', values.connections, 1),
      threads: int('threads', values.threads, 1),
    } satisfies WrkSettings,
    rounds: int('rounds', values.rounds, 1),
    warmup: int('warmup', values.warmup, 0),
    scenarios: (only ? [only] : ['capture', 'batch']) as ScenarioName[],
    sync: values.sync,
    json: values.json,
    keepData: values['keep-data'],
    cpuProfDir: values['cpu-prof'] === undefined ? undefined : path.resolve(values['cpu-prof']),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<number> {
  const opts = options();
  const wrkVersion = checkWrk();
  const work = mkdtempSync(path.join(os.tmpdir(), 'hedgerow-bench-'));
  const dataDir = path.join(work, 'data');
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      killWrk();
      killServers();
      if (!opts.keepData) rmSync(work, { recursive: true, force: true });
      process.exit(130);
    });
  }
  const payload = writePayloads(work);
  const scenarios: Record<ScenarioName, Scenario> = {
    capture: { name: 'capture', path: '/capture/', script: wrkScript('capture'), body: payload.captureTemplate, eventsPerRequest: 1 },
    batch: { name: 'batch', path: '/batch/', script: wrkScript('batch'), body: payload.batchGzip, eventsPerRequest: EVENTS_PER_BATCH },
  };
  const passedEnv = ['HEDGEROW_WORKERS', 'HEDGEROW_TASKS_PER_WORKER', 'HEDGEROW_BATCH_WINDOW_MS', 'NODE_OPTIONS']
    .filter((k) => process.env[k] !== undefined)
    .map((k) => `${k}=${process.env[k]}`);
  const args = process.argv.slice(2);
  const command = [...passedEnv, 'npm run bench', ...(args.length > 0 ? ['--', ...args] : [])].join(' ');
  console.log(`${command}\n${wrkVersion}; ${os.cpus().length} cores; node ${process.version}; sync ${opts.sync}`);
  console.log(`bodies: capture ${payload.captureBytes} B; batch ${EVENTS_PER_BATCH} events ${payload.batchBytes} B, gzip ${payload.batchGzipBytes} B`);

  const servers: Server[] = [];
  const runs: Run[] = [];
  let mem: Memory | undefined;
  try {
    const ceiling = await startAckServer();
    servers.push(ceiling);
    const nodeArgs = opts.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.cpuProfDir}`] : [];
    const daemon = await startDaemon({ dataDir, sync: opts.sync, nodeArgs });
    servers.push(daemon);
    const targetsOf: Record<Target, Server> = { ceiling, daemon };

    if (opts.warmup > 0) {
      for (const name of opts.scenarios) {
        for (const t of ['ceiling', 'daemon'] as const) {
          const w = await measure(targetsOf[t], t, scenarios[name], { ...opts.wrk, durationSeconds: opts.warmup }, 0);
          if (w.problems.length > 0) throw new Error(`warm-up of ${t} ${name} failed: ${w.problems.join('; ')}`);
        }
      }
    }
    for (let round = 1; round <= opts.rounds; round++) {
      for (const name of opts.scenarios) {
        const order: Target[] = round % 2 === 1 ? ['ceiling', 'daemon'] : ['daemon', 'ceiling'];
        for (const t of order) {
          await sleep(SETTLE_MS);
          const run = await measure(targetsOf[t], t, scenarios[name], opts.wrk, round);
          runs.push(run);
          const line = `round ${round} ${name.padEnd(7)} ${t.padEnd(7)} ${Math.round(run.wrk.requestsPerSecond).toLocaleString('en-US')} req/s` +
            ` p50 ${run.wrk.latencyMs.p50.toFixed(2)} ms p99 ${run.wrk.latencyMs.p99.toFixed(2)} ms` +
            ` cpu ${run.cpu.server?.total.toFixed(0)}% (main ${run.cpu.server?.main.toFixed(0)}%) wrk ${run.cpu.wrk?.total.toFixed(0)}%` +
            ` others ${run.cpu.otherPct.toFixed(0)}% idle ${run.cpu.machineIdlePct.toFixed(0)}% limit: ${saturation(run)}${isNoisy(run) ? ' [NOISY]' : ''}` +
            (run.check ? ` accepted ${run.check.acceptedEvents} (+${run.check.slackEvents} over wrk's count)` : '') +
            (run.memory ? ` rss ${run.memory.rssMiB} MiB (anon ${run.memory.anonMiB})` : '');
          console.log(line);
          for (const p of run.problems) console.error(`  ERROR: ${p}`);
        }
      }
    }
    mem = memory(daemon.pid);
  } finally {
    for (const s of servers.reverse()) {
      const code = await s.stop();
      if (code !== null && code !== 0) console.error(`${s.name} exited with code ${code}`);
    }
    if (!opts.keepData) rmSync(work, { recursive: true, force: true });
    else console.log(`data kept in ${dataDir}`);
    if (opts.cpuProfDir) console.log(`daemon CPU profiles in ${opts.cpuProfDir}`);
  }

  const summaries = opts.scenarios.map((s) => summarize(runs, s, scenarios[s].eventsPerRequest));
  console.log(`\n${table(summaries)}\n`);
  const checks = targets(summaries, mem);
  for (const c of checks) console.log(`${c.pass ? 'PASS' : 'MISS'}  ${c.name}: ${c.value}`);
  for (const n of saturationNotes(summaries)) console.log(n);
  for (const s of summaries) console.log(`${s.scenario}: daemon accepted beyond wrk's count per round (in flight at the end): ${s.slackEvents.join(', ')} events`);
  const wrkCommands = [...new Set(runs.map((r) => r.wrk.command))];
  console.log(`\ncommand: ${command}\nwrk: ${wrkCommands.join('\n     ')}`);

  const problems = runs.flatMap((r) => r.problems.map((p) => `round ${r.round} ${r.scenario} ${r.target}: ${p}`));
  if (opts.json) {
    const dir = path.join(ROOT, 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    const machine = { cores: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version, wrk: wrkVersion };
    writeFileSync(file, `${JSON.stringify({ command, machine, options: opts, payload, summaries, targets: checks, memory: mem, problems, runs }, null, 2)}\n`);
    console.log(`results: ${path.relative(ROOT, file)}`);
  }
  if (problems.length > 0) {
    console.error(`\nFAILED: ${problems.length} run(s) saw errors; their rates are not valid:\n  ${problems.join('\n  ')}`);
    return 1;
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`bench: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);

/**
 * `npm run bench`: the end-to-end benchmark. Starts the ack-only ceiling and the daemon, then for
 * each round drives both with the same wrk settings, back to back (alternating which goes first),
 * for `/capture/` (one event per request), `/batch/` (100 gzip'd events per request), `/flags/?v=2`
 * (random persons of 100,000 against 50 flags), `/flags/definitions` (the 304 of a matching
 * ETag), `persons` (`/batch/` with 20% `$identify`/`$set` over 100,000 ids, with the person
 * processor's rate and lag next to the ingestion rate) and `persons-paced` (the same bodies at a
 * fixed offered rate, 100,000 events/s by default: does the processor keep up with it). The flag
 * scenarios' persons are written into the store before the daemon starts, their
 * flags made through the management API after. Prints medians with their spread, the
 * daemon/ceiling ratio, CPU saturation, the /metrics check, the daemon's memory and the targets
 * of the scenarios that ran. Exits 1 when any run saw errors.
 */
import { intOption } from './int-option.js';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { PERSONS } from './flag-fixtures.js';
import { measure, SCENARIO_NAMES, wrkScript, type Run, type Scenario, type ScenarioName, type Target } from './measure.js';
import { BENCH_API_KEY, BENCH_PERSONAL_API_KEY, EVENTS_PER_BATCH, PERSONS_BODIES, writePayloads, type PayloadFiles } from './payloads.js';
import { memory, type Memory } from './proc-sampler.js';
import { isNoisy, personsLines, saturation, saturationNotes, summarize, table, targets } from './report.js';
import { createFlags, DEFINITIONS_PATH, FLAGS_PATH, seedPersons, type FlagSetup } from './seed-flags.js';
import { killServers, ROOT, startAckServer, startDaemon, type Server } from './servers.js';
import { checkWrk, killWrk, type WrkSettings } from './wrk-runner.js';

const USAGE = `usage: npm run bench -- [options]
  --duration <s>      seconds per measurement (default 10)
  --rounds <n>        rounds; each measures ceiling and daemon for each scenario (default 3)
  --connections <n>   wrk connections (default 64)
  --threads <n>       wrk threads (default 1)
  --warmup <s>        unrecorded warm-up per server and scenario (default 2, 0 = none)
  --only <scenarios>  comma-separated, of capture, batch, flags, definitions, persons,
                      persons-paced (default all six: with the default durations about 7
                      minutes; seeding the 100,000 persons takes about a second)
                      flags: POST /flags/?v=2, random persons of 100,000, 50 flags;
                      definitions: GET /flags/definitions with a matching If-None-Match (304);
                      persons: POST /batch/ rotating 20 bodies with 10% $identify and 10% $set
                      over 100,000 ids; reports the person processor's events/s and lag
                      (from /metrics) and waits for it to catch up after each daemon run;
                      persons-paced: the same at a fixed offered rate (--persons-rate): the
                      person targets are judged on it (does the processor keep up)
  --persons-rate <n>  events/s offered in persons-paced (default 100000; wrk paces each of
                      its threads at n / 100 / threads requests/s)
  --sync <mode>       daemon HEDGEROW_SYNC: durable | async | none (default durable)
  --json              also write bench/results/<timestamp>.json
  --keep-data         keep the daemon's temporary data directory
  --check-bodies      flags: wrk also checks every answer's body for
                      "errorsWhileComputingFlags":false (by default the daemon's
                      hedgerow_flags_errors_total is checked instead: wrk's Lua check
                      costs it ~7 µs of CPU per request, on the cores the daemon uses)
  --cpu-prof <dir>    run the daemon with --cpu-prof into <dir> (one profile per thread;
                      read them with node dist/bench/profile-summary.js <dir>/*.cpuprofile)
Environment passed to the daemon: HEDGEROW_WORKERS, HEDGEROW_HTTP_THREADS, HEDGEROW_TASKS_PER_WORKER,
HEDGEROW_WORKER_NICE, HEDGEROW_MAX_PERSON_BACKLOG, HEDGEROW_BATCH_WINDOW_MS, NODE_OPTIONS.`;

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
      'persons-rate': { type: 'string', default: '100000' },
      sync: { type: 'string', default: 'durable' },
      json: { type: 'boolean', default: false },
      'keep-data': { type: 'boolean', default: false },
      'cpu-prof': { type: 'string' },
      'check-bodies': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const int = intOption(USAGE);
  const only = values.only?.split(',').map((x) => x.trim());
  const unknown = only?.filter((x) => !(SCENARIO_NAMES as readonly string[]).includes(x)) ?? [];
  if (only?.length === 0 || unknown.length > 0)
    throw new Error(`--only takes ${SCENARIO_NAMES.join(', ')}; got "${values.only}"\n${USAGE}`);
  if (!['durable', 'async', 'none'].includes(values.sync)) throw new Error(`--sync must be durable, async or none\n${USAGE}`);
  return {
    wrk: {
      durationSeconds: int('duration', values.duration, 1),
      connections: int('connections', values.connections, 1),
      threads: int('threads', values.threads, 1),
    } satisfies WrkSettings,
    rounds: int('rounds', values.rounds, 1),
    personsRate: int('persons-rate', values['persons-rate'], EVENTS_PER_BATCH),
    warmup: int('warmup', values.warmup, 0),
    // In the canonical order, each once, whatever order --only gave them in.
    scenarios: SCENARIO_NAMES.filter((n) => only === undefined || only.includes(n)),
    sync: values.sync,
    json: values.json,
    keepData: values['keep-data'],
    cpuProfDir: values['cpu-prof'] === undefined ? undefined : path.resolve(values['cpu-prof']),
    checkBodies: values['check-bodies'],
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The selected scenarios; `flagSetup` is there when a flag scenario is selected. */
function scenariosOf(
  names: ScenarioName[],
  payload: PayloadFiles,
  flagSetup: FlagSetup | undefined,
  paced: { eventsPerSecond: number; threads: number },
  checkBodies: boolean,
): Map<ScenarioName, Scenario> {
  const capture = { label: 'capture:', match: 'prefix' } as const;
  const build = (name: ScenarioName): Scenario => {
    const common = { name, script: wrkScript(name), daemonScriptArgs: [] as string[], status: '200' };
    switch (name) {
      case 'capture':
        return { ...common, path: '/capture/', scriptArgs: [payload.captureTemplate], eventsPerRequest: 1, route: capture };
      case 'batch':
        return { ...common, path: '/batch/', scriptArgs: [payload.batchGzip], eventsPerRequest: EVENTS_PER_BATCH, route: capture };
      case 'flags':
        return {
          ...common,
          path: FLAGS_PATH,
          scriptArgs: [BENCH_API_KEY, String(PERSONS)],
          daemonScriptArgs: checkBodies ? ['check'] : [],
          eventsPerRequest: 0,
          route: { label: 'flags', match: 'exact' },
        };
      case 'persons':
        return {
          ...common,
          path: '/batch/',
          scriptArgs: payload.personsGzip,
          eventsPerRequest: EVENTS_PER_BATCH,
          route: capture,
          persons: true,
        };
      case 'persons-paced': {
        const perThread = paced.eventsPerSecond / EVENTS_PER_BATCH / paced.threads;
        return {
          ...common,
          path: '/batch/',
          scriptArgs: [`rate=${perThread}`, ...payload.personsGzip],
          eventsPerRequest: EVENTS_PER_BATCH,
          route: capture,
          persons: true,
          offeredEventsPerSecond: paced.eventsPerSecond,
        };
      }
      case 'definitions':
        if (!flagSetup) throw new Error('the definitions scenario needs the flag setup');
        return {
          ...common,
          path: DEFINITIONS_PATH,
          scriptArgs: [BENCH_PERSONAL_API_KEY, flagSetup.etag],
          eventsPerRequest: 0,
          route: { label: 'flags:definitions', match: 'exact' },
          status: '304',
        };
    }
  };
  return new Map(names.map((n) => [n, build(n)]));
}

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
  const withFlags = opts.scenarios.includes('flags') || opts.scenarios.includes('definitions');
  const passedEnv = [
    'HEDGEROW_WORKERS',
    'HEDGEROW_HTTP_THREADS',
    'HEDGEROW_TASKS_PER_WORKER',
    'HEDGEROW_WORKER_NICE',
    'HEDGEROW_MAX_PERSON_BACKLOG',
    'HEDGEROW_BATCH_WINDOW_MS',
    'NODE_OPTIONS',
  ]
    .filter((k) => process.env[k] !== undefined)
    .map((k) => `${k}=${process.env[k]}`);
  const args = process.argv.slice(2);
  const command = [...passedEnv, 'npm run bench', ...(args.length > 0 ? ['--', ...args] : [])].join(' ');
  console.log(`${command}\n${wrkVersion}; ${os.cpus().length} cores; node ${process.version}; sync ${opts.sync}`);
  console.log(
    `bodies: capture ${payload.captureBytes} B; batch ${EVENTS_PER_BATCH} events ${payload.batchBytes} B, gzip ${payload.batchGzipBytes} B; ` +
      `persons ${PERSONS_BODIES} × ${EVENTS_PER_BATCH} events, mean ${payload.personsBytes} B, gzip ${payload.personsGzipBytes} B`,
  );
  let scenarios = new Map<ScenarioName, Scenario>();
  let flagSetup: FlagSetup | undefined;

  const servers: Server[] = [];
  const runs: Run[] = [];
  let mem: Memory | undefined;
  try {
    const ceiling = await startAckServer();
    servers.push(ceiling);
    const nodeArgs = opts.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.cpuProfDir}`] : [];
    if (withFlags) {
      const seeded = await seedPersons(dataDir);
      console.log(`seeded ${seeded.persons.toLocaleString('en-US')} persons into the store in ${(seeded.ms / 1000).toFixed(1)} s`);
    }
    const daemon = await startDaemon({ dataDir, sync: opts.sync, nodeArgs });
    servers.push(daemon);
    if (withFlags) {
      flagSetup = await createFlags(daemon.port);
      console.log(
        `flags: ${PERSONS.toLocaleString('en-US')} persons, ${flagSetup.flags} flags, ${flagSetup.cohorts} cohorts; /flags body ${flagSetup.requestBytes} B; ` +
          `definitions ${flagSetup.definitionsBytes} B, ETag ${flagSetup.etag}\n` +
          `flags: evaluation check over ${flagSetup.probe}`,
      );
    }
    scenarios = scenariosOf(
      opts.scenarios,
      payload,
      flagSetup,
      { eventsPerSecond: opts.personsRate, threads: opts.wrk.threads },
      opts.checkBodies,
    );
    const scenario = (name: ScenarioName) => scenarios.get(name) as Scenario;
    const targetsOf: Record<Target, Server> = { ceiling, daemon };

    if (opts.warmup > 0) {
      for (const name of opts.scenarios) {
        for (const t of ['ceiling', 'daemon'] as const) {
          const w = await measure(targetsOf[t], t, scenario(name), { ...opts.wrk, durationSeconds: opts.warmup }, 0);
          if (w.problems.length > 0) throw new Error(`warm-up of ${t} ${name} failed: ${w.problems.join('; ')}`);
        }
      }
    }
    for (let round = 1; round <= opts.rounds; round++) {
      for (const name of opts.scenarios) {
        const order: Target[] = round % 2 === 1 ? ['ceiling', 'daemon'] : ['daemon', 'ceiling'];
        for (const t of order) {
          await sleep(SETTLE_MS);
          const run = await measure(targetsOf[t], t, scenario(name), opts.wrk, round);
          runs.push(run);
          const line =
            `round ${round} ${name.padEnd(13)} ${t.padEnd(7)} ${Math.round(run.wrk.requestsPerSecond).toLocaleString('en-US')} req/s` +
            ` p50 ${run.wrk.latencyMs.p50.toFixed(2)} ms p99 ${run.wrk.latencyMs.p99.toFixed(2)} ms` +
            ` cpu ${run.cpu.server?.total.toFixed(0)}% (main ${run.cpu.server?.main.toFixed(0)}%) wrk ${run.cpu.wrk?.total.toFixed(0)}%` +
            ` others ${run.cpu.otherPct.toFixed(0)}% idle ${run.cpu.machineIdlePct.toFixed(0)}% limit: ${saturation(run)}${isNoisy(run) ? ' [NOISY]' : ''}` +
            (run.check ? ` ${checkLine(run, scenario(name))}` : '') +
            (run.persons ? ` ${personsLine(run.persons)}` : '') +
            (run.memory ? ` rss ${run.memory.rssMiB} MiB (anon ${run.memory.anonMiB})` : '') +
            (run.threads ? `\n  threads: ${threadsLine(run.threads)}` : '') +
            ((run.processorWaitSeconds ?? 0) >= 0.1
              ? `; first waited ${run.processorWaitSeconds?.toFixed(1)} s for the person processor`
              : '');
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

  const summaries = opts.scenarios.map((s) => summarize(runs, s, scenarios.get(s)?.eventsPerRequest ?? 0));
  console.log(`\n${table(summaries)}\n`);
  const checks = targets(summaries, mem, opts.personsRate);
  for (const c of checks) console.log(`${c.pass ? 'PASS' : 'MISS'}  ${c.name}: ${c.value}`);
  for (const l of personsLines(summaries)) console.log(l);
  for (const n of saturationNotes(summaries)) console.log(n);
  for (const s of summaries) {
    const slack =
      s.eventsPerRequest > 0 ? `accepted ${s.slackEvents.join(', ')} events` : `answered ${s.slackRequests.join(', ')} requests`;
    console.log(`${s.scenario}: daemon ${slack} beyond wrk's count per round (in flight at the end)`);
  }
  const wrkCommands = [...new Set(runs.map((r) => r.wrk.command))];
  console.log(`\ncommand: ${command}\nwrk: ${wrkCommands.join('\n     ')}`);

  const problems = runs.flatMap((r) => r.problems.map((p) => `round ${r.round} ${r.scenario} ${r.target}: ${p}`));
  if (opts.json) {
    const dir = path.join(ROOT, 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    const machine = { cores: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version, wrk: wrkVersion };
    const flags = flagSetup && {
      persons: PERSONS,
      flags: flagSetup.flags,
      cohorts: flagSetup.cohorts,
      definitionsBytes: flagSetup.definitionsBytes,
      probe: flagSetup.probe,
    };
    writeFileSync(
      file,
      `${JSON.stringify({ command, machine, options: opts, payload, flags, summaries, targets: checks, memory: mem, problems, runs }, null, 2)}\n`,
    );
    console.log(`results: ${path.relative(ROOT, file)}`);
  }
  if (problems.length > 0) {
    console.error(`\nFAILED: ${problems.length} run(s) saw errors; their rates are not valid:\n  ${problems.join('\n  ')}`);
    return 1;
  }
  return 0;
}

/** `main 13% http-1 4% … other 35%`: the daemon's named threads in a fixed order, then the rest. */
function threadsLine(threads: Record<string, number>): string {
  const order = (name: string) =>
    name === 'main' ? 0 : name.startsWith('http-') ? 1 : name.startsWith('pool-') ? 2 : name === 'other' ? 4 : 3;
  return Object.entries(threads)
    .sort(([a], [b]) => order(a) - order(b) || a.localeCompare(b, 'en', { numeric: true }))
    .map(([name, pct]) => `${name} ${pct.toFixed(0)}%`)
    .join(' ');
}

/** The /metrics check of a daemon run, for its line: events for ingestion, answers by status otherwise. */
function checkLine(run: Run, scenario: Scenario): string {
  const c = run.check;
  if (!c) return '';
  if (scenario.eventsPerRequest > 0) return `accepted ${c.acceptedEvents} (+${c.slackEvents} over wrk's count)`;
  const statuses = Object.entries(c.statuses)
    .map(([status, n]) => `${status}×${n}`)
    .join(' ');
  return `answered ${c.answeredRequests} (+${c.slackRequests} over wrk's count; ${statuses || 'none'})`;
}

/** The person processor over a `persons` daemon run, for its line. */
function personsLine(p: NonNullable<Run['persons']>): string {
  const n = (x: number) => Math.round(x).toLocaleString('en-US');
  return (
    `| ingestion ${n(p.ingestedPerSecond)} ev/s; processor ${n(p.processedPerSecond)} ev/s (${n(p.overallPerSecond)} until caught up), ` +
    `behind ${n(p.behindAtEnd)} at the end, ${p.caughtUp ? 'caught up' : 'NOT caught up'} after ${p.catchUpSeconds.toFixed(2)} s, ` +
    `lag p50 ${p.lagMs.p50.toFixed(1)} ms p99 ${p.lagMs.p99.toFixed(1)} ms, ` +
    `blocks from the hand-off ring ${(p.handedOffShare * 100).toFixed(0)}% |`
  );
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`bench: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);

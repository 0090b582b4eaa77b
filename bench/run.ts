/**
 * `npm run bench`: the end-to-end benchmark. Starts the ack-only ceiling, the durable floor and
 * the daemon, then for each round drives them with the same wrk settings, back to back
 * (alternating which goes first), for `/capture/` (one event per request, every request a new
 * person), `capture-known` (the same, but most requests from one of the 100,000 stored persons),
 * `capture-personless` (the same events with `$process_person_profile: false`: no person),
 * `/batch/` (100 gzip'd events per request), `/flags/?v=2` (random persons of 100,000 against
 * 50 flags), `flags-new` (the same flags for distinct ids no person has), `/flags/definitions`
 * (the 304 of a matching ETag), `persons` (`/batch/` with 20% `$identify`/`$set` over 100,000
 * ids, with the person processor's rate and lag next to the ingestion rate) and `persons-paced`
 * (the same bodies at a fixed offered rate, 100,000 events/s by default: does the processor keep
 * up with it). The durable floor takes the `capture` scenarios' load only. The stored persons are
 * written into the store before the daemon starts, the flags made through the management API
 * after. Prints medians with their spread, the daemon/ceiling ratio (and daemon/floor with the p99
 * multiple), CPU saturation, the /metrics check, the daemon's memory and the targets of the
 * scenarios that ran; writes one SVG chart per scenario. Exits 1 when any run saw errors.
 */
import { execFileSync } from 'node:child_process';
import { intOption } from './int-option.js';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { PERSONS } from './flag-fixtures.js';
import {
  CATCH_UP_TIMEOUT_MS,
  measure,
  SCENARIO_NAMES,
  wrkScript,
  type Run,
  type Scenario,
  type ScenarioName,
  type Target,
} from './measure.js';
import {
  BENCH_API_KEY,
  BENCH_PERSONAL_API_KEY,
  EVENTS_PER_BATCH,
  PERSON_IDS,
  PERSONS_BODIES,
  writePayloads,
  type PayloadFiles,
} from './payloads.js';
import { memory, type Memory } from './proc-sampler.js';
import { scenarioChart } from './charts.js';
import { floorRoundLine, floorRounds, isNoisy, personsLines, saturation, saturationNotes, summarize, table, targets } from './report.js';
import { createFlags, DEFINITIONS_PATH, FLAGS_PATH, seedPersons, type FlagSetup } from './seed-flags.js';
import {
  killServers,
  personsCaughtUp,
  ROOT,
  scrapeCounters,
  startAckServer,
  startDaemon,
  startDurableAckServer,
  type Server,
} from './servers.js';
import { checkWrk, killWrk, type WrkSettings } from './wrk-runner.js';

const USAGE = `usage: npm run bench -- [options]
  --duration <s>      seconds per measurement (default 10)
  --rounds <n>        rounds; each measures ceiling and daemon (and in the capture scenarios
                      the durable floor) for each scenario (default 3)
  --connections <n>   wrk connections (default 64)
  --threads <n>       wrk threads (default 1)
  --warmup <s>        unrecorded warm-up per server and scenario (default 2, 0 = none)
  --only <scenarios>  comma-separated, of capture, capture-known, capture-personless, batch,
                      flags, flags-new, definitions, persons, persons-paced (default all nine:
                      with the default durations about 13 minutes and --settle; seeding the
                      100,000 persons takes about a second)
                      capture: POST /capture/, one event per request, each a new person; the
                      durable floor takes the same load beside the ceiling and the daemon;
                      capture-known: the same, --known-share % of the requests from one of the
                      100,000 stored persons, the rest new persons;
                      capture-personless: capture's events with $process_person_profile: false
                      (posthog-js's anonymous events by default): stored, no person;
                      flags: POST /flags/?v=2, random persons of 100,000, 50 flags;
                      flags-new: the same, each request a random distinct id no person has;
                      definitions: GET /flags/definitions with a matching If-None-Match (304);
                      persons: POST /batch/ rotating 20 bodies with 10% $identify and 10% $set
                      over 100,000 ids; reports the person processor's events/s and lag
                      (from /metrics) and waits for it to catch up after each daemon run;
                      persons-paced: the same at a fixed offered rate (--persons-rate): the
                      person targets are judged on it (does the processor keep up)
  --known-share <pct> capture-known: the share of requests from stored persons (default 90)
  --persons-rate <n>  events/s offered in persons-paced (default 100000; wrk paces each of
                      its threads at n / 100 / threads requests/s)
  --sync <mode>       daemon HEDGEROW_SYNC: durable | async | none (default durable)
  --settle <s>        after the last run, wait for the person processor, then this long, and
                      read the daemon's memory again: what an idle daemon keeps once its pool
                      workers ended and its threads collected (default 45, 0 = skip)
  --json              also write the results as JSON, bench.json, beside the charts
  --charts <dir>      also write the charts into <dir> (e.g. docs/bench); they always go to
                      bench/results/<timestamp>/<scenario>.svg
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
      'known-share': { type: 'string', default: '90' },
      'persons-rate': { type: 'string', default: '100000' },
      charts: { type: 'string' },
      sync: { type: 'string', default: 'durable' },
      json: { type: 'boolean', default: false },
      'keep-data': { type: 'boolean', default: false },
      settle: { type: 'string', default: '45' },
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
    knownSharePct: knownShare(int('known-share', values['known-share'], 0)),
    warmup: int('warmup', values.warmup, 0),
    settleSeconds: int('settle', values.settle, 0),
    // In the canonical order, each once, whatever order --only gave them in.
    scenarios: SCENARIO_NAMES.filter((n) => only === undefined || only.includes(n)),
    sync: values.sync,
    json: values.json,
    chartsDir: values.charts === undefined ? undefined : path.resolve(values.charts),
    keepData: values['keep-data'],
    cpuProfDir: values['cpu-prof'] === undefined ? undefined : path.resolve(values['cpu-prof']),
    checkBodies: values['check-bodies'],
  };
}

function knownShare(pct: number): number {
  if (pct > 100) throw new Error(`--known-share is a percentage, 0 … 100; got ${pct}\n${USAGE}`);
  return pct;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The selected scenarios; `flagSetup` is there when a flag scenario is selected. */
function scenariosOf(
  names: ScenarioName[],
  payload: PayloadFiles,
  flagSetup: FlagSetup | undefined,
  paced: { eventsPerSecond: number; threads: number },
  knownSharePct: number,
  checkBodies: boolean,
): Map<ScenarioName, Scenario> {
  const capture = { label: 'capture:', match: 'prefix' } as const;
  const flagsRoute = { label: 'flags', match: 'exact' } as const;
  const flagsCheck = checkBodies ? ['check'] : [];
  // The `capture` scenarios: one event per request, against the durable floor, new ids every run;
  // they differ in their bodies' distinct ids and person flag.
  const oneEventCaptures = { path: '/capture/', eventsPerRequest: 1, route: capture, floor: true, numberedRuns: true } as const;
  const captureVariants = {
    capture: {
      title: 'POST /capture/, 1 posthog-node event per request, each a new person',
      scriptArgs: [payload.captureTemplate],
    },
    'capture-known': {
      title: `POST /capture/, 1 event per request, ${knownSharePct}% from ${PERSONS.toLocaleString('en-US')} stored persons`,
      scriptArgs: [payload.captureTemplate, `known=${PERSONS},${knownSharePct}`],
    },
    'capture-personless': {
      title: 'POST /capture/, 1 event per request, $process_person_profile: false (no person)',
      scriptArgs: [payload.capturePersonlessTemplate],
    },
  };
  const build = (name: ScenarioName): Scenario => {
    const common = { name, script: wrkScript(name), daemonScriptArgs: [] as string[], status: '200' };
    switch (name) {
      case 'capture':
      case 'capture-known':
      case 'capture-personless':
        return { ...common, ...oneEventCaptures, ...captureVariants[name] };
      case 'batch':
        return {
          ...common,
          title: `POST /batch/, ${EVENTS_PER_BATCH} posthog-node events per request, gzip`,
          path: '/batch/',
          scriptArgs: [payload.batchGzip],
          eventsPerRequest: EVENTS_PER_BATCH,
          route: capture,
        };
      case 'flags':
        return {
          ...common,
          title: `POST /flags/?v=2, 50 flags, random persons of ${PERSONS.toLocaleString('en-US')} stored`,
          path: FLAGS_PATH,
          scriptArgs: [BENCH_API_KEY, String(PERSONS)],
          daemonScriptArgs: flagsCheck,
          eventsPerRequest: 0,
          route: flagsRoute,
        };
      case 'flags-new':
        return {
          ...common,
          title: 'POST /flags/?v=2, 50 flags, a random distinct id no person has per request',
          path: FLAGS_PATH,
          scriptArgs: [BENCH_API_KEY, 'new'],
          daemonScriptArgs: flagsCheck,
          eventsPerRequest: 0,
          route: flagsRoute,
        };
      case 'persons':
        return {
          ...common,
          title: `POST /batch/, 20% $identify/$set over ${PERSON_IDS.toLocaleString('en-US')} ids, as fast as answered`,
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
          title: `the persons scenario's bodies offered at ${paced.eventsPerSecond.toLocaleString('en-US')} events/s`,
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
          title: 'GET /flags/definitions with a matching If-None-Match (304)',
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
  const selected = (...names: ScenarioName[]) => names.some((n) => opts.scenarios.includes(n));
  const withFlags = selected('flags', 'flags-new', 'definitions');
  // capture-known's stored persons are the flag scenarios' (flags' evaluation check needs them too).
  const withPersons = withFlags || selected('capture-known');
  const withFloor = selected('capture', 'capture-known', 'capture-personless');
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
  let heapsAfter: ThreadHeaps | undefined;
  let settled: { memory: Memory; caughtUp: boolean; heaps: ThreadHeaps | undefined } | undefined;
  const startedAt = new Date();
  try {
    const ceiling = await startAckServer();
    servers.push(ceiling);
    // The durable floor, as `npm run bench:floor` starts it: its own store beside the daemon's.
    const floor = withFloor ? await startDurableAckServer(path.join(work, 'floor')) : undefined;
    if (floor) servers.push(floor);
    const nodeArgs = opts.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.cpuProfDir}`] : [];
    if (withPersons) {
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
      opts.knownSharePct,
      opts.checkBodies,
    );
    const scenario = (name: ScenarioName) => scenarios.get(name) as Scenario;
    const serverOf = (t: Target): Server => {
      const server = { ceiling, floor, daemon }[t];
      if (!server) throw new Error(`no ${t} server was started`);
      return server;
    };
    /** The servers a scenario measures, in the order of odd rounds (even rounds reverse it). */
    const targetsOf = (name: ScenarioName): Target[] => (scenario(name).floor ? ['ceiling', 'floor', 'daemon'] : ['ceiling', 'daemon']);

    if (opts.warmup > 0) {
      for (const name of opts.scenarios) {
        for (const t of targetsOf(name)) {
          const w = await measure(serverOf(t), t, scenario(name), { ...opts.wrk, durationSeconds: opts.warmup }, 0);
          if (w.problems.length > 0) throw new Error(`warm-up of ${t} ${name} failed: ${w.problems.join('; ')}`);
        }
      }
    }
    for (let round = 1; round <= opts.rounds; round++) {
      for (const name of opts.scenarios) {
        const order = targetsOf(name);
        if (round % 2 === 0) order.reverse();
        for (const t of order) {
          await sleep(SETTLE_MS);
          const run = await measure(serverOf(t), t, scenario(name), opts.wrk, round);
          runs.push(run);
          const line =
            `round ${round} ${name.padEnd(18)} ${t.padEnd(7)} ${Math.round(run.wrk.requestsPerSecond).toLocaleString('en-US')} req/s` +
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
        for (const r of floorRounds(runs, name).filter((x) => x.round === round)) console.log(floorRoundLine(r, name));
      }
    }
    mem = memory(daemon.pid);
    heapsAfter = await threadHeaps(daemon.port);
    if (opts.settleSeconds > 0) {
      // Idle pool workers end after 30 s and quiet threads collect after 10 s (docs/decisions.md).
      const caughtUp = await personsCaughtUp(daemon.port, CATCH_UP_TIMEOUT_MS);
      await new Promise((resolve) => setTimeout(resolve, opts.settleSeconds * 1000));
      settled = { memory: memory(daemon.pid), caughtUp, heaps: await threadHeaps(daemon.port) };
    }
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
  if (heapsAfter) console.log(`V8 heaps after the run: ${heapsLine(heapsAfter)}`);
  if (settled) {
    const { memory: m, caughtUp, heaps } = settled;
    console.log(
      `settled: ${opts.settleSeconds} s after the last run (${caughtUp ? 'the person processor caught up' : 'the person processor had not caught up within 60 s'}), ` +
        `the daemon holds ${m.anonMiB} MiB anonymous (resident ${m.rssMiB} MiB, of which files ${m.fileMiB})` +
        (heaps ? `; V8 heaps: ${heapsLine(heaps)}` : ''),
    );
  }
  for (const s of summaries) {
    const rounds = s.floor?.rounds ?? [];
    if (rounds.length === 0) continue;
    console.log(
      `${s.scenario}: daemon/floor per round ${rounds.map((r) => r.ratio.toFixed(3)).join(', ')}; ` +
        `p99 × the floor's ${rounds.map((r) => r.p99Multiple.toFixed(2)).join(', ')}`,
    );
  }
  for (const l of personsLines(summaries)) console.log(l);
  for (const n of saturationNotes(summaries)) console.log(n);
  for (const s of summaries) {
    const slack =
      s.eventsPerRequest > 0 ? `accepted ${s.slackEvents.join(', ')} events` : `answered ${s.slackRequests.join(', ')} requests`;
    console.log(`${s.scenario}: daemon ${slack} beyond wrk's count per round (in flight at the end)`);
  }
  // One line per command, whatever run number capture.lua was given.
  const wrkCommands = [...new Set(runs.map((r) => r.wrk.command.replace(/ run=\d+/, ' run=<n>')))];
  console.log(`\ncommand: ${command}\nwrk: ${wrkCommands.join('\n     ')}`);

  const problems = runs.flatMap((r) => r.problems.map((p) => `round ${r.round} ${r.scenario} ${r.target}: ${p}`));
  const resultsDir = path.join(ROOT, 'bench', 'results', startedAt.toISOString().replace(/[:.]/g, '-'));
  const measured = measuredAt(startedAt);
  const load = `${opts.rounds} round${opts.rounds === 1 ? '' : 's'} of ${opts.wrk.durationSeconds} s, wrk -t${opts.wrk.threads} -c${opts.wrk.connections}`;
  for (const dir of [resultsDir, ...(opts.chartsDir ? [opts.chartsDir] : [])]) {
    mkdirSync(dir, { recursive: true });
    for (const s of summaries) {
      const chart = scenarioChart(
        s,
        checks.filter((c) => c.scenario === s.scenario),
        {
          title: scenarios.get(s.scenario)?.title ?? s.scenario,
          measured,
          load,
          failedRuns: runs.filter((r) => r.scenario === s.scenario && r.problems.length > 0).length,
        },
      );
      writeFileSync(path.join(dir, `${s.scenario}.svg`), chart);
    }
  }
  const where = (dir: string) => path.relative(process.cwd(), dir) || '.';
  console.log(`charts: ${where(resultsDir)}/<scenario>.svg${opts.chartsDir ? ` and ${where(opts.chartsDir)}/<scenario>.svg` : ''}`);
  if (opts.json) {
    const file = path.join(resultsDir, 'bench.json');
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
      `${JSON.stringify({ command, measured, machine, options: opts, payload, flags, summaries, targets: checks, memory: mem, heapsAfter, settled, problems, runs }, null, 2)}\n`,
    );
    console.log(`results: ${where(file)}`);
  }
  if (problems.length > 0) {
    console.error(`\nFAILED: ${problems.length} run(s) saw errors; their rates are not valid:\n  ${problems.join('\n  ')}`);
    return 1;
  }
  return 0;
}

/** `2026-11-29, commit 982a8be` (with `and changes not committed` when the work tree differs). */
function measuredAt(at: Date): string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  let commit: string;
  try {
    commit = `commit ${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain', '--untracked-files=no') === '' ? '' : ' and changes not committed'}`;
  } catch {
    commit = 'commit unknown (no git)';
  }
  return `${at.toISOString().slice(0, 10)}, ${commit}`;
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

/** Thread name → bytes of its V8 heap. */
type ThreadHeaps = Record<string, number>;

/** The daemon's V8 heap per thread (hedgerow_thread_heap_bytes); undefined when /metrics does not answer. */
async function threadHeaps(port: number): Promise<ThreadHeaps | undefined> {
  try {
    return Object.fromEntries((await scrapeCounters(port)).threadHeaps);
  } catch {
    return undefined;
  }
}

/** `main 26.7, person-processor-1 35.0, … (120.5 MB in all)`. */
function heapsLine(heaps: ThreadHeaps): string {
  const mb = (bytes: number) => (bytes / 1e6).toFixed(1);
  const entries = Object.entries(heaps);
  const total = entries.reduce((n, [, bytes]) => n + bytes, 0);
  return `${entries.map(([thread, bytes]) => `${thread} ${mb(bytes)}`).join(', ')} MB (${mb(total)} MB in all)`;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`bench: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);

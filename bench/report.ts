/**
 * Turns the runs into medians with their spread (min–max over rounds), the daemon/ceiling ratio
 * per round (and, for the `capture` scenarios, the daemon against the durable floor: its rate's
 * ratio and its p99 as a multiple of the floor's), a saturation verdict, the target checks of the
 * scenarios that ran, and a compact table.
 */
import type { Memory } from './proc-sampler.js';
import type { Run, ScenarioName, Target } from './measure.js';

export interface Spread {
  median: number;
  min: number;
  max: number;
}

export function spread(values: number[]): Spread {
  const v = [...values].sort((a, b) => a - b);
  if (v.length === 0) return { median: NaN, min: NaN, max: NaN };
  const mid = Math.floor(v.length / 2);
  const median = v.length % 2 ? (v[mid] as number) : ((v[mid - 1] as number) + (v[mid] as number)) / 2;
  return { median, min: v[0] as number, max: v[v.length - 1] as number };
}

/** A run during which other programs used this much of a core is not comparable (shared machine). */
export const NOISY_OTHER_PCT = 20;

export function isNoisy(run: Run): boolean {
  return run.cpu.otherPct >= NOISY_OTHER_PCT;
}

/**
 * What limited a run (a rate is only quotable if something was saturated): the server's main thread
 * (uWS loop) and/or wrk at ≥ 90% of a core, else every core busy. "none" means the server waited
 * (on commits, on the pool) with CPU to spare: the rate is latency-bound, and the idle% column says
 * how much CPU was left.
 */
export function saturation(run: Run): string {
  const limits = [
    ...((run.cpu.server?.main ?? 0) >= 90 ? ['server main thread'] : []),
    ...((run.cpu.wrk?.total ?? 0) >= 90 ? ['wrk'] : []),
  ];
  if (limits.length > 0) return limits.join(' + ');
  return run.cpu.machineIdlePct < 10 ? 'all cores busy' : 'none (CPU idle)';
}

/** Per server: the ceiling and the daemon always, the durable floor in the scenarios it takes. */
export type PerServer<T> = Record<'ceiling' | 'daemon', T> & { floor?: T };

/** The servers of a summary in the order the report lists them. */
export function serversOf(s: ScenarioSummary): Target[] {
  return s.rps.floor ? ['ceiling', 'floor', 'daemon'] : ['ceiling', 'daemon'];
}

/** `x`'s figure for server `t`, which the summary must have measured (serversOf). */
export function ofServer<T>(x: PerServer<T>, t: Target): T {
  const v = x[t];
  if (v === undefined) throw new Error(`no ${t} runs in this summary`);
  return v;
}

export interface ScenarioSummary {
  scenario: ScenarioName;
  eventsPerRequest: number;
  /** Runs the figures use, of all runs: noisy ones are left out while a quiet one remains. */
  used: PerServer<{ used: number; total: number }>;
  rps: PerServer<Spread>;
  eventsPerSecond: PerServer<Spread>;
  /** daemon ÷ ceiling, paired by round, over rounds where neither run was noisy (if any). */
  ratio: Spread;
  ratioPairs: { used: number; total: number };
  /** The daemon against the durable floor (the scenarios the floor takes). */
  floor?: FloorSummary;
  p50Ms: PerServer<Spread>;
  p99Ms: PerServer<Spread>;
  cpu: PerServer<{ serverPct: Spread; mainPct: Spread; busiestOtherPct: Spread; wrkPct: Spread; idlePct: Spread; otherPct: Spread }>;
  saturation: PerServer<string[]>;
  /** Events the daemon accepted beyond wrk's count, per round (requests in flight at the end). */
  slackEvents: number[];
  /** Requests the daemon answered beyond wrk's count, per round (in flight at the end). */
  slackRequests: number[];
  /** The person processor over the daemon runs (`persons` scenario only). */
  persons?: PersonsSummary;
}

/** One round's daemon run against the same round's floor run. */
export interface FloorRound {
  round: number;
  /** daemon req/s ÷ floor req/s. */
  ratio: number;
  /** daemon p99 ÷ floor p99. */
  p99Multiple: number;
  /** Neither run was noisy. */
  quiet: boolean;
}

export interface FloorSummary {
  /** Over the rounds where neither run was noisy (if any), like `ratio`. */
  ratio: Spread;
  p99Multiple: Spread;
  pairs: { used: number; total: number };
  /** floor ÷ ceiling, paired by round: how much of the ceiling a durable acknowledgement leaves. */
  floorToCeiling: Spread;
  rounds: FloorRound[];
}

/** The daemon's run of each round against the floor's (none without floor runs). */
export function floorRounds(runs: Run[], scenario: ScenarioName): FloorRound[] {
  const of = (t: Target) => runs.filter((r) => r.scenario === scenario && r.target === t);
  return of('daemon').flatMap((d) => {
    const f = of('floor').find((x) => x.round === d.round);
    if (!f) return [];
    return [
      {
        round: d.round,
        ratio: d.wrk.requestsPerSecond / f.wrk.requestsPerSecond,
        p99Multiple: d.wrk.latencyMs.p99 / f.wrk.latencyMs.p99,
        quiet: !isNoisy(d) && !isNoisy(f),
      },
    ];
  });
}

/** `round 1 capture: daemon/floor 0.584, p99 1.92× the floor's` for the round's line. */
export function floorRoundLine(r: FloorRound, scenario: ScenarioName): string {
  return (
    `round ${r.round} ${scenario.padEnd(18)} daemon/floor ${r.ratio.toFixed(3)}, p99 ${r.p99Multiple.toFixed(2)}× the floor's` +
    (r.quiet ? '' : ' [NOISY]')
  );
}

export interface PersonsSummary {
  ingestedPerSecond: Spread;
  processedPerSecond: Spread;
  overallPerSecond: Spread;
  behindAtEnd: Spread;
  catchUpSeconds: Spread;
  lagP50Ms: Spread;
  lagP99Ms: Spread;
  /** Share of the applied blocks the processor took from the hand-off ring (not read back). */
  handedOffShare: Spread;
  /** Runs where /_persons/caught_up gave up. */
  notCaughtUp: number;
  runs: number;
}

/** The quiet runs if there are any, else all of them. */
function preferQuiet(runs: Run[]): Run[] {
  const quiet = runs.filter((r) => !isNoisy(r));
  return quiet.length > 0 ? quiet : runs;
}

function summarizePersons(runs: Run[]): PersonsSummary | undefined {
  const p = runs.flatMap((r) => (r.persons ? [r.persons] : []));
  if (p.length === 0) return undefined;
  return {
    ingestedPerSecond: spread(p.map((x) => x.ingestedPerSecond)),
    processedPerSecond: spread(p.map((x) => x.processedPerSecond)),
    overallPerSecond: spread(p.map((x) => x.overallPerSecond)),
    behindAtEnd: spread(p.map((x) => x.behindAtEnd)),
    catchUpSeconds: spread(p.map((x) => x.catchUpSeconds)),
    lagP50Ms: spread(p.map((x) => x.lagMs.p50)),
    lagP99Ms: spread(p.map((x) => x.lagMs.p99)),
    handedOffShare: spread(p.map((x) => x.handedOffShare * 100)),
    notCaughtUp: p.filter((x) => !x.caughtUp).length,
    runs: p.length,
  };
}

export function summarize(runs: Run[], scenario: ScenarioName, eventsPerRequest: number): ScenarioSummary {
  const all = (t: Target) => runs.filter((r) => r.scenario === scenario && r.target === t);
  const of = (t: Target) => preferQuiet(all(t));
  const withFloor = all('floor').length > 0;
  const by = <T>(f: (t: Target) => T): PerServer<T> => ({
    ceiling: f('ceiling'),
    daemon: f('daemon'),
    ...(withFloor ? { floor: f('floor') } : {}),
  });
  /** Runs of `a` and `b` from the same round; only the quiet pairs while there are any. */
  const paired = (a: Target, b: Target) => {
    const pairs = all(a).flatMap((x) => {
      const y = all(b).find((r) => r.round === x.round);
      return y ? [{ x, y, quiet: !isNoisy(x) && !isNoisy(y) }] : [];
    });
    const quiet = pairs.filter((p) => p.quiet);
    return { used: quiet.length > 0 ? quiet : pairs, total: pairs.length };
  };
  const rate = (r: Run) => r.wrk.requestsPerSecond;
  const toCeiling = paired('daemon', 'ceiling');
  const toFloor = paired('daemon', 'floor');
  return {
    scenario,
    eventsPerRequest,
    used: by((t) => ({ used: of(t).length, total: all(t).length })),
    rps: by((t) => spread(of(t).map(rate))),
    eventsPerSecond: by((t) => spread(of(t).map((r) => rate(r) * eventsPerRequest))),
    ratio: spread(toCeiling.used.map((p) => rate(p.x) / rate(p.y))),
    ratioPairs: { used: toCeiling.used.length, total: toCeiling.total },
    ...(withFloor
      ? {
          floor: {
            ratio: spread(toFloor.used.map((p) => rate(p.x) / rate(p.y))),
            p99Multiple: spread(toFloor.used.map((p) => p.x.wrk.latencyMs.p99 / p.y.wrk.latencyMs.p99)),
            pairs: { used: toFloor.used.length, total: toFloor.total },
            floorToCeiling: spread(paired('floor', 'ceiling').used.map((p) => rate(p.x) / rate(p.y))),
            rounds: floorRounds(runs, scenario),
          },
        }
      : {}),
    p50Ms: by((t) => spread(of(t).map((r) => r.wrk.latencyMs.p50))),
    p99Ms: by((t) => spread(of(t).map((r) => r.wrk.latencyMs.p99))),
    cpu: by((t) => ({
      serverPct: spread(of(t).map((r) => r.cpu.server?.total ?? NaN)),
      mainPct: spread(of(t).map((r) => r.cpu.server?.main ?? NaN)),
      busiestOtherPct: spread(of(t).map((r) => r.cpu.server?.busiestOthers[0] ?? 0)),
      wrkPct: spread(of(t).map((r) => r.cpu.wrk?.total ?? NaN)),
      idlePct: spread(of(t).map((r) => r.cpu.machineIdlePct)),
      otherPct: spread(of(t).map((r) => r.cpu.otherPct)),
    })),
    saturation: by((t) => of(t).map(saturation)),
    slackEvents: all('daemon').map((r) => r.check?.slackEvents ?? NaN),
    slackRequests: all('daemon').map((r) => r.check?.slackRequests ?? NaN),
    ...(() => {
      const persons = summarizePersons(of('daemon'));
      return persons ? { persons } : {};
    })(),
  };
}

/** The person processor next to the ingestion rate, one line per scenario that measured it. */
export function personsLines(summaries: ScenarioSummary[]): string[] {
  return summaries.flatMap((s) => {
    const p = s.persons;
    if (!p) return [];
    return [
      `${s.scenario}: ingestion ${fmt(p.ingestedPerSecond)} events/s; person processor ${fmt(p.processedPerSecond)} events/s during the run, ` +
        `${fmt(p.overallPerSecond)} until caught up (${fmt(p.catchUpSeconds, 2)} s after wrk's end` +
        `${p.notCaughtUp > 0 ? `; NOT caught up within the wait in ${p.notCaughtUp}/${p.runs} runs` : ''}); ` +
        `events behind at wrk's end ${fmt(p.behindAtEnd)}; lag p50 ${fmt(p.lagP50Ms, 1)} ms, p99 ${fmt(p.lagP99Ms, 1)} ms ` +
        '(hedgerow_person_processing_lag_seconds, per event block, interpolated in its buckets); ' +
        `blocks from the hand-off ring ${fmt(p.handedOffShare, 1)}% (hedgerow_person_blocks_read_total)`,
    ];
  });
}

/** "none (CPU idle) ×2, all cores busy" */
function tally(labels: string[]): string {
  const counts = new Map<string, number>();
  for (const l of labels) counts.set(l, (counts.get(l) ?? 0) + 1);
  return [...counts].map(([l, n]) => (n > 1 ? `${l} ×${n}` : l)).join(', ');
}

const num = (n: number, digits = 0) =>
  Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '-';
const fmt = (s: Spread, digits = 0) => `${num(s.median, digits)} [${num(s.min, digits)}–${num(s.max, digits)}]`;

export function table(summaries: ScenarioSummary[]): string {
  const head = [
    'scenario',
    'server',
    'runs',
    'req/s median [min–max]',
    'events/s median',
    'p50 ms',
    'p99 ms',
    'server CPU% (main / busiest other)',
    'wrk CPU%',
    'others%',
    'idle%',
    'limit',
  ];
  const rows: string[][] = [head];
  for (const s of summaries) {
    for (const t of serversOf(s)) {
      const at = <T>(x: PerServer<T>) => ofServer(x, t);
      const cpu = at(s.cpu);
      const used = at(s.used);
      rows.push([
        s.eventsPerRequest > 0 ? `${s.scenario} (${s.eventsPerRequest} ev)` : s.scenario,
        t,
        `${used.used}/${used.total}`,
        fmt(at(s.rps)),
        s.eventsPerRequest > 0 ? num(at(s.eventsPerSecond).median) : '-',
        fmt(at(s.p50Ms), 2),
        fmt(at(s.p99Ms), 2),
        `${num(cpu.serverPct.median)} (${num(cpu.mainPct.median)} / ${num(cpu.busiestOtherPct.median)})`,
        num(cpu.wrkPct.median),
        num(cpu.otherPct.median),
        num(cpu.idlePct.median),
        tally(at(s.saturation)),
      ]);
    }
    rows.push(['', 'ratio', `${s.ratioPairs.used}/${s.ratioPairs.total}`, `${fmt(s.ratio, 3)} daemon/ceiling`]);
    const f = s.floor;
    if (f) {
      const pairs = `${f.pairs.used}/${f.pairs.total}`;
      rows.push(['', 'ratio', pairs, `${fmt(f.ratio, 3)} daemon/floor`, '', '', `${fmt(f.p99Multiple, 2)}× the floor's`]);
      rows.push(['', 'ratio', '', `${fmt(f.floorToCeiling, 3)} floor/ceiling`]);
    }
  }
  const legend =
    `runs: used/measured; a run is left out when other programs used ≥ ${NOISY_OTHER_PCT}% of a core during it ` +
    '(a ratio only from rounds where both runs were quiet), unless no quiet run remains.';
  const widths = head.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return `${rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')}\n${legend}`;
}

export interface TargetCheck {
  name: string;
  value: string;
  pass: boolean;
  /** The scenario it judges (none for the daemon's memory after the run). */
  scenario?: ScenarioName;
}

/** The flag targets: requests/s and p99 on this 2-core machine, the 304 path against the ceiling. */
export const FLAGS_MIN_RPS = 30_000;
export const FLAGS_MAX_P99_MS = 5;
export const DEFINITIONS_MIN_RATIO = 0.5;
/**
 * `/batch/`'s events/s; the daemon's anonymous memory after the run (the pages of the store it
 * mapped in are the rest of its resident memory). `/capture/` is judged against the durable floor
 * only: a durable acknowledgement alone leaves 0.2–0.4 of the ceiling (docs/benchmarks.md).
 */
export const BATCH_MIN_EVENTS_PER_SECOND = 250_000;
export const MAX_ANON_MIB = 250;
/** The `capture` scenarios against the durable floor: the daemon's share of its rate, its p99 as a multiple of the floor's. */
export const FLOOR_MIN_RATIO = 0.8;
export const FLOOR_MAX_P99_MULTIPLE = 1.5;
/** The persons target: the processor keeps up with this many events/s, with this lag p99. */
export const PERSONS_MIN_EVENTS_PER_SECOND = 100_000;
export const PERSONS_MAX_LAG_P99_MS = 250;
/** Share of the target a paced run's count must reach (requests at the edges of wrk's window). */
const PACED_COUNT_TOLERANCE = 0.98;

/**
 * The targets of the scenarios that ran (capture and its floor, batch, memory; flags, definitions;
 * persons), listed in docs/benchmarks.md.
 */
export function targets(summaries: ScenarioSummary[], mem: Memory | undefined, pacedEventsPerSecond: number): TargetCheck[] {
  const out: TargetCheck[] = [];
  const of = (name: ScenarioName) => summaries.find((s) => s.scenario === name);
  const batch = of('batch');
  const definitions = of('definitions');
  // Judged on the paced run when there is one (does the processor keep up with the offered
  // load?); the saturating run then only reports how far each side gets.
  const paced = of('persons-paced')?.persons;
  const persons = paced ?? of('persons')?.persons;
  for (const s of summaries) {
    const f = s.floor;
    if (!f) continue;
    out.push({
      name: `${s.scenario}: daemon/floor ≥ ${FLOOR_MIN_RATIO}`,
      value: `${fmt(f.ratio, 3)} (${fmt(s.rps.daemon)} req/s)`,
      pass: f.ratio.median >= FLOOR_MIN_RATIO,
      scenario: s.scenario,
    });
    out.push({
      name: `${s.scenario}: p99 ≤ ${FLOOR_MAX_P99_MULTIPLE}× the floor's`,
      value: `${fmt(f.p99Multiple, 2)}× (${fmt(s.p99Ms.daemon, 2)} ms)`,
      pass: f.p99Multiple.median <= FLOOR_MAX_P99_MULTIPLE,
      scenario: s.scenario,
    });
  }
  if (batch) {
    const eps = batch.eventsPerSecond.daemon;
    out.push({
      name: `/batch/ ≥ ${num(BATCH_MIN_EVENTS_PER_SECOND)} events/s`,
      value: fmt(eps),
      pass: eps.median >= BATCH_MIN_EVENTS_PER_SECOND,
      scenario: 'batch',
    });
  }
  for (const name of ['flags', 'flags-new'] as const) {
    const flags = of(name);
    if (!flags) continue;
    out.push({
      name: `${name}: /flags/?v=2 ≥ ${num(FLAGS_MIN_RPS)} req/s`,
      value: `${fmt(flags.rps.daemon)} req/s = ${fmt(flags.ratio, 3)} of the ceiling`,
      pass: flags.rps.daemon.median >= FLAGS_MIN_RPS,
      scenario: name,
    });
    out.push({
      name: `${name}: /flags/?v=2 p99 < ${FLAGS_MAX_P99_MS} ms`,
      value: `${fmt(flags.p99Ms.daemon, 2)} ms (p50 ${fmt(flags.p50Ms.daemon, 2)} ms)`,
      pass: flags.p99Ms.daemon.median < FLAGS_MAX_P99_MS,
      scenario: name,
    });
  }
  if (definitions) {
    out.push({
      scenario: 'definitions',
      name: `/flags/definitions 304 daemon/ceiling ≥ ${DEFINITIONS_MIN_RATIO}`,
      value:
        `${fmt(definitions.ratio, 3)} (${fmt(definitions.rps.daemon)} req/s; ` +
        `p50 ${fmt(definitions.p50Ms.daemon, 2)} ms, p99 ${fmt(definitions.p99Ms.daemon, 2)} ms)`,
      pass: definitions.ratio.median >= DEFINITIONS_MIN_RATIO,
    });
  }
  if (persons) {
    const caught = persons.notCaughtUp === 0 ? '' : `; not caught up in ${persons.notCaughtUp}/${persons.runs} runs`;
    const offered = paced ? ` at ${num(pacedEventsPerSecond)} events/s offered (persons-paced)` : '';
    const scenario = paced ? 'persons-paced' : 'persons';
    out.push({
      scenario,
      name: `${scenario}: processor ≥ ${num(PERSONS_MIN_EVENTS_PER_SECOND)} events/s${offered}`,
      value:
        `${fmt(persons.processedPerSecond)} events/s during the run, ${fmt(persons.overallPerSecond)} until caught up ` +
        `(ingestion ${fmt(persons.ingestedPerSecond)} events/s)${caught}`,
      // Paced: wrk's window edges move a request or two (±1%) in or out of the count.
      pass:
        persons.processedPerSecond.median >= PERSONS_MIN_EVENTS_PER_SECOND * (paced ? PACED_COUNT_TOLERANCE : 1) &&
        persons.notCaughtUp === 0,
    });
    out.push({
      scenario,
      name: `${scenario}: processing lag p99 < ${PERSONS_MAX_LAG_P99_MS} ms`,
      value: `${fmt(persons.lagP99Ms, 1)} ms (p50 ${fmt(persons.lagP50Ms, 1)} ms)${caught}`,
      pass: persons.lagP99Ms.median < PERSONS_MAX_LAG_P99_MS && persons.notCaughtUp === 0,
    });
  }
  if (mem) {
    out.push({
      name: `daemon anonymous memory ≤ ${MAX_ANON_MIB} MiB after the run`,
      value: `${mem.anonMiB} MiB (resident ${mem.rssMiB} MiB, of which files ${mem.fileMiB}; peak ${mem.hwmMiB} MiB)`,
      pass: mem.anonMiB <= MAX_ANON_MIB,
    });
  }
  return out;
}

/** Daemon rates not bound by any saturated resource (a rate is quotable only when one was). */
export function saturationNotes(summaries: ScenarioSummary[]): string[] {
  return summaries.flatMap((s) => {
    const idle = s.saturation.daemon.filter((l) => l.startsWith('none')).length;
    if (idle === 0) return [];
    const range = s.cpu.daemon.idlePct;
    return [
      `NOTE  daemon ${s.scenario}: ${idle}/${s.saturation.daemon.length} runs saturated nothing (CPU ${range.min.toFixed(0)}–${range.max.toFixed(0)}% idle): ` +
        `the rate is bound by latency (${s.eventsPerRequest > 0 ? 'commits, thread hops' : 'thread hops, waiting for a pool slot'}) ` +
        'with a fixed number of closed-loop connections, not by CPU',
    ];
  });
}

/**
 * Turns the runs into medians with their spread (min–max over rounds), the daemon/ceiling ratio
 * per round, a saturation verdict, the target checks of the scenarios that ran, and a compact table.
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

export interface ScenarioSummary {
  scenario: ScenarioName;
  eventsPerRequest: number;
  /** Runs the figures use, of all runs: noisy ones are left out while a quiet one remains. */
  used: Record<Target, { used: number; total: number }>;
  rps: Record<Target, Spread>;
  eventsPerSecond: Record<Target, Spread>;
  /** daemon ÷ ceiling, paired by round, over rounds where neither run was noisy (if any). */
  ratio: Spread;
  ratioPairs: { used: number; total: number };
  p50Ms: Record<Target, Spread>;
  p99Ms: Record<Target, Spread>;
  cpu: Record<Target, { serverPct: Spread; mainPct: Spread; busiestOtherPct: Spread; wrkPct: Spread; idlePct: Spread; otherPct: Spread }>;
  saturation: Record<Target, string[]>;
  /** Events the daemon accepted beyond wrk's count, per round (requests in flight at the end). */
  slackEvents: number[];
  /** Requests the daemon answered beyond wrk's count, per round (in flight at the end). */
  slackRequests: number[];
  /** The person processor over the daemon runs (`persons` scenario only). */
  persons?: PersonsSummary;
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
  const by = <T>(f: (t: Target) => T): Record<Target, T> => ({ ceiling: f('ceiling'), daemon: f('daemon') });
  const pairs = all('daemon').flatMap((d) => {
    const c = all('ceiling').find((x) => x.round === d.round);
    return c ? [{ d, c, quiet: !isNoisy(d) && !isNoisy(c) }] : [];
  });
  const quietPairs = pairs.filter((p) => p.quiet);
  const usedPairs = quietPairs.length > 0 ? quietPairs : pairs;
  return {
    scenario,
    eventsPerRequest,
    used: by((t) => ({ used: of(t).length, total: all(t).length })),
    rps: by((t) => spread(of(t).map((r) => r.wrk.requestsPerSecond))),
    eventsPerSecond: by((t) => spread(of(t).map((r) => r.wrk.requestsPerSecond * eventsPerRequest))),
    ratio: spread(usedPairs.map((p) => p.d.wrk.requestsPerSecond / p.c.wrk.requestsPerSecond)),
    ratioPairs: { used: usedPairs.length, total: pairs.length },
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
    for (const t of ['ceiling', 'daemon'] as const) {
      const cpu = s.cpu[t];
      rows.push([
        s.eventsPerRequest > 0 ? `${s.scenario} (${s.eventsPerRequest} ev)` : s.scenario,
        t,
        `${s.used[t].used}/${s.used[t].total}`,
        fmt(s.rps[t]),
        s.eventsPerRequest > 0 ? num(s.eventsPerSecond[t].median) : '-',
        fmt(s.p50Ms[t], 2),
        fmt(s.p99Ms[t], 2),
        `${num(cpu.serverPct.median)} (${num(cpu.mainPct.median)} / ${num(cpu.busiestOtherPct.median)})`,
        num(cpu.wrkPct.median),
        num(cpu.otherPct.median),
        num(cpu.idlePct.median),
        tally(s.saturation[t]),
      ]);
    }
    rows.push(['', 'ratio', `${s.ratioPairs.used}/${s.ratioPairs.total}`, `${fmt(s.ratio, 3)} daemon/ceiling`]);
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
}

/** The flag targets: requests/s and p99 on this 2-core machine, the 304 path against the ceiling. */
export const FLAGS_MIN_RPS = 30_000;
export const FLAGS_MAX_P99_MS = 5;
export const DEFINITIONS_MIN_RATIO = 0.5;
/** The persons target: the processor keeps up with this many events/s, with this lag p99. */
export const PERSONS_MIN_EVENTS_PER_SECOND = 100_000;
export const PERSONS_MAX_LAG_P99_MS = 250;
/** Share of the target a paced run's count must reach (requests at the edges of wrk's window). */
const PACED_COUNT_TOLERANCE = 0.98;

/** The targets of the scenarios that ran (capture, batch, memory; flags, definitions; persons), listed in docs/benchmarks.md. */
export function targets(summaries: ScenarioSummary[], mem: Memory | undefined, pacedEventsPerSecond: number): TargetCheck[] {
  const out: TargetCheck[] = [];
  const of = (name: ScenarioName) => summaries.find((s) => s.scenario === name);
  const capture = of('capture');
  const batch = of('batch');
  const flags = of('flags');
  const definitions = of('definitions');
  // Judged on the paced run when there is one (does the processor keep up with the offered
  // load?); the saturating run then only reports how far each side gets.
  const paced = of('persons-paced')?.persons;
  const persons = paced ?? of('persons')?.persons;
  if (capture) {
    out.push({ name: '/capture/ daemon/ceiling ≥ 0.5', value: fmt(capture.ratio, 3), pass: capture.ratio.median >= 0.5 });
    out.push({ name: '/capture/ p99 < 5 ms', value: `${fmt(capture.p99Ms.daemon, 2)} ms`, pass: capture.p99Ms.daemon.median < 5 });
  }
  if (batch) {
    const eps = batch.eventsPerSecond.daemon;
    out.push({ name: '/batch/ ≥ 400,000 events/s', value: fmt(eps), pass: eps.median >= 400_000 });
  }
  if (flags) {
    out.push({
      name: `/flags/?v=2 ≥ ${num(FLAGS_MIN_RPS)} req/s`,
      value: `${fmt(flags.rps.daemon)} req/s = ${fmt(flags.ratio, 3)} of the ceiling`,
      pass: flags.rps.daemon.median >= FLAGS_MIN_RPS,
    });
    out.push({
      name: `/flags/?v=2 p99 < ${FLAGS_MAX_P99_MS} ms`,
      value: `${fmt(flags.p99Ms.daemon, 2)} ms (p50 ${fmt(flags.p50Ms.daemon, 2)} ms)`,
      pass: flags.p99Ms.daemon.median < FLAGS_MAX_P99_MS,
    });
  }
  if (definitions) {
    out.push({
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
      name: `${scenario}: processing lag p99 < ${PERSONS_MAX_LAG_P99_MS} ms`,
      value: `${fmt(persons.lagP99Ms, 1)} ms (p50 ${fmt(persons.lagP50Ms, 1)} ms)${caught}`,
      pass: persons.lagP99Ms.median < PERSONS_MAX_LAG_P99_MS && persons.notCaughtUp === 0,
    });
  }
  if (mem) {
    out.push({
      name: 'daemon RSS < 300 MiB',
      value: `${mem.rssMiB} MiB now (anon ${mem.anonMiB}, file ${mem.fileMiB}), peak ${mem.hwmMiB} MiB`,
      pass: mem.rssMiB < 300,
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

/**
 * One measurement: wrk against one server for one scenario, with the server's and wrk's CPU
 * sampled over the run and, for the daemon, its /metrics counters checked against what wrk saw:
 * the requests its route answered, their statuses, and the events it accepted.
 */
import path from 'node:path';
import { nextCaptureRun } from './payloads.js';
import { CpuSampler, memory, type CpuUsage, type Memory } from './proc-sampler.js';
import {
  personsCaughtUp,
  ROOT,
  routeRequests,
  scrapeCounters,
  scrapePersons,
  settledCounters,
  type DaemonCounters,
  type PersonCounters,
  type Server,
} from './servers.js';
import { failures, startWrk, type WrkResult, type WrkSettings } from './wrk-runner.js';

export const SCENARIO_NAMES = [
  'capture',
  'capture-known',
  'capture-personless',
  'batch',
  'flags',
  'flags-new',
  'definitions',
  'persons',
  'persons-paced',
] as const;
export type ScenarioName = (typeof SCENARIO_NAMES)[number];
/**
 * The servers a scenario's rounds measure: the ack-only ceiling, the durable floor (the
 * ceiling's server with a durable append per body: `capture` scenarios only) and the daemon.
 */
export type Target = 'ceiling' | 'floor' | 'daemon';

/** Which `route` labels of hedgerow_http_requests_total a scenario's requests count under. */
export interface RouteMatch {
  label: string;
  /** `prefix`: every route whose label starts with `label` (capture's per-path routes). */
  match: 'exact' | 'prefix';
}

export interface Scenario {
  name: ScenarioName;
  /** What the scenario sends, in words (the report's charts). */
  title: string;
  /** Path and query wrk requests. */
  path: string;
  script: string;
  /** What the Lua script takes after `--` (body file, token, ETag…). */
  scriptArgs: string[];
  /**
   * Appended on daemon runs only: turns on the script's body check (`--check-bodies`), which the
   * ceiling's `{"status":1}` would fail.
   */
  daemonScriptArgs: string[];
  /** Events each request stores; 0 where nothing is stored (then none may be accepted). */
  eventsPerRequest: number;
  route: RouteMatch;
  /** The status every daemon answer must have: 200, or 304 for a matching ETag. */
  status: string;
  /** Daemon runs also measure the person processor (PersonsCheck). */
  persons?: boolean;
  /** Events/s the load is paced at (`persons-paced`); absent: as fast as the server answers. */
  offeredEventsPerSecond?: number;
  /** The durable floor takes the load too (the `capture` scenarios). */
  floor?: boolean;
  /**
   * Every run gets its own `run=<n>` (bench/wrk/capture.lua), so that its new distinct ids are
   * new to the server: wrk's counters start again at 0 in every run.
   */
  numberedRuns?: boolean;
}

/** Longest wait for the person processor to catch up (the route's own maximum). */
export const CATCH_UP_TIMEOUT_MS = 60_000;

/** The person processor over one daemon run of the `persons` scenario. */
export interface PersonsCheck {
  /** wrk's duration. */
  runSeconds: number;
  /** Accepted events (delta) ÷ runSeconds. */
  ingestedPerSecond: number;
  /** Events applied between the start and wrk's end, and that ÷ runSeconds. */
  processedDuringRun: number;
  processedPerSecond: number;
  /** Events applied until caught up, and that ÷ (runSeconds + catchUpSeconds). */
  processedTotal: number;
  overallPerSecond: number;
  /** hedgerow_person_processor_events_behind at wrk's end. */
  behindAtEnd: number;
  /** From wrk's end until /_persons/caught_up answered 200 (or gave up: caughtUp false). */
  catchUpSeconds: number;
  caughtUp: boolean;
  /** From the delta of hedgerow_person_processing_lag_seconds (one observation per event block). */
  lagMs: { p50: number; p99: number };
  lagBlocks: number;
  /** Of the blocks applied until caught up, the share handed over rather than read back (NaN: none). */
  handedOffShare: number;
}

export interface DaemonCheck {
  /** wrk's completed requests. */
  expectedRequests: number;
  /** Delta of hedgerow_http_requests_total for the scenario's route once the daemon went quiet. */
  answeredRequests: number;
  /** answered − expected: requests in flight when wrk stopped (0 ≤ slack ≤ connections). */
  slackRequests: number;
  /** wrk's completed requests × events per request. */
  expectedEvents: number;
  /** Delta of hedgerow_events_accepted_total once the daemon went quiet. */
  acceptedEvents: number;
  /** accepted − expected: requests still in flight when wrk stopped (0 ≤ slack ≤ connections × events). */
  slackEvents: number;
  droppedEvents: number;
  /** Delta of hedgerow_flags_errors_total: answers that said errorsWhileComputingFlags. */
  flagErrors: number;
  /** The route's answers by status, as the daemon counted them (delta). */
  statuses: Record<string, number>;
}

export interface Run {
  scenario: ScenarioName;
  target: Target;
  round: number;
  wrk: WrkResult;
  /**
   * In % of one core, over the run. `otherPct` is what the rest of the machine used (this runner,
   * other programs): on a shared machine it says how much of the noise was someone else.
   */
  cpu: { server: CpuUsage | undefined; wrk: CpuUsage | undefined; machineIdlePct: number; otherPct: number };
  /**
   * Daemon runs: % of one core per thread the daemon names (main, http-N, pool-N,
   * person-processor-1); `other` is the rest of the process (V8, libuv and lmdb-js helpers).
   */
  threads?: Record<string, number>;
  check: DaemonCheck | undefined;
  /** The `persons` scenario's daemon runs only. */
  persons?: PersonsCheck;
  /** Daemon runs: how long the person processor took to work off earlier runs' events first. */
  processorWaitSeconds?: number;
  /** The daemon's memory once the run settled (its file-backed part grows with the LMDB data). */
  memory: Memory | undefined;
  /** Anything that makes the number unusable: socket errors, bad statuses, missing events. */
  problems: string[];
}

/** The scenarios that share another's wrk script, with their own arguments. */
const SCRIPT_OF: Partial<Record<ScenarioName, string>> = {
  'capture-known': 'capture',
  'capture-personless': 'capture',
  'flags-new': 'flags',
  'persons-paced': 'persons',
};

export function wrkScript(name: ScenarioName): string {
  return path.join(ROOT, 'bench', 'wrk', `${SCRIPT_OF[name] ?? name}.lua`);
}

export async function measure(server: Server, target: Target, scenario: Scenario, settings: WrkSettings, round: number): Promise<Run> {
  const withPersons = target === 'daemon' && scenario.persons === true;
  // Every daemon run starts from an idle person processor: earlier runs' events may still be
  // queued for it (the capture scenario creates a person per request), and working them off
  // would take CPU from this run's scenario.
  let processorWaitSeconds: number | undefined;
  if (target === 'daemon') {
    const started = performance.now();
    await reach(server, () => personsCaughtUp(server.port, CATCH_UP_TIMEOUT_MS));
    processorWaitSeconds = (performance.now() - started) / 1000;
  }
  const before = target === 'daemon' ? await reach(server, () => scrapeCounters(server.port)) : undefined;
  const personsBefore = withPersons ? await reach(server, () => scrapePersons(server.port)) : undefined;
  const url = `http://127.0.0.1:${server.port}${scenario.path}`;
  const args = [
    ...scenario.scriptArgs,
    ...(scenario.numberedRuns ? [nextCaptureRun()] : []),
    ...(target === 'daemon' ? scenario.daemonScriptArgs : []),
  ];
  const wrk = startWrk(url, scenario.script, args, settings);
  const sampler = new CpuSampler(() => [server.pid, wrk.child.pid ?? -1]);
  sampler.start();
  let result: WrkResult;
  try {
    result = await reach(server, () => wrk.done);
  } finally {
    sampler.stop();
  }
  const problems: string[] = [];
  if (failures(result) > 0) {
    problems.push(
      `wrk saw errors ${JSON.stringify(result.errors)}, non-2xx/3xx ${result.non2xx3xx}` +
        (result.wrong > 0 ? `, ${result.wrong} answers failing the script's body check` : ''),
    );
  }
  let personsAtEnd: PersonCounters | undefined;
  let catchUp: { seconds: number; ok: boolean } | undefined;
  if (personsBefore) {
    const end = performance.now();
    personsAtEnd = await reach(server, () => scrapePersons(server.port));
    const ok = await reach(server, () => personsCaughtUp(server.port, CATCH_UP_TIMEOUT_MS));
    catchUp = { seconds: (performance.now() - end) / 1000, ok };
  }
  let check: DaemonCheck | undefined;
  let persons: PersonsCheck | undefined;
  if (before) {
    const progress = (c: DaemonCounters) => c.accepted + total(routeRequests(c, scenario.route));
    const after = await reach(server, () => settledCounters(server.port, progress));
    check = compare(before, after, result.requests, scenario);
    if (check.slackRequests < 0 || check.slackRequests > settings.connections) {
      problems.push(
        `daemon answered ${check.answeredRequests} requests on route ${scenario.route.label}, ` +
          `wrk completed ${check.expectedRequests} (slack allowed 0..${settings.connections})`,
      );
    }
    const maxSlack = settings.connections * scenario.eventsPerRequest;
    if (check.slackEvents < 0 || check.slackEvents > maxSlack) {
      problems.push(`daemon accepted ${check.acceptedEvents} events, wrk completed ${check.expectedEvents} (slack allowed 0..${maxSlack})`);
    }
    if (check.droppedEvents > 0) problems.push(`daemon dropped ${check.droppedEvents} events`);
    if (check.flagErrors > 0) problems.push(`${check.flagErrors} /flags answers said errorsWhileComputingFlags`);
    if (personsBefore && personsAtEnd && catchUp) {
      // Requests in flight at wrk's end committed after the first wait: wait for them too.
      const ok = catchUp.ok && (await reach(server, () => personsCaughtUp(server.port, CATCH_UP_TIMEOUT_MS)));
      const personsAfter = await reach(server, () => scrapePersons(server.port));
      persons = personsCheck(personsBefore, personsAtEnd, personsAfter, check.acceptedEvents, result.seconds, { ...catchUp, ok });
      if (ok && persons.processedTotal !== check.acceptedEvents) {
        problems.push(
          `the person processor applied ${persons.processedTotal} events once caught up, the daemon accepted ${check.acceptedEvents}`,
        );
      }
    }
    const bad = Object.entries(check.statuses).filter(([status]) => status !== scenario.status);
    if (bad.length > 0) problems.push(`daemon answered statuses other than ${scenario.status}: ${JSON.stringify(Object.fromEntries(bad))}`);
  }
  const serverCpu = sampler.usage(server.pid);
  const wrkCpu = sampler.usage(wrk.child.pid ?? -1);
  const otherPct = Math.max(0, sampler.machineBusy() - (serverCpu?.total ?? 0) - (wrkCpu?.total ?? 0));
  const threads = before && serverCpu ? byName(serverCpu, before.threadNames) : undefined;
  return {
    scenario: scenario.name,
    target,
    round,
    wrk: result,
    cpu: { server: serverCpu, wrk: wrkCpu, machineIdlePct: sampler.machineIdle(), otherPct },
    ...(threads ? { threads } : {}),
    check,
    ...(persons ? { persons } : {}),
    ...(processorWaitSeconds !== undefined ? { processorWaitSeconds } : {}),
    memory: target === 'daemon' ? memory(server.pid) : undefined,
    problems,
  };
}

/** Runs `step`; if it fails because the server died (crash, or killed by someone else), says so. */
async function reach<T>(server: Server, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    const cause = err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err);
    await new Promise((r) => setTimeout(r, 300)); // let a death be noticed (the exit event comes later)
    throw new Error(`${server.name} on port ${server.port}: ${cause}${server.died() ? `\n${server.died()}` : ''}`);
  }
}

const total = (byStatus: Map<string, number>) => [...byStatus.values()].reduce((a, b) => a + b, 0);

function compare(a: DaemonCounters, b: DaemonCounters, requests: number, scenario: Scenario): DaemonCheck {
  const statusesBefore = routeRequests(a, scenario.route);
  const statuses: Record<string, number> = {};
  for (const [status, n] of routeRequests(b, scenario.route)) {
    const d = n - (statusesBefore.get(status) ?? 0);
    if (d > 0) statuses[status] = d;
  }
  const answeredRequests = Object.values(statuses).reduce((x, y) => x + y, 0);
  const expectedEvents = requests * scenario.eventsPerRequest;
  const acceptedEvents = b.accepted - a.accepted;
  return {
    expectedRequests: requests,
    answeredRequests,
    slackRequests: answeredRequests - requests,
    expectedEvents,
    acceptedEvents,
    slackEvents: acceptedEvents - expectedEvents,
    droppedEvents: b.dropped - a.dropped,
    flagErrors: b.flagErrors - a.flagErrors,
    statuses,
  };
}

function personsCheck(
  before: PersonCounters,
  atEnd: PersonCounters,
  after: PersonCounters,
  accepted: number,
  runSeconds: number,
  catchUp: { seconds: number; ok: boolean },
): PersonsCheck {
  const lag = after.lagBuckets.map((b) => ({ le: b.le, count: b.count - (before.lagBuckets.find((x) => x.le === b.le)?.count ?? 0) }));
  const processedDuringRun = atEnd.processed - before.processed;
  const processedTotal = after.processed - before.processed;
  return {
    runSeconds,
    ingestedPerSecond: accepted / runSeconds,
    processedDuringRun,
    processedPerSecond: processedDuringRun / runSeconds,
    processedTotal,
    overallPerSecond: processedTotal / (runSeconds + catchUp.seconds),
    behindAtEnd: atEnd.behind,
    catchUpSeconds: catchUp.seconds,
    caughtUp: catchUp.ok,
    lagMs: { p50: histogramQuantile(0.5, lag) * 1000, p99: histogramQuantile(0.99, lag) * 1000 },
    lagBlocks: lag.at(-1)?.count ?? 0,
    handedOffShare: share(after.blocksHandedOff - before.blocksHandedOff, after.blocksReadBack - before.blocksReadBack),
  };
}

function share(part: number, rest: number): number {
  return part + rest > 0 ? part / (part + rest) : NaN;
}

/**
 * Prometheus's histogram_quantile over cumulative buckets (ascending `le`, +Inf last): linear
 * interpolation inside the bucket the rank falls in; the largest finite bound when it falls in
 * +Inf; NaN without observations.
 */
export function histogramQuantile(q: number, buckets: { le: number; count: number }[]): number {
  const total = buckets.at(-1)?.count ?? 0;
  if (total <= 0) return NaN;
  const rank = q * total;
  let prevLe = 0;
  let prevCount = 0;
  for (const b of buckets) {
    if (b.count >= rank) {
      if (!Number.isFinite(b.le)) return prevLe;
      return b.count === prevCount ? b.le : prevLe + ((b.le - prevLe) * (rank - prevCount)) / (b.count - prevCount);
    }
    prevLe = b.le;
    prevCount = b.count;
  }
  return prevLe;
}

/** The sampled threads' CPU under the daemon's names for them; unnamed ones add up to `other`. */
function byName(cpu: CpuUsage, names: ReadonlyMap<string, string>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [tid, pct] of Object.entries(cpu.byThread)) {
    const name = names.get(tid) ?? 'other';
    out[name] = (out[name] ?? 0) + pct;
  }
  return out;
}

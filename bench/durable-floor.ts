/**
 * `npm run bench:floor`: how much of the ceiling a durable acknowledgement leaves, before any of
 * the daemon's own work. Three servers take the `capture` scenario's load (one posthog-node event
 * per request, every body its own uuid and distinct id) in turn, in alternating order each round:
 *
 * - the ceiling (bench/ack-server.ts): reads the body, answers `{"status":1}`;
 * - the durable floor (bench/durable-ack-server.ts): the same, but appends the body to a store
 *   opened as the daemon opens it and answers once that commit is durable (the durability
 *   contract: see docs/architecture.md, Durability), with no parsing, validation or persons;
 * - the daemon, as `npm run bench` runs it (each run after the person processor caught up).
 *
 * Reported: medians of requests/s and p50/p99 latency, and the ratios floor/ceiling,
 * daemon/ceiling and daemon/floor from the same rounds.
 *
 *   node dist/bench/durable-floor.js [--rounds N] [--duration S] [--connections N] [--no-daemon]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { nextCaptureRun, writePayloads } from './payloads.js';
import { spread } from './report.js';
import { killServers, personsCaughtUp, ROOT, startAckServer, startDaemon, startDurableAckServer, type Server } from './servers.js';
import { checkWrk, failures, killWrk, startWrk, type WrkResult, type WrkSettings } from './wrk-runner.js';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '8' },
    connections: { type: 'string', default: '64' },
    'no-daemon': { type: 'boolean', default: false },
  },
});
const rounds = Number(args.rounds);
const wrk: WrkSettings = { threads: 1, connections: Number(args.connections), durationSeconds: Number(args.duration) };
if (!(rounds >= 1) || !(wrk.durationSeconds >= 1) || !(wrk.connections >= 1)) {
  throw new Error('--rounds, --duration and --connections must be at least 1');
}

type Name = 'ceiling' | 'floor' | 'daemon';

async function run(server: Server, template: string): Promise<WrkResult> {
  const script = path.join(ROOT, 'bench', 'wrk', 'capture.lua');
  // Each run has its own run number: its distinct ids are new persons.
  const result = await startWrk(`http://127.0.0.1:${server.port}/capture/`, script, [template, nextCaptureRun()], wrk).done;
  const failed = failures(result);
  if (failed > 0) throw new Error(`${server.name}: ${failed} failed requests (${result.command})`);
  return result;
}

const median = (values: number[]) => spread(values).median;

async function main(): Promise<void> {
  console.log(checkWrk());
  const work = mkdtempSync(path.join(tmpdir(), 'hedgerow-bench-floor-'));
  const servers: Server[] = [];
  const results = new Map<Name, WrkResult[]>([
    ['ceiling', []],
    ['floor', []],
    ['daemon', []],
  ]);
  try {
    const payload = writePayloads(work);
    const targets = new Map<Name, Server>();
    targets.set('ceiling', await startAckServer());
    targets.set('floor', await startDurableAckServer(path.join(work, 'floor')));
    if (!args['no-daemon']) {
      targets.set('daemon', await startDaemon({ dataDir: path.join(work, 'daemon'), sync: 'durable', nodeArgs: [] }));
    }
    servers.push(...targets.values());
    // Unrecorded warm-up of each server.
    for (const server of targets.values()) await run(server, payload.captureTemplate);
    for (let round = 1; round <= rounds; round++) {
      const names = [...targets.keys()];
      if (round % 2 === 0) names.reverse();
      for (const name of names) {
        const server = targets.get(name) as Server;
        if (name === 'daemon') await personsCaughtUp(server.port, 120_000);
        const r = await run(server, payload.captureTemplate);
        results.get(name)?.push(r);
        console.log(
          `round ${round} ${name.padEnd(7)} ${Math.round(r.requestsPerSecond).toLocaleString('en-US').padStart(8)} req/s` +
            `  p50 ${r.latencyMs.p50.toFixed(2)} ms  p99 ${r.latencyMs.p99.toFixed(2)} ms`,
        );
      }
    }
  } finally {
    for (const s of servers.reverse()) await s.stop();
    rmSync(work, { recursive: true, force: true });
  }

  const rps = (name: Name) => median((results.get(name) ?? []).map((r) => r.requestsPerSecond));
  const ms = (name: Name, p: 'p50' | 'p99') => median((results.get(name) ?? []).map((r) => r.latencyMs[p]));
  console.log(
    `\n/capture/, 1 event per request, wrk -t${wrk.threads} -c${wrk.connections} -d${wrk.durationSeconds}s, medians of ${rounds} rounds:`,
  );
  for (const name of ['ceiling', 'floor', 'daemon'] as const) {
    if ((results.get(name) ?? []).length === 0) continue;
    console.log(
      `  ${name.padEnd(7)} ${Math.round(rps(name)).toLocaleString('en-US').padStart(8)} req/s  p50 ${ms(name, 'p50').toFixed(2)} ms  p99 ${ms(name, 'p99').toFixed(2)} ms`,
    );
  }
  // Ratios per round, then their median: each round's servers ran minutes apart at most.
  const ratio = (a: Name, b: Name) => {
    const xs = results.get(a) ?? [];
    const ys = results.get(b) ?? [];
    return median(xs.map((x, i) => x.requestsPerSecond / (ys[i] as WrkResult).requestsPerSecond));
  };
  console.log(`  floor / ceiling  ${ratio('floor', 'ceiling').toFixed(3)}`);
  if ((results.get('daemon') ?? []).length > 0) {
    console.log(`  daemon / ceiling ${ratio('daemon', 'ceiling').toFixed(3)}`);
    console.log(`  daemon / floor   ${ratio('daemon', 'floor').toFixed(3)}`);
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killWrk();
    killServers();
    process.exit(130);
  });
}
await main();

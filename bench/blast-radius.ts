/**
 * `npm run bench:blast-radius`: how long `POST …/feature_flags/user_blast_radius` takes on a large
 * project (target: under 200 ms for 1,000,000 persons). Writes the persons straight into a
 * fresh data directory (the flag benchmark's property mix: plan, email, country, age), then, in
 * the same run:
 * - baseline 1: a full scan of the persons in LMDB from this process, matching the same
 *   compiled filters per person (what counting without the in-memory tables would cost);
 * - baseline 2: a trivial management API request (`GET …/feature_flags/?limit=1`), the HTTP and
 *   authentication floor every answer pays;
 * - the first question, `--settle` seconds after the daemon is ready (the processor builds its
 *   tables in slices from start-up; with --settle 0 the question finishes the build itself),
 *   then each condition `--repeat` times.
 * Prints medians and p95 with the ratios to both baselines.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { compilePropertyMatcher } from '../src/flags/engine/match-property.js';
import type { PropertyFilter } from '../src/flags/engine/property-matcher.js';
import { openStore } from '../src/store/open-store.js';
import type { PersonRecord } from '../src/store/person-store.js';
import { AUTH, call, seedPersons } from './seed-flags.js';
import { killServers, startDaemon } from './servers.js';

const { values } = parseArgs({
  options: {
    persons: { type: 'string', default: '1000000' },
    repeat: { type: 'string', default: '15' },
    settle: { type: 'string', default: '10' },
    'keep-data': { type: 'boolean', default: false },
  },
});
const PERSONS = Number(values.persons);
const REPEAT = Number(values.repeat);
const SETTLE_S = Number(values.settle);
const RADIUS = '/api/projects/1/feature_flags/user_blast_radius';

type Filter = PropertyFilter & Record<string, unknown>;
const person = (key: string, operator: string, value?: unknown): Filter => ({ key, type: 'person', operator, value });

/** The conditions asked about: selective and broad, cheap and expensive columns. */
const CONDITIONS: { name: string; properties: Filter[] }[] = [
  { name: 'plan = pro', properties: [person('plan', 'exact', ['pro'])] },
  { name: 'plan = pro, age > 40', properties: [person('plan', 'exact', ['pro']), person('age', 'gt', '40')] },
  {
    name: 'country in 3, age < 30, is_set',
    properties: [person('country', 'exact', ['US', 'GB', 'DE']), person('age', 'lt', '30'), person('country', 'is_set', 'is_set')],
  },
  { name: 'email icontains (1M distinct)', properties: [person('email', 'icontains', 'hedgerow.dev')] },
  {
    name: 'plan = enterprise, email regex',
    properties: [person('plan', 'exact', ['enterprise']), person('email', 'regex', '^user-1.*@corp')],
  },
];

function stats(ms: number[]): { median: number; p95: number } {
  const s = [...ms].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)] as number, p95: s[Math.min(s.length - 1, Math.ceil(s.length * 0.95) - 1)] as number };
}

/** Baseline 1: count matching persons by reading every record from LMDB. */
async function scanCount(dataDir: string, properties: Filter[]): Promise<{ count: number; ms: number }> {
  const dbs = openStore({ dataDir, sync: 'durable', readOnly: true });
  try {
    const matchers = properties.map((p) => ({ key: p.key, match: compilePropertyMatcher(p) }));
    const now = new Date();
    const started = performance.now();
    let count = 0;
    for (const { value } of dbs.persons.getRange({ start: [1], end: [2] })) {
      const props = (value as PersonRecord).properties;
      if (matchers.every((m) => m.match(props[m.key], Object.hasOwn(props, m.key), now))) count++;
    }
    return { count, ms: performance.now() - started };
  } finally {
    await dbs.root.close();
  }
}

async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await run();
  return { value, ms: performance.now() - started };
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'hedgerow-blast-'));
  process.on('SIGINT', () => {
    killServers();
    process.exit(130);
  });
  try {
    const seeded = await seedPersons(dataDir, PERSONS);
    console.log(`seeded ${seeded.persons.toLocaleString('en-US')} persons in ${(seeded.ms / 1000).toFixed(1)} s`);
    const scan = await scanCount(dataDir, CONDITIONS[1]!.properties);
    console.log(`baseline 1, LMDB scan counting "${CONDITIONS[1]!.name}": ${scan.ms.toFixed(0)} ms (${scan.count} persons)`);

    const daemon = await startDaemon({ dataDir, sync: 'durable', nodeArgs: [] });
    try {
      const ask = (properties: Filter[]) =>
        call(daemon.port, 'POST', RADIUS, { body: { condition: { properties, rollout_percentage: 100 } }, headers: AUTH });
      const floor: number[] = [];
      for (let i = 0; i < REPEAT; i++) {
        floor.push((await timed(() => call(daemon.port, 'GET', '/api/projects/1/feature_flags/?limit=1', { headers: AUTH }))).ms);
      }
      const floorMedian = stats(floor).median;
      console.log(`baseline 2, GET …/feature_flags/?limit=1: median ${floorMedian.toFixed(1)} ms`);

      await new Promise((r) => setTimeout(r, SETTLE_S * 1000));
      const first = await timed(() => ask([]));
      const total = (first.value.json as { total_users: number }).total_users;
      if (first.value.status !== 200 || total !== PERSONS) throw new Error(`first question: ${first.value.status} ${first.value.text}`);
      console.log(`first question, ${SETTLE_S} s after ready (${total.toLocaleString('en-US')} persons): ${first.ms.toFixed(0)} ms`);

      console.log('\ncondition                          affected   median ms   p95 ms   ×scan    ×floor');
      for (const c of CONDITIONS) {
        const ms: number[] = [];
        let affected = 0;
        for (let i = 0; i < REPEAT; i++) {
          const r = await timed(() => ask(c.properties));
          if (r.value.status !== 200) throw new Error(`${c.name}: ${r.value.status} ${r.value.text}`);
          affected = (r.value.json as { users_affected: number }).users_affected;
          ms.push(r.ms);
        }
        const s = stats(ms);
        console.log(
          `${c.name.padEnd(34)} ${String(affected).padStart(8)}   ${s.median.toFixed(1).padStart(9)}   ${s.p95.toFixed(1).padStart(6)}   ${(s.median / scan.ms).toFixed(3).padStart(5)}   ${(s.median / floorMedian).toFixed(1).padStart(6)}`,
        );
        if (c === CONDITIONS[1] && affected !== scan.count) throw new Error(`the daemon counted ${affected}, the scan ${scan.count}`);
      }
      console.log(`\ntarget: under 200 ms for 1,000,000 persons (×scan = median / baseline 1; ×floor = median / baseline 2)`);
    } finally {
      await daemon.stop(20_000);
    }
  } finally {
    if (values['keep-data']) console.log(`data kept in ${dataDir}`);
    else rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  killServers();
  console.error(err);
  process.exit(1);
});

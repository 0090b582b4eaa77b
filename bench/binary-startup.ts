/**
 * `npm run bench:binary`: the single executable's size and its start-up time, from exec to the
 * first 200 from `/_readyz`, with an empty data directory each time (target: under 1 second).
 * The baseline, measured in the same run and interleaved with it, is the npm path
 * (`node dist/src/cli/main.js serve`). The binary's first start on an empty cache (extracting
 * its carried files) is measured separately from starts on a warm cache.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { spread } from './report.js';
import { ROOT } from './servers.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '10' } } });
const RUNS = Number(values.runs);
const BINARY = path.join(ROOT, 'dist/hedgerow');
const CLI_MAIN = path.join(ROOT, 'dist/src/cli/main.js');
const POLL_MS = 2;
let nextPort = 20_000 + Math.floor(Math.random() * 20_000);

async function isReady(port: number): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/_readyz`)).status === 200;
  } catch {
    return false;
  }
}

/** Milliseconds from spawning `command serve` to the first 200 from /_readyz; then SIGTERM. */
async function startOnce(command: string[], env: Record<string, string>): Promise<number> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'hedgerow-startup-'));
  const port = nextPort++;
  const started = process.hrtime.bigint();
  const child = spawn(command[0]!, [...command.slice(1), 'serve'], {
    env: { ...process.env, ...env, HEDGEROW_DATA_DIR: dataDir, HEDGEROW_PORT: String(port), HEDGEROW_LOG_LEVEL: 'warn' },
    stdio: 'ignore',
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${command.join(' ')} exited with ${child.exitCode} before it was ready`);
      if (await isReady(port)) return Number(process.hrtime.bigint() - started) / 1e6;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const cacheHome = mkdtempSync(path.join(os.tmpdir(), 'hedgerow-startup-cache-'));
const binaryEnv = { HEDGEROW_CACHE_DIR: cacheHome };
try {
  const cold = await startOnce([BINARY], binaryEnv);
  const warm: number[] = [];
  const npm: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    npm.push(await startOnce([process.execPath, CLI_MAIN], {}));
    warm.push(await startOnce([BINARY], binaryEnv));
  }
  const w = spread(warm);
  const n = spread(npm);
  const fmt = (s: { median: number; min: number; max: number }) => `${s.median.toFixed(0)} ms (${s.min.toFixed(0)}–${s.max.toFixed(0)})`;
  console.log(`dist/hedgerow: ${(statSync(BINARY).size / 2 ** 20).toFixed(1)} MiB`);
  console.log(`exec → /_readyz 200, empty data directory, median (min–max) of ${RUNS}:`);
  console.log(`  binary, warm cache      ${fmt(w)}`);
  console.log(`  npm path (baseline)     ${fmt(n)}`);
  console.log(`  binary / npm path       ${(w.median / n.median).toFixed(2)}x`);
  console.log(`  binary, empty cache     ${cold.toFixed(0)} ms (one run, extracts the carried files)`);
  console.log(`target: under 1000 ms → ${w.median < 1000 && cold < 1000 ? 'met' : 'NOT met'}`);
} finally {
  rmSync(cacheHome, { recursive: true, force: true });
}

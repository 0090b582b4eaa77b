import { afterAll, beforeAll, expect } from 'vitest';
/**
 * Starts the built daemon (`dist/src/cli/main.js serve`) as a child process on a loopback port
 * with a temporary data directory, for the integration suite. Every child and every temporary
 * directory is tracked: `cleanupDaemons()` (call it in `afterAll`) kills what is still running and
 * removes the directories, and an exit hook kills leftovers if a test run is interrupted.
 */

import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export type Backend = 'uws' | 'node';

export const BACKENDS: readonly Backend[] = ['uws', 'node'];

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CLI_MAIN = path.join(REPO_ROOT, 'dist/src/cli/main.js');

const STARTUP_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 20_000;

export interface StartOptions {
  backend: Backend;
  /** Extra environment (wins over the defaults below, including HEDGEROW_WORKERS). */
  env?: Record<string, string | undefined>;
  /** Reuse this data directory (a restart); default: a fresh temporary one. */
  dataDir?: string;
  /** Bootstrap keys; default: fresh random ones. `null` leaves them unset (the daemon generates them). */
  projectKey?: string | null;
  personalKey?: string | null;
  /** Extra arguments after `serve`. */
  args?: string[];
  /** Run this executable (the single binary) instead of `node dist/src/cli/main.js`. */
  executable?: string;
  /** Working directory of the child; default: the repository. */
  cwd?: string;
}

interface LogLine {
  level?: string;
  msg?: string;
  [k: string]: unknown;
}

export interface DaemonHandle {
  readonly backend: Backend;
  readonly baseUrl: string;
  readonly port: number;
  readonly dataDir: string;
  /** The bootstrap keys given to the daemon (empty when it generated its own). */
  readonly projectKey: string;
  readonly personalKey: string;
  readonly child: ChildProcess;
  /** The options it was started with (for `restartDaemon`). */
  readonly options: StartOptions;
  /** Sends `signal` and resolves with the exit code (null when killed by a signal). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** SIGKILL, resolves once the process is gone. */
  kill(): Promise<void>;
  /** Every line written so far to stdout and stderr. */
  logs(): string[];
  /** The stdout lines that parse as JSON log records. */
  records(): LogLine[];
  readonly exited: boolean;
}

const live = new Set<ChildProcess>();
const tempDirs = new Set<string>();

process.once('exit', () => {
  for (const child of live) {
    try {
      child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
});

/** A fresh project key: `phc_` and 32 URL-safe characters. */
export function newProjectKey(): string {
  return `phc_${randomBytes(24).toString('base64url')}`;
}

/** A fresh personal API key: `phx_` and 43 URL-safe characters. */
export function newPersonalKey(): string {
  return `phx_${randomBytes(32).toString('base64url')}`;
}

/** A temporary directory removed by `cleanupDaemons()`. */
export function makeTempDir(prefix = 'hedgerow-it-'): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

/** Environment for children: the parent's, minus every HEDGEROW_* setting it may carry. */
export function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith('HEDGEROW_')) env[k] = v;
  }
  return env;
}

/** The argv prefix that runs `hedgerow`: the given executable, or node on the built CLI. */
function cliCommand(executable?: string): string[] {
  if (executable !== undefined) return [executable];
  if (!existsSync(CLI_MAIN)) throw new Error(`${CLI_MAIN} is missing: run \`npm run build\` first`);
  return [process.execPath, CLI_MAIN];
}

export async function startDaemon(opts: StartOptions): Promise<DaemonHandle> {
  const [file, ...prefix] = cliCommand(opts.executable);
  const dataDir = opts.dataDir ?? makeTempDir();
  const projectKey = opts.projectKey === null ? '' : (opts.projectKey ?? newProjectKey());
  const personalKey = opts.personalKey === null ? '' : (opts.personalKey ?? newPersonalKey());
  const env: Record<string, string> = {
    ...baseEnv(),
    HEDGEROW_HOST: '127.0.0.1',
    HEDGEROW_PORT: '0',
    HEDGEROW_DATA_DIR: dataDir,
    HEDGEROW_WORKERS: '1',
    HEDGEROW_HTTP_BACKEND: opts.backend,
    HEDGEROW_LOG_LEVEL: 'info',
    ...(projectKey ? { HEDGEROW_BOOTSTRAP_PROJECT_API_KEY: projectKey } : {}),
    ...(personalKey ? { HEDGEROW_BOOTSTRAP_PERSONAL_API_KEY: personalKey } : {}),
  };
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }

  const child = spawn(file!, [...prefix, 'serve', ...(opts.args ?? [])], {
    cwd: opts.cwd ?? REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  const lines: string[] = [];
  const records: LogLine[] = [];
  let exitCode: number | null = null;
  let exitSignal: NodeJS.Signals | null = null;
  let exited = false;
  const exitPromise = new Promise<number | null>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = true;
      exitCode = code;
      exitSignal = signal;
      live.delete(child);
      resolve(code);
    });
  });
  // 'close' fires once stdio is drained too: the last log lines are in `lines` by then.
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));

  let port = 0;
  let onReady: (() => void) | undefined;
  const collect = (stream: NodeJS.ReadableStream, isStdout: boolean): void => {
    let rest = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      rest += chunk;
      let nl: number;
      while ((nl = rest.indexOf('\n')) !== -1) {
        const line = rest.slice(0, nl);
        rest = rest.slice(nl + 1);
        lines.push(line);
        if (!isStdout) continue;
        let rec: LogLine | undefined;
        try {
          rec = JSON.parse(line) as LogLine;
        } catch {
          continue;
        }
        records.push(rec);
        if (typeof rec.msg === 'string' && rec.msg.startsWith('listening on http://') && typeof rec.port === 'number') {
          port = rec.port;
        }
        if (rec.msg === 'ready') onReady?.();
      }
    });
    stream.on('end', () => {
      if (rest !== '') lines.push(rest);
    });
  };
  collect(child.stdout!, true);
  collect(child.stderr!, false);

  const started = Date.now();
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`daemon (${opts.backend}) not ready after ${STARTUP_TIMEOUT_MS} ms`)),
        STARTUP_TIMEOUT_MS,
      );
      onReady = () => {
        clearTimeout(timer);
        resolve();
      };
      void exitPromise.then(() => {
        clearTimeout(timer);
        reject(new Error(`daemon (${opts.backend}) exited during startup with code ${exitCode} signal ${exitSignal}`));
      });
    });
  } catch (err) {
    if (!exited) child.kill('SIGKILL');
    await closed;
    throw new Error(`${(err as Error).message} after ${Date.now() - started} ms; logs:\n${lines.join('\n')}`);
  }
  if (port === 0) {
    child.kill('SIGKILL');
    await closed;
    throw new Error(`daemon logged "ready" without a "listening on" line with a port; logs:\n${lines.join('\n')}`);
  }

  const handle: DaemonHandle = {
    backend: opts.backend,
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    dataDir,
    projectKey,
    personalKey,
    child,
    options: { ...opts, dataDir, projectKey: projectKey || null, personalKey: personalKey || null },
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (!exited) {
        child.kill(signal);
        const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
        await exitPromise;
        clearTimeout(timer);
      }
      await closed;
      return exitCode;
    },
    async kill() {
      if (!exited) child.kill('SIGKILL');
      await exitPromise;
      await closed;
    },
    logs: () => [...lines],
    records: () => [...records],
    get exited() {
      return exited;
    },
  };
  return handle;
}

/** Starts a new daemon on the data directory (and with the keys and options) of `prev`, which must have exited. */
/**
 * Starts a daemon for the enclosing describe block (beforeAll) and checks it stops cleanly with
 * exit code 0 (afterAll). Returns a handle that forwards to the daemon once it has started.
 */
export function useDaemon(opts: StartOptions): DaemonHandle {
  let handle: DaemonHandle | undefined;
  beforeAll(async () => {
    handle = await startDaemon(opts);
  });
  afterAll(async () => {
    expect(await handle?.stop()).toBe(0);
  });
  return new Proxy({} as DaemonHandle, {
    get(_target, key) {
      if (!handle) throw new Error('the daemon is used before beforeAll started it');
      const value = Reflect.get(handle, key) as unknown;
      return typeof value === 'function' ? value.bind(handle) : value;
    },
  });
}

export async function restartDaemon(prev: DaemonHandle, overrides: Partial<StartOptions> = {}): Promise<DaemonHandle> {
  if (!prev.exited) throw new Error('restartDaemon: the previous daemon is still running');
  return startDaemon({ ...prev.options, ...overrides, dataDir: prev.dataDir });
}

/** Kills every daemon still running and removes the temporary directories. Call in `afterAll`. */
export async function cleanupDaemons(): Promise<void> {
  const waits: Promise<void>[] = [];
  for (const child of live) {
    waits.push(new Promise<void>((resolve) => child.once('close', () => resolve())));
    child.kill('SIGKILL');
  }
  await Promise.all(waits);
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `hedgerow <args>` (the built CLI) to completion. */
export function runCli(
  args: string[],
  opts: { env?: Record<string, string>; timeoutMs?: number; executable?: string; cwd?: string } = {},
): Promise<CliResult> {
  const [file, ...prefix] = cliCommand(opts.executable);
  return new Promise((resolve, reject) => {
    const child = spawn(file!, [...prefix, ...args], {
      cwd: opts.cwd ?? REPO_ROOT,
      env: { ...baseEnv(), ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    live.add(child);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`hedgerow ${args.join(' ')} did not finish in ${opts.timeoutMs ?? 15_000} ms`));
    }, opts.timeoutMs ?? 15_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      live.delete(child);
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
  });
}

/** `hedgerow events export` on a data directory, parsed. */
export async function exportEvents(
  dataDir: string,
  extra: string[] = [],
): Promise<Array<Record<string, unknown> & { uuid: string; project_id: number }>> {
  const r = await runCli(['events', 'export', '--data-dir', dataDir, ...extra], { timeoutMs: 30_000 });
  if (r.code !== 0) throw new Error(`events export exited ${r.code}: ${r.stderr}`);
  return r.stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown> & { uuid: string; project_id: number });
}

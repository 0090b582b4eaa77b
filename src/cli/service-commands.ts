/**
 * Deployment commands for systemd:
 * - `hedgerow wait-ready [--timeout S]`: polls the configured address's `/_readyz` until it
 *   answers 200, or 503 `store_unavailable` (up, but refusing writes: a warning), with exit 0, or
 *   the time is up (exit 1; a bad option or setting exits 2); the unit's `ExecStartPost` (see
 *   src/service/systemd-unit.ts for why this instead of sd_notify).
 * - `hedgerow install-service`: puts the executable, the unit and (when absent) the environment
 *   file in place, then says which two `systemctl` commands start it.
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Command } from 'commander';
import { ConfigError, loadConfig } from '../config/load-config.js';
import { environmentFileTemplate, systemdUnit } from '../service/systemd-unit.js';
import { addConfigFlags, configFlags } from './config-flags.js';
import { EXIT_FAILED, fail } from './exit-codes.js';

const POLL_MS = 100;

export function addServiceCommands(program: Command): void {
  addConfigFlags(
    program
      .command('wait-ready')
      .description("wait until the daemon on the configured host and port answers /_readyz with 200 (systemd's ExecStartPost)")
      .option('--timeout <seconds>', 'give up after this long (exit 1)', '30'),
    ['host', 'port'],
  ).action(async (opts: Record<string, unknown>) => {
    const timeoutS = Number(opts.timeout);
    if (!Number.isFinite(timeoutS) || timeoutS <= 0) fail(`--timeout must be a positive number of seconds, got "${String(opts.timeout)}"`);
    let config;
    try {
      config = loadConfig({ flags: configFlags(opts) });
    } catch (err) {
      if (err instanceof ConfigError) fail(err.message);
      throw err;
    }
    const url = `http://${connectHost(config.host)}:${config.port}/_readyz`;
    const deadline = Date.now() + timeoutS * 1000;
    let last = 'no answer';
    while (Date.now() < deadline) {
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(Math.max(1, deadline - Date.now())) });
        if (res.status === 200) return;
        // Started, but refusing writes (a disk under HEDGEROW_MIN_FREE_DISK_BYTES, or full): it
        // serves /flags and reads, and takes captures again by itself once there is room, so the
        // unit counts as started rather than failing and restarting in a loop.
        const body = (await res.json().catch(() => ({}))) as { status?: string; detail?: string };
        if (res.status === 503 && body.status === 'store_unavailable') {
          process.stderr.write(`hedgerow: warning: the daemon is up but ${body.detail ?? 'refuses writes'}\n`);
          return;
        }
        last = `status ${res.status}`;
      } catch (err) {
        last = err instanceof Error ? err.message : String(err);
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    fail(`${url} was not ready within ${timeoutS} s (${last})`, EXIT_FAILED);
  });

  program
    .command('install-service')
    .description('install the executable, the systemd unit and the environment file (run as root)')
    .option('--binary <path>', 'the executable to install (default: this one, when it is the single binary)')
    .option('--root <dir>', 'install under this directory instead of / (packaging, tests)', '/')
    .option('--bin-dir <dir>', 'where the executable goes', '/usr/local/bin')
    .option('--unit-dir <dir>', 'where the unit goes', '/etc/systemd/system')
    .option('--env-dir <dir>', 'where the environment file goes', '/etc/hedgerow')
    .action((opts: Record<string, string | undefined>) => {
      const source = opts.binary ?? (isSingleExecutable() ? process.execPath : undefined);
      if (source === undefined) {
        fail('this is not the single binary: build it with `npm run build:binary` and run its install-service, or pass --binary');
      }
      if (!existsSync(source)) fail(`${source} does not exist`);
      const root = opts.root ?? '/';
      const binary = path.posix.join(opts.binDir ?? '/usr/local/bin', 'hedgerow');
      const envFile = path.posix.join(opts.envDir ?? '/etc/hedgerow', 'hedgerow.env');
      const unitFile = path.posix.join(opts.unitDir ?? '/etc/systemd/system', 'hedgerow.service');
      const under = (p: string) => path.join(root, p);

      installFile(under(binary), 0o755, (tmp) => copyFileSync(source, tmp));
      installFile(under(unitFile), 0o644, (tmp) => writeFileSync(tmp, systemdUnit({ binary, envFile })));
      const envExists = existsSync(under(envFile));
      if (!envExists) installFile(under(envFile), 0o600, (tmp) => writeFileSync(tmp, environmentFileTemplate()));
      process.stdout.write(
        [
          `installed ${under(binary)}`,
          `installed ${under(unitFile)}`,
          envExists ? `kept ${under(envFile)}` : `installed ${under(envFile)} (set the keys there before the first start)`,
          'then: systemctl daemon-reload && systemctl enable --now hedgerow',
          '',
        ].join('\n'),
      );
    });
}

/** Writes through a temporary file in the same directory and renames it into place. */
function installFile(target: string, mode: number, write: (tmp: string) => void): void {
  const tmp = `${target}.tmp-${process.pid}`;
  try {
    mkdirSync(path.dirname(target), { recursive: true });
    write(tmp);
    chmodSync(tmp, mode);
    renameSync(tmp, target);
  } catch (err) {
    rmSync(tmp, { force: true });
    // Permissions, mostly: installing needs root (or --root on a directory of one's own).
    fail(`cannot install ${target}: ${err instanceof Error ? err.message : String(err)}`, EXIT_FAILED);
  }
}

/** Whether this process is the single executable (Node's `node:sea`, absent before 20.12). */
function isSingleExecutable(): boolean {
  try {
    const sea = createRequire(import.meta.url)('node:sea') as { isSea(): boolean };
    return sea.isSea();
  } catch {
    return false;
  }
}

/** A wildcard listen address is reached on loopback. */
export function connectHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

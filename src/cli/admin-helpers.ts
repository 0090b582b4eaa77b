/**
 * Shared plumbing of the `hedgerow admin …` subcommands: open the data directory named by
 * `--data-dir` for one action and close it after, print JSON, one line per record, or a table
 * with a header row; parse ints.
 */
import type { Command } from 'commander';
import { AuthStore } from '../store/auth-store.js';
import { type AdminRun, type Opts, out, registerAdminAction } from './admin-actions.js';
import type { StoreDatabases } from '../store/open-store.js';
import { addCommandConfigFlags } from './config-flags.js';
import { fail } from './exit-codes.js';
import { cliConfig, openDataDir, refuseWritesShortOfSpace } from './open-data-dir.js';

/**
 * Adds `--env-file` and the settings' flags (`--data-dir`, and `settings`) to `cmd` and runs `run`
 * with the store open (`args`: the command's positional arguments); an error ends the process
 * (exit 2).
 */
export function withStore(cmd: Command, run: AdminRun, settings: readonly string[] = [], access: 'reads' | 'writes' = 'writes'): void {
  const path = commandPath(cmd);
  if (access === 'writes') registerAdminAction(path, run);
  addCommandConfigFlags(cmd, ['dataDir', ...settings]).action(async (...received: unknown[]) => {
    // Commander passes the positional arguments, then the options, then the command.
    const opts = received[received.length - 2] as Opts;
    const args = received.slice(0, -2).map(String);
    const config = cliConfig(opts);
    // A cluster node's records change through the cluster's stream, on every node alike.
    if (config.clusterNats !== '' && access === 'writes') {
      // Loaded only here: the NATS client is no part of a single box's commands (~0.1 s each).
      const { runThroughCluster } = await import('./cluster-admin.js');
      await runThroughCluster(config, path, args, opts);
    }
    // Before opening: opening the store read-write commits (its schema version).
    if (access === 'writes') refuseWritesShortOfSpace(config);
    const dbs: StoreDatabases = openDataDir(config, { readOnly: config.clusterNats !== '' });
    try {
      run(new AuthStore(dbs), opts, dbs, args, config);
    } catch (err) {
      fail(err instanceof Error ? err.message : String(err));
    } finally {
      await dbs.root.close();
    }
  });
}

/** `admin users create` for that command. */
function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** `--json`: the value as indented JSON; otherwise `line(x)` for each record. */
export type { Opts };

export function print<T>(opts: Opts, value: T | T[], line: (x: T) => string): void {
  if (opts.json) {
    out(JSON.stringify(value, null, 2) + '\n');
    return;
  }
  for (const x of Array.isArray(value) ? value : [value]) out(line(x) + '\n');
}

/** A list: `--json` as indented JSON; otherwise a header row, then a row per record, tab-separated. */
export function printTable<T>(opts: Opts, records: T[], columns: readonly (readonly [string, (x: T) => unknown])[]): void {
  if (opts.json) {
    out(JSON.stringify(records, null, 2) + '\n');
    return;
  }
  const rows = [columns.map(([header]) => header), ...records.map((r) => columns.map(([, cell]) => String(cell(r))))];
  out(rows.map((row) => row.join('\t') + '\n').join(''));
}

export function toInt(v: unknown, name: string): number {
  const s = String(v);
  if (!/^\d+$/.test(s)) fail(`${name} must be an integer`);
  return Number(s);
}

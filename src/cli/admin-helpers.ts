/**
 * Shared plumbing of the `hedgerow admin …` subcommands: open the data directory named by
 * `--data-dir` for one action and close it after, print JSON or one line per record, parse ints.
 */
import type { Command } from 'commander';
import { AuthStore } from '../store/auth-store.js';
import type { StoreDatabases } from '../store/open-store.js';
import { addCommandConfigFlags } from './config-flags.js';
import { cliConfig, fail, openDataDir } from './open-data-dir.js';

export type Opts = Record<string, unknown>;

/**
 * Adds `--data-dir` and `--env-file` to `cmd` and runs `run` with the store open (`args`: the command's positional
 * arguments); an error ends the process (exit 2).
 */
export function withStore(cmd: Command, run: (auth: AuthStore, opts: Opts, dbs: StoreDatabases, args: string[]) => void): void {
  addCommandConfigFlags(cmd, ['dataDir']).action(async (...received: unknown[]) => {
    // Commander passes the positional arguments, then the options, then the command.
    const opts = received[received.length - 2] as Opts;
    const args = received.slice(0, -2).map(String);
    const dbs: StoreDatabases = openDataDir(cliConfig(opts));
    try {
      run(new AuthStore(dbs), opts, dbs, args);
    } catch (err) {
      fail(err instanceof Error ? err.message : String(err));
    } finally {
      await dbs.root.close();
    }
  });
}

/** `--json`: the value as indented JSON; otherwise `line(x)` for each record. */
export function print<T>(opts: Opts, value: T | T[], line: (x: T) => string): void {
  if (opts.json) {
    process.stdout.write(JSON.stringify(value, null, 2) + '\n');
    return;
  }
  for (const x of Array.isArray(value) ? value : [value]) process.stdout.write(line(x) + '\n');
}

export function toInt(v: unknown, name: string): number {
  const s = String(v);
  if (!/^\d+$/.test(s)) fail(`${name} must be an integer`);
  return Number(s);
}

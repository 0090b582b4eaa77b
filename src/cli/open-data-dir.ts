/**
 * For CLI commands other than `serve`: their configuration (flags over `--env-file` over the
 * environment over the defaults, with warnings on stderr), and the data directory it names opened.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfigWithWarnings } from '../config/load-config.js';
import type { Config } from '../config/schema.js';
import { DiskReserve } from '../store/disk-reserve.js';
import { openStore, STORE_FILE, type StoreDatabases } from '../store/open-store.js';
import { storeOpenError } from '../store/store-open-error.js';
import { commandEnv, configFlags } from './config-flags.js';
import { EXIT_FAILED, fail } from './exit-codes.js';

/** Warnings already printed: a command that reads its configuration twice warns once. */
const warned = new Set<string>();

/** The command's configuration from its parsed options; a bad one ends the process (exit 2, as for `serve`). */
export function cliConfig(opts: Record<string, unknown>): Readonly<Config> {
  try {
    const { config, warnings } = loadConfigWithWarnings({ flags: configFlags(opts), env: commandEnv(opts) });
    for (const w of warnings) {
      if (warned.has(w)) continue;
      warned.add(w);
      process.stderr.write(`hedgerow: warning: ${w}\n`);
    }
    return config;
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
}

export function openDataDir(config: Readonly<Config>, opts: { readOnly?: boolean } = {}): StoreDatabases {
  const { dataDir, sync } = config;
  const file = path.join(dataDir, STORE_FILE);
  try {
    statSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      fail(`no Hedgerow data in ${dataDir}: start the daemon once (hedgerow serve --data-dir ${dataDir}) to create it`);
    }
    // A directory this user may not read: a setting to fix, as `serve` refuses one it cannot write.
    fail(`cannot read ${file}: ${(err as Error).message}`);
  }
  try {
    return openStore({ dataDir, sync, readOnly: opts.readOnly ?? false });
  } catch (err) {
    // As `serve` says it: a damaged or newer store, or what LMDB refused, in one line.
    const known = storeOpenError(dataDir, err);
    if (known) fail(known.message, EXIT_FAILED);
    throw err;
  }
}

/**
 * A command about to write refuses (exit 1) while the data directory's disk is short of the
 * free-space reserve, as the daemon refuses management writes then (half of
 * HEDGEROW_MIN_FREE_DISK_BYTES is theirs): LMDB's own writes must not be the ones to find the
 * disk full (store/disk-reserve.ts). `hedgerow events prune`, which makes room inside the store, is
 * not held.
 */
export function refuseWritesShortOfSpace(config: Readonly<Config>): void {
  const short = new DiskReserve({ dir: config.dataDir, minFreeBytes: config.minFreeDiskBytes }).shortfall('management');
  if (short !== undefined) fail(`nothing was changed: ${short}; free some space and run it again`, EXIT_FAILED);
}

/** Opens the data directory named by `--data-dir` / HEDGEROW_DATA_DIR / the defaults, for CLI commands. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig } from '../config/load-config.js';
import { openStore, type StoreDatabases } from '../store/open-store.js';

export function openDataDir(flags: Record<string, unknown>, opts: { readOnly?: boolean } = {}): StoreDatabases {
  let dataDir: string;
  let sync;
  try {
    const config = loadConfig({ flags });
    dataDir = config.dataDir;
    sync = config.sync;
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
  if (!existsSync(path.join(dataDir, 'hedgerow.mdb'))) {
    fail(`no Hedgerow data in ${dataDir}: start the daemon once (hedgerow serve --data-dir ${dataDir}) to create it`);
  }
  return openStore({ dataDir, sync, readOnly: opts.readOnly ?? false });
}

export function fail(message: string): never {
  process.stderr.write(`hedgerow: ${message}\n`);
  process.exit(2);
}

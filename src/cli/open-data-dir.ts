/** Opens the data directory named by `--data-dir` / HEDGEROW_DATA_DIR / the defaults, for CLI commands. */
import { statSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig } from '../config/load-config.js';
import { openStore, STORE_FILE, type StoreDatabases } from '../store/open-store.js';

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
  const file = path.join(dataDir, STORE_FILE);
  try {
    statSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      fail(`no Hedgerow data in ${dataDir}: start the daemon once (hedgerow serve --data-dir ${dataDir}) to create it`);
    }
    fail(`cannot read ${file}: ${(err as Error).message}`);
  }
  try {
    return openStore({ dataDir, sync, readOnly: opts.readOnly ?? false });
  } catch (err) {
    // LMDB's own errors (permissions on the lock file, a file that is not LMDB's) as one line.
    fail(`cannot open the data in ${dataDir}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

export function fail(message: string): never {
  process.stderr.write(`hedgerow: ${message}\n`);
  process.exit(2);
}

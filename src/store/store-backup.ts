/**
 * Backups of a data directory, made while the daemon serves, and restoring one
 * (docs/operations.md#backups). A backup is a directory: LMDB's own copy of the store
 * (`mdb_env_copy2` through lmdb-js's `backup`), taken from one read transaction, so it holds
 * exactly what was committed when it began (every acknowledged event, and the person processor's
 * state and cursor as of then), plus the first-start credentials file when there is one, and a
 * manifest saying what it is. A restored directory is a data directory like any other: the daemon
 * started on it applies the events its persons had not reached.
 */
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { CREDENTIALS_FILE } from './bootstrap.js';
import { lockDataDir } from './data-dir-lock.js';
import { SCHEMA_VERSION, STORE_FILE, type StoreDatabases } from './open-store.js';
import { checkStoreFile, StoreFileError } from './store-file-check.js';

const MANIFEST_FILE = 'hedgerow-backup.json';

export interface BackupManifest {
  /** What this directory is, for a reader who finds it. */
  kind: 'hedgerow-backup';
  created_at: string;
  hedgerow_version: string;
  schema_version: number | undefined;
  source_data_dir: string;
  compacted: boolean;
  files: Array<{ name: string; bytes: number }>;
}

export class BackupError extends Error {}

/** Refuses a destination that holds anything: a backup never mixes with other files. */
function requireEmptyDir(dir: string, what: string): void {
  if (!existsSync(dir)) return;
  if (!statSync(dir).isDirectory()) throw new BackupError(`${what} ${dir} is not a directory`);
  if (readdirSync(dir).length > 0) throw new BackupError(`${what} ${dir} is not empty`);
}

/**
 * Copies the open store into `dest` (a new or empty directory). `onProgress` hears the bytes
 * written so far about every `progressMs` while the copy runs.
 */
interface BackupOptions {
  dbs: StoreDatabases;
  dataDir: string;
  dest: string;
  compact: boolean;
  version: string;
  onProgress?: (bytes: number) => void;
  progressMs?: number;
}

export async function writeBackup(opts: BackupOptions): Promise<BackupManifest> {
  const { dest } = opts;
  requireEmptyDir(dest, 'backup destination');
  const created = !existsSync(dest);
  mkdirSync(dest, { recursive: true, mode: 0o700 });
  const storeCopy = path.join(dest, STORE_FILE);
  try {
    return await copyInto(opts, storeCopy);
  } catch (err) {
    // Nothing half-written stays: the destination is as it was, so the same command can run again.
    if (created) rmSync(dest, { recursive: true, force: true });
    else for (const name of readdirSync(dest)) rmSync(path.join(dest, name), { recursive: true, force: true });
    throw err;
  }
}

async function copyInto(opts: BackupOptions, storeCopy: string): Promise<BackupManifest> {
  const { dbs, dataDir, dest } = opts;
  const schemaVersion = dbs.meta.get('schema_version') as number | undefined;
  const timer = opts.onProgress
    ? setInterval(() => {
        if (existsSync(storeCopy)) opts.onProgress?.(statSync(storeCopy).size);
      }, opts.progressMs ?? 250)
    : undefined;
  try {
    await dbs.root.backup(storeCopy, opts.compact);
  } finally {
    if (timer) clearInterval(timer);
  }
  chmodSync(storeCopy, 0o600);
  const files = [{ name: STORE_FILE, bytes: statSync(storeCopy).size }];
  const credentials = path.join(dataDir, CREDENTIALS_FILE);
  if (existsSync(credentials)) {
    copyFileSync(credentials, path.join(dest, CREDENTIALS_FILE));
    chmodSync(path.join(dest, CREDENTIALS_FILE), 0o600);
    files.push({ name: CREDENTIALS_FILE, bytes: statSync(credentials).size });
  }
  const manifest: BackupManifest = {
    kind: 'hedgerow-backup',
    created_at: new Date().toISOString(),
    hedgerow_version: opts.version,
    schema_version: schemaVersion,
    source_data_dir: path.resolve(dataDir),
    compacted: opts.compact,
    files,
  };
  writeFileSync(path.join(dest, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
  return manifest;
}

/**
 * Puts the backup in `src` in place as the data directory `dataDir`, which must be new or empty
 * and not served by a daemon. Returns the backup's manifest.
 */
export async function restoreBackup(src: string, dataDir: string): Promise<BackupManifest> {
  const manifest = readManifest(src);
  if (manifest.schema_version !== undefined && manifest.schema_version > SCHEMA_VERSION) {
    throw new BackupError(
      `the backup in ${src} has schema version ${manifest.schema_version}, newer than this Hedgerow (${SCHEMA_VERSION}): restore it with the version that wrote it (${manifest.hedgerow_version}) or a later one`,
    );
  }
  const store = path.join(src, STORE_FILE);
  try {
    checkStoreFile(store); // a copy cut short or a stray file is refused before anything is written
  } catch (err) {
    if (err instanceof StoreFileError) throw new BackupError(err.message);
    throw err;
  }
  requireEmptyDir(dataDir, 'data directory');
  // A daemon starting on the directory meanwhile would create a store there: hold its lock.
  const lock = await lockDataDir(dataDir).catch((err: Error) => {
    throw new BackupError(err.message);
  });
  const written: string[] = [];
  try {
    requireEmptyDir(dataDir, 'data directory');
    for (const { name } of manifest.files) {
      const partial = path.join(dataDir, `${name}.restoring`);
      written.push(partial);
      copyFileSync(path.join(src, name), partial);
      chmodSync(partial, 0o600);
      renameSync(partial, path.join(dataDir, name));
      written.push(path.join(dataDir, name));
    }
  } catch (err) {
    // A restore that stopped half-way leaves the directory empty again, ready for another try.
    for (const file of written) rmSync(file, { force: true });
    throw err;
  } finally {
    await lock.release();
  }
  return manifest;
}

function readManifest(src: string): BackupManifest {
  const file = path.join(src, MANIFEST_FILE);
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(readFileSync(file, 'utf8')) as BackupManifest;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new BackupError(
      code === 'ENOENT' ? `${src} is not a Hedgerow backup (no ${MANIFEST_FILE})` : `cannot read ${file}: ${(err as Error).message}`,
    );
  }
  if (manifest?.kind !== 'hedgerow-backup' || !Array.isArray(manifest.files))
    throw new BackupError(`${file} is not a Hedgerow backup manifest`);
  for (const f of manifest.files) {
    if (typeof f?.name !== 'string' || path.basename(f.name) !== f.name || !existsSync(path.join(src, f.name))) {
      throw new BackupError(`${src} lacks ${String(f?.name)}, which its manifest lists`);
    }
  }
  return manifest;
}

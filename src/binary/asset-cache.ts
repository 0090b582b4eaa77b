/**
 * The single executable's private cache: the files it carries as assets (native addons, worker
 * bundles, lmdb's compression dictionary, package.json, config/default.json) are written to
 * `<base>/<version>-<id>/`, laid out like an installed package, so that the bundled code finds
 * them by its usual relative paths.
 *
 * Every start checks each file (size and sha256 against the manifest built into the binary) and
 * rewrites what differs. Writes are atomic (a temp file of its own opened exclusively, fsync,
 * rename), so processes that start at once each write a complete copy and the last rename wins
 * with identical bytes. Version directories not used for `STALE_AFTER_MS` are removed; a running
 * process marks its own directory as used at start and then every `MARK_INTERVAL_MS`.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

interface BundledFile {
  /** The SEA asset key. */
  readonly asset: string;
  /** Where it goes, relative to the version directory (POSIX separators). */
  readonly path: string;
  readonly sha256: string;
  readonly size: number;
  readonly mode: number;
}

export interface AssetManifest {
  readonly version: string;
  /** A digest of the file list: two builds with the same files share a directory. */
  readonly id: string;
  readonly files: readonly BundledFile[];
}

export interface CacheBase {
  readonly dir: string;
  /** In a directory others can write to (the temp fallback): must be ours and private. */
  readonly shared: boolean;
}

/** Reads one asset's bytes (from the executable, or from a staging directory while developing). */
export type AssetReader = (asset: string) => Uint8Array;

export const STALE_AFTER_MS = 14 * 24 * 3600 * 1000;
export const MARK_INTERVAL_MS = 6 * 3600 * 1000;

const VERSION_DIR = /^[0-9A-Za-z.+_-]+-[0-9a-f]{12}$/;

export function sha256Hex(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

export function versionDirName(manifest: AssetManifest): string {
  return `${manifest.version}-${manifest.id}`;
}

/**
 * Where the cache may go, in order: `HEDGEROW_CACHE_DIR` alone when set; else
 * `$XDG_CACHE_HOME/hedgerow` (absolute only, per the XDG spec), `~/.cache/hedgerow`, and last
 * `<tmp>/hedgerow-cache-<uid>`.
 */
export function cacheBases(
  env: Readonly<Record<string, string | undefined>>,
  home: string | undefined,
  tmpDir: string,
  uid: number | undefined,
): CacheBase[] {
  if (env.HEDGEROW_CACHE_DIR) return [{ dir: path.resolve(env.HEDGEROW_CACHE_DIR), shared: false }];
  const bases: CacheBase[] = [];
  const xdg = env.XDG_CACHE_HOME;
  if (xdg && path.isAbsolute(xdg)) bases.push({ dir: path.join(xdg, 'hedgerow'), shared: false });
  if (home && path.isAbsolute(home)) bases.push({ dir: path.join(home, '.cache', 'hedgerow'), shared: false });
  bases.push({ dir: path.join(tmpDir, `hedgerow-cache-${uid ?? 'user'}`), shared: true });
  return bases;
}

function ensureBaseDir(base: CacheBase): void {
  fs.mkdirSync(base.dir, { recursive: true, mode: 0o700 });
  const st = fs.lstatSync(base.dir);
  if (!st.isDirectory()) throw new Error(`${base.dir} is not a directory`);
  if (base.shared) {
    const uid = process.getuid?.();
    if ((uid !== undefined && st.uid !== uid) || (st.mode & 0o022) !== 0) {
      throw new Error(`${base.dir} is not a private directory owned by this user`);
    }
  }
  fs.accessSync(base.dir, fs.constants.W_OK);
}

function isCurrent(target: string, file: BundledFile): boolean {
  let st: fs.Stats;
  try {
    st = fs.statSync(target);
  } catch {
    return false;
  }
  return st.isFile() && st.size === file.size && sha256Hex(fs.readFileSync(target)) === file.sha256;
}

/** Writes `data` to `target` so that readers see either the old file or all of the new one. */
function writeFileAtomically(target: string, data: Uint8Array, mode: number): void {
  fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
  const tmp = `${target}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = fs.openSync(tmp, 'wx', mode);
  try {
    fs.writeSync(fd, data);
    fs.fsyncSync(fd);
  } catch (err) {
    fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  fs.closeSync(fd);
  try {
    fs.renameSync(tmp, target);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

/** Brings `root` up to date with the manifest; returns how many files were (re)written. */
export function materialize(manifest: AssetManifest, read: AssetReader, root: string): number {
  let written = 0;
  for (const file of manifest.files) {
    const target = path.join(root, ...file.path.split('/'));
    if (isCurrent(target, file)) continue;
    const data = read(file.asset);
    const digest = sha256Hex(data);
    if (digest !== file.sha256) {
      throw new Error(`the executable's asset ${file.asset} is corrupt (sha256 ${digest}, expected ${file.sha256})`);
    }
    writeFileAtomically(target, data, file.mode);
    written++;
  }
  return written;
}

/** Records that the version directory is in use (its mtime), which keeps it from being removed. */
export function markInUse(root: string, now: Date = new Date()): void {
  fs.utimesSync(root, now, now);
}

/** Removes the other version directories of `baseDir` not marked as used for `staleAfterMs`. */
export function removeStaleVersions(baseDir: string, keep: string, nowMs: number, staleAfterMs = STALE_AFTER_MS): string[] {
  const removed: string[] = [];
  for (const entry of fs.readdirSync(baseDir, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === keep || !VERSION_DIR.test(entry.name)) continue;
    const dir = path.join(baseDir, entry.name);
    try {
      if (nowMs - fs.statSync(dir).mtimeMs < staleAfterMs) continue;
      fs.rmSync(dir, { recursive: true, force: true });
      removed.push(entry.name);
    } catch {
      // Another process removed or is using it; the next start tries again.
    }
  }
  return removed;
}

export interface PreparedCache {
  readonly root: string;
  readonly written: number;
  readonly removed: readonly string[];
}

/**
 * Uses the first base that works: creates it, materializes the version directory, marks it in
 * use and removes stale siblings. Throws when no base works, naming each one's reason.
 */
export function prepareAssetCache(
  manifest: AssetManifest,
  read: AssetReader,
  bases: readonly CacheBase[],
  nowMs = Date.now(),
): PreparedCache {
  const failures: string[] = [];
  for (const base of bases) {
    const root = path.join(base.dir, versionDirName(manifest));
    try {
      ensureBaseDir(base);
      const written = materialize(manifest, read, root);
      markInUse(root, new Date(nowMs));
      return { root, written, removed: removeStaleVersions(base.dir, versionDirName(manifest), nowMs) };
    } catch (err) {
      failures.push(`${root}: ${(err as Error).message}`);
    }
  }
  throw new Error(
    `cannot prepare the cache of native modules:\n  ${failures.join('\n  ')}\n(set HEDGEROW_CACHE_DIR to a writable directory)`,
  );
}

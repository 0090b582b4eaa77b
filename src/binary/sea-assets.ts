/**
 * Imported first by the single executable's entry point (so it runs before lmdb, msgpackr or
 * uWS are loaded): materializes the carried files in the private cache and publishes its
 * directory as `globalThis.__HEDGEROW_SEA_ROOT`, which the build's rewrites of `import.meta.url`
 * and of the native addon loaders resolve against.
 *
 * Outside a single executable (running the bundle with node while working on the build) the
 * assets are read from the staging directory named by `HEDGEROW_SEA_STAGE`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sea from 'node:sea';
import { MARK_INTERVAL_MS, cacheBases, markInUse, prepareAssetCache, type AssetManifest, type AssetReader } from './asset-cache.js';

declare global {
  // eslint-disable-next-line no-var
  var __HEDGEROW_SEA_ROOT: string | undefined;
}

const MANIFEST_ASSET = 'manifest.json';

function assetReader(): AssetReader {
  if (sea.isSea()) return (asset) => new Uint8Array(sea.getAsset(asset));
  const stage = process.env.HEDGEROW_SEA_STAGE;
  if (!stage) throw new Error('not running as the single executable and HEDGEROW_SEA_STAGE is not set');
  return (asset) => fs.readFileSync(path.join(stage, asset));
}

function homeDir(): string | undefined {
  try {
    return os.homedir();
  } catch {
    return undefined; // no passwd entry (a dynamic user without HOME)
  }
}

function prepare(): string {
  const started = process.hrtime.bigint();
  try {
    const read = assetReader();
    const manifest = JSON.parse(Buffer.from(read(MANIFEST_ASSET)).toString('utf8')) as AssetManifest;
    const prepared = prepareAssetCache(manifest, read, cacheBases(process.env, homeDir(), os.tmpdir(), process.getuid?.()));
    if (process.env.HEDGEROW_SEA_DEBUG === '1') {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      process.stderr.write(
        `hedgerow: cache ${prepared.root}, ${prepared.written}/${manifest.files.length} files written, ` +
          `${prepared.removed.length} stale versions removed, ${ms.toFixed(1)} ms\n`,
      );
    }
    return prepared.root;
  } catch (err) {
    process.stderr.write(`hedgerow: ${(err as Error).message}\n`);
    process.exit(73); // EX_CANTCREAT
  }
}

const root = prepare();
globalThis.__HEDGEROW_SEA_ROOT = root;
setInterval(() => {
  try {
    markInUse(root);
  } catch {
    // Removed under us: the next start rewrites it.
  }
}, MARK_INTERVAL_MS).unref();

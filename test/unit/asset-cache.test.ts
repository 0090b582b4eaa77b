/**
 * The single executable's cache of carried files, on real temporary directories: where it goes,
 * what is written and rewritten, corrupt assets, the private-directory check of the temp
 * fallback, falling through to the next base, and the removal of stale version directories.
 */
import { chmodSync, mkdirSync, readFileSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  STALE_AFTER_MS,
  cacheBases,
  materialize,
  prepareAssetCache,
  removeStaleVersions,
  sha256Hex,
  versionDirName,
  type AssetManifest,
} from '../../src/binary/asset-cache.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs('hedgerow-asset-cache-');

const ASSETS: Record<string, Uint8Array> = {
  'addon.node': Buffer.from('\x7fELF pretend addon'),
  'package.json': Buffer.from('{"type":"commonjs"}\n'),
};
const MANIFEST: AssetManifest = {
  version: '1.2.3',
  id: 'abcdef012345',
  files: [
    {
      asset: 'addon.node',
      path: 'node_modules/x/addon.node',
      sha256: sha256Hex(ASSETS['addon.node']!),
      size: ASSETS['addon.node']!.length,
      mode: 0o755,
    },
    {
      asset: 'package.json',
      path: 'package.json',
      sha256: sha256Hex(ASSETS['package.json']!),
      size: ASSETS['package.json']!.length,
      mode: 0o644,
    },
  ],
};

function reader(reads: string[] = [], assets = ASSETS) {
  return (asset: string): Uint8Array => {
    reads.push(asset);
    const data = assets[asset];
    if (!data) throw new Error(`no asset ${asset}`);
    return data;
  };
}

describe('cacheBases', () => {
  it('uses HEDGEROW_CACHE_DIR alone when set', () => {
    expect(cacheBases({ HEDGEROW_CACHE_DIR: '/srv/cache', XDG_CACHE_HOME: '/x' }, '/home/a', '/tmp', 1000)).toEqual([
      { dir: '/srv/cache', shared: false },
    ]);
  });

  it('tries XDG_CACHE_HOME, then ~/.cache, then a private directory in the temp dir', () => {
    expect(cacheBases({ XDG_CACHE_HOME: '/var/cache' }, '/home/a', '/tmp', 1000)).toEqual([
      { dir: '/var/cache/hedgerow', shared: false },
      { dir: '/home/a/.cache/hedgerow', shared: false },
      { dir: '/tmp/hedgerow-cache-1000', shared: true },
    ]);
  });

  it('ignores a relative XDG_CACHE_HOME and a missing home', () => {
    expect(cacheBases({ XDG_CACHE_HOME: 'rel' }, undefined, '/tmp', 7)).toEqual([{ dir: '/tmp/hedgerow-cache-7', shared: true }]);
  });
});

describe('materialize', () => {
  it('writes every file with its mode, then nothing while they are intact', () => {
    const root = path.join(tempDir(), 'v');
    const reads: string[] = [];
    expect(materialize(MANIFEST, reader(reads), root)).toBe(2);
    expect(readFileSync(path.join(root, 'node_modules/x/addon.node'))).toEqual(Buffer.from(ASSETS['addon.node']!));
    expect(statSync(path.join(root, 'node_modules/x/addon.node')).mode & 0o777).toBe(0o755);
    expect(statSync(path.join(root, 'package.json')).mode & 0o777).toBe(0o644);
    expect(materialize(MANIFEST, reader(reads), root)).toBe(0);
    expect(reads).toEqual(['addon.node', 'package.json']);
  });

  it('rewrites a file whose content differs even at the same size, and leaves no temp files', () => {
    const root = path.join(tempDir(), 'v');
    materialize(MANIFEST, reader(), root);
    const file = path.join(root, 'package.json');
    writeFileSync(file, Buffer.alloc(ASSETS['package.json']!.length, 0x20));
    const reads: string[] = [];
    expect(materialize(MANIFEST, reader(reads), root)).toBe(1);
    expect(reads).toEqual(['package.json']);
    expect(readFileSync(file, 'utf8')).toBe('{"type":"commonjs"}\n');
    expect(readdirSync(root).sort()).toEqual(['node_modules', 'package.json']);
  });

  it('refuses an asset that does not match the manifest', () => {
    const root = path.join(tempDir(), 'v');
    const bad = reader([], { ...ASSETS, 'addon.node': Buffer.from('tampered') });
    expect(() => materialize(MANIFEST, bad, root)).toThrow(/asset addon\.node is corrupt/);
  });
});

describe('prepareAssetCache', () => {
  it('uses the first base that works and names why the others did not', () => {
    const t = tempDir();
    const blocked = path.join(t, 'a-file');
    writeFileSync(blocked, '');
    const prepared = prepareAssetCache(MANIFEST, reader(), [
      { dir: blocked, shared: false },
      { dir: path.join(t, 'good'), shared: false },
    ]);
    expect(prepared.root).toBe(path.join(t, 'good', versionDirName(MANIFEST)));
    expect(prepared.written).toBe(2);
    expect(statSync(path.join(t, 'good')).mode & 0o777).toBe(0o700);

    expect(() => prepareAssetCache(MANIFEST, reader(), [{ dir: blocked, shared: false }])).toThrow(
      new RegExp(`${blocked}/1\\.2\\.3-abcdef012345: .*HEDGEROW_CACHE_DIR`, 's'),
    );
  });

  it('refuses a shared-location directory others can write to', () => {
    const dir = path.join(tempDir(), 'hedgerow-cache-0');
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    expect(() => prepareAssetCache(MANIFEST, reader(), [{ dir, shared: true }])).toThrow(/not a private directory owned by this user/);
    chmodSync(dir, 0o700);
    expect(prepareAssetCache(MANIFEST, reader(), [{ dir, shared: true }]).written).toBe(2);
  });

  it('marks its version directory as used and removes versions unused for two weeks', () => {
    const base = tempDir();
    const now = Date.UTC(2026, 10, 21);
    const old = path.join(base, '1.2.2-0123456789ab');
    const recent = path.join(base, '1.2.1-ba9876543210');
    const unrelated = path.join(base, 'notes');
    for (const d of [old, recent, unrelated]) mkdirSync(d);
    const at = (ms: number) => new Date(ms);
    utimesSync(old, at(now - STALE_AFTER_MS - 1000), at(now - STALE_AFTER_MS - 1000));
    utimesSync(recent, at(now - STALE_AFTER_MS + 60_000), at(now - STALE_AFTER_MS + 60_000));
    utimesSync(unrelated, at(0), at(0));

    const prepared = prepareAssetCache(MANIFEST, reader(), [{ dir: base, shared: false }], now);
    expect(prepared.removed).toEqual(['1.2.2-0123456789ab']);
    expect(readdirSync(base).sort()).toEqual(['1.2.1-ba9876543210', '1.2.3-abcdef012345', 'notes']);
    expect(statSync(prepared.root).mtimeMs).toBe(now);
    expect(removeStaleVersions(base, versionDirName(MANIFEST), now + STALE_AFTER_MS + 1)).toEqual(['1.2.1-ba9876543210']);
  });
});

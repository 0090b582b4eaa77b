/** The store's files hold project tokens and secrets: a new store's files are its owner's alone. */
import { chmodSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs('hedgerow-store-files-');

describe('openStore', () => {
  it('makes a new store owner-only, even in a directory others can read', async () => {
    const dir = tempDir();
    chmodSync(dir, 0o755);
    const dbs = openStore({ dataDir: dir, sync: 'none' });
    await dbs.root.close();
    for (const name of ['hedgerow.mdb', 'hedgerow.mdb-lock']) expect(statSync(path.join(dir, name)).mode & 0o777).toBe(0o600);
  });

  it('leaves the modes of an existing store as its owner set them', async () => {
    const dir = tempDir();
    await openStore({ dataDir: dir, sync: 'none' }).root.close();
    chmodSync(path.join(dir, 'hedgerow.mdb'), 0o640);
    await openStore({ dataDir: dir, sync: 'none' }).root.close();
    expect(statSync(path.join(dir, 'hedgerow.mdb')).mode & 0o777).toBe(0o640);
  });
});

/**
 * The data directory's schema version: recorded on first open, moved forward from older versions,
 * and a directory written by a newer Hedgerow refused with a message that says so.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, SCHEMA_VERSION } from '../../src/store/open-store.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hedgerow-schema-'));
  dirs.push(dir);
  return dir;
}

async function withVersion(dir: string, version: number): Promise<void> {
  const dbs = openStore({ dataDir: dir, sync: 'none' });
  await dbs.meta.put('schema_version', version);
  await dbs.root.close();
}

describe('schema version', () => {
  it('is recorded on first open, and an older directory is moved forward', async () => {
    const fresh = dataDir();
    const dbs = openStore({ dataDir: fresh, sync: 'none' });
    expect(dbs.meta.get('schema_version')).toBe(SCHEMA_VERSION);
    expect(SCHEMA_VERSION).toBe(3);
    await dbs.root.close();

    const older = dataDir();
    await withVersion(older, 2);
    const reopened = openStore({ dataDir: older, sync: 'none' });
    expect(reopened.meta.get('schema_version')).toBe(3);
    await reopened.root.close();
  });

  it('refuses a directory written by a newer Hedgerow', async () => {
    const dir = dataDir();
    await withVersion(dir, SCHEMA_VERSION + 1);
    expect(() => openStore({ dataDir: dir, sync: 'none' })).toThrow(
      `data directory has schema version ${SCHEMA_VERSION + 1}, newer than this Hedgerow (${SCHEMA_VERSION}); upgrade Hedgerow`,
    );
  });
});

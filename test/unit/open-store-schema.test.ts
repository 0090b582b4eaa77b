/**
 * The data directory's schema version: recorded on first open, moved forward from older versions,
 * and a directory written by a newer Hedgerow refused with a message that says so.
 */
import { describe, expect, it } from 'vitest';
import { openStore, SCHEMA_VERSION } from '../../src/store/open-store.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const dataDir = useTempDirs('hedgerow-schema-');

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
    expect(SCHEMA_VERSION).toBe(4);
    await dbs.root.close();

    const older = dataDir();
    await withVersion(older, 2);
    const reopened = openStore({ dataDir: older, sync: 'none' });
    expect(reopened.meta.get('schema_version')).toBe(4);
    await reopened.root.close();
  });

  it('refuses a directory written by a newer Hedgerow, for reading too (events export)', async () => {
    const dir = dataDir();
    await withVersion(dir, SCHEMA_VERSION + 1);
    const refusal = `data directory has schema version ${SCHEMA_VERSION + 1}, newer than this Hedgerow (${SCHEMA_VERSION}); upgrade Hedgerow`;
    expect(() => openStore({ dataDir: dir, sync: 'none' })).toThrow(refusal);
    expect(() => openStore({ dataDir: dir, sync: 'none', readOnly: true })).toThrow(refusal);
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { addGroupType, GroupReader } from '../../src/store/group-store.js';
import { openStore, type StoreDatabases } from '../../src/store/open-store.js';
import { PendingWrites } from '../../src/store/pending-writes.js';
import { PersonBatch } from '../../src/store/person-writer.js';

const open: Array<{ dir: string; dbs: StoreDatabases }> = [];
afterEach(async () => {
  for (const { dir, dbs } of open.splice(0)) {
    await dbs.root.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

function store(): StoreDatabases {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hedgerow-group-types-'));
  const dbs = openStore({ dataDir: dir, sync: 'none' });
  open.push({ dir, dbs });
  return dbs;
}

describe('a batch registering group types while another writer does', () => {
  it('sees, inside its commit, a name or an index registered since it read the table', () => {
    const dbs = store();
    // The processor's batch read an empty table and gave "company" index 0 ...
    const taken = new PersonBatch(dbs, new PendingWrites());
    taken.groupTypes(1);
    taken.addGroupType(1, 'company', 0);
    const sameName = new PersonBatch(dbs, new PendingWrites());
    sameName.groupTypes(1);
    sameName.addGroupType(1, 'organization', 1);
    // ... then the import registered "organization" at index 0.
    addGroupType(dbs, 1, 'organization', 0);
    expect(dbs.root.transactionSync(() => taken.groupTypesStillFree())).toBe(false);
    expect(dbs.root.transactionSync(() => sameName.groupTypesStillFree())).toBe(false);

    const free = new PersonBatch(dbs, new PendingWrites());
    free.addGroupType(1, 'company', 1);
    expect(dbs.root.transactionSync(() => free.groupTypesStillFree())).toBe(true);
    // Another project's types are its own.
    const other = new PersonBatch(dbs, new PendingWrites());
    other.addGroupType(2, 'organization', 0);
    expect(dbs.root.transactionSync(() => other.groupTypesStillFree())).toBe(true);
    expect(new GroupReader(dbs).typeMapping(1)).toEqual({ 0: 'organization' });
  });
});

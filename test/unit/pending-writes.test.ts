import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type StoreDatabases } from '../../src/store/open-store.js';
import { PendingWrites } from '../../src/store/pending-writes.js';

let opened: { dir: string; dbs: StoreDatabases } | undefined;
function store(): StoreDatabases {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hedgerow-pending-'));
  opened = { dir, dbs: openStore({ dataDir: dir, sync: 'none' }) };
  return opened.dbs;
}
afterEach(async () => {
  if (!opened) return;
  await opened.dbs.root.close();
  rmSync(opened.dir, { recursive: true, force: true });
  opened = undefined;
});

describe('PendingWrites', () => {
  it('writes nothing before apply, then every put and remove', () => {
    const dbs = store();
    dbs.persons.putSync([1, 1], { v: 'committed' });
    dbs.persons.putSync([1, 2], { v: 'committed 2' });
    const w = new PendingWrites();
    w.put(dbs.persons, [1, 1], { v: 'pending' });
    w.remove(dbs.persons, [1, 2]);
    w.put(dbs.distinctIds, [1, 'a'], 7);
    expect(dbs.persons.get([1, 1])).toEqual({ v: 'committed' });
    expect(dbs.persons.get([1, 2])).toEqual({ v: 'committed 2' });
    expect(dbs.distinctIds.get([1, 'a'])).toBeUndefined();

    dbs.root.transactionSync(() => w.apply());
    expect(dbs.persons.get([1, 1])).toEqual({ v: 'pending' });
    expect(dbs.persons.get([1, 2])).toBeUndefined();
    expect(dbs.distinctIds.get([1, 'a'])).toBe(7);
  });

  it('applies in order, running deferred work inside the transaction with the writes before it visible', () => {
    const dbs = store();
    const w = new PendingWrites();
    w.put(dbs.meta, 'k', 1);
    let seen: unknown;
    w.runInTransaction(() => {
      seen = dbs.meta.get('k');
      dbs.meta.putSync('k', 2);
    });
    w.put(dbs.meta, 'after', true);
    dbs.root.transactionSync(() => w.apply());
    expect(seen).toBe(1);
    expect([dbs.meta.get('k'), dbs.meta.get('after')]).toEqual([2, true]);
  });
});

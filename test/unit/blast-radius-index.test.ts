/**
 * The processor thread's blast radius tables on a real (temporary) LMDB store: built in slices
 * while batches keep changing persons on both sides of the scan, they must end up exactly as a
 * table built in one go from the final store.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BlastRadiusIndex, type BlastRadiusQuery } from '../../src/blast-radius/blast-radius-index.js';
import { openStore, type StoreDatabases } from '../../src/store/open-store.js';
import { PendingWrites } from '../../src/store/pending-writes.js';
import { PersonBatch } from '../../src/store/person-writer.js';

const P = 1;
let dir: string | undefined;
let dbs: StoreDatabases | undefined;

afterEach(async () => {
  await dbs?.root.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  dbs = undefined;
  dir = undefined;
});

function open(): StoreDatabases {
  dir = mkdtempSync(path.join(os.tmpdir(), 'hedgerow-blast-index-'));
  dbs = openStore({ dataDir: dir, sync: 'none' });
  return dbs;
}

/** Gathers `write` and commits it in one transaction, as the processor does; returns the batch's changes. */
function commit(store: StoreDatabases, write: (b: PersonBatch) => void) {
  const writes = new PendingWrites();
  const batch = new PersonBatch(store, writes);
  write(batch);
  batch.flush();
  store.root.transactionSync(() => writes.apply());
  return batch.changes;
}

const proQuery = (projectId = P): BlastRadiusQuery => ({
  projectId,
  groupTypeIndex: null,
  properties: [{ key: 'plan', value: 'pro', type: 'person' }],
  nowMs: Date.now(),
});

const created = { created_at: '2026-01-01T00:00:00.000Z', is_identified: false };

describe('BlastRadiusIndex', () => {
  it('builds in slices while batches change persons before and after the scan', () => {
    const store = open();
    commit(store, (b) => {
      for (let i = 0; i < 100; i++) b.create(P, `u${i}`, { ...created, properties: { plan: i % 2 === 0 ? 'pro' : 'free' } });
    });
    commit(store, (b) => b.create(2, 'other-project', { ...created, properties: { plan: 'pro' } }));
    const index = new BlastRadiusIndex(store);
    expect(index.warmUp(30)).toBe(true); // finds project 1
    expect(index.warmUp(30)).toBe(true); // persons 1–30

    // Person 5 (scanned) becomes free, person 80 (not scanned yet) becomes pro, two new persons,
    // and person 90 (not scanned) is merged into person 3 (scanned).
    index.apply(
      commit(store, (b) => {
        b.save(P, { ...b.person(P, 5)!, properties: { plan: 'free' } });
        b.save(P, { ...b.person(P, 80)!, properties: { plan: 'pro' } });
        b.create(P, 'late-1', { ...created, properties: { plan: 'pro' } });
        b.create(P, 'late-2', { ...created, properties: {} });
        b.absorb(P, 90, 3);
      }),
    );
    while (index.warmUp(30));

    const fresh = new BlastRadiusIndex(store);
    const expected = fresh.count(proQuery());
    // 50 pro, minus person 5, plus person 80 (was free), plus late-1, minus person 90 (was free: no change).
    expect(expected).toEqual({ ok: true, users_affected: 51, total_users: 101 });
    expect(index.count(proQuery())).toEqual(expected);
    expect(index.count(proQuery(2))).toEqual({ ok: true, users_affected: 1, total_users: 1 });
  });

  it('finishes a table a question arrives for, and keeps it exact afterwards', () => {
    const store = open();
    commit(store, (b) => {
      for (let i = 0; i < 10; i++) b.create(P, `u${i}`, { ...created, properties: { plan: 'pro' } });
    });
    const index = new BlastRadiusIndex(store);
    expect(index.count(proQuery())).toEqual({ ok: true, users_affected: 10, total_users: 10 });
    index.apply(commit(store, (b) => b.absorb(P, 2, 1)));
    expect(index.count(proQuery())).toEqual({ ok: true, users_affected: 9, total_users: 9 });
    expect(index.warmUp(1000)).toBe(false);
  });

  it('refuses flag filters and counts groups of one type', () => {
    const store = open();
    commit(store, (b) => {
      for (let i = 0; i < 4; i++) {
        b.saveGroup(P, {
          group_type_index: 0,
          group_key: `org-${i}`,
          group_properties: { size: i },
          created_at: created.created_at,
          version: 0,
        });
      }
    });
    const index = new BlastRadiusIndex(store);
    const groups = (properties: unknown[]) => index.count({ projectId: P, groupTypeIndex: 0, properties, nowMs: Date.now() });
    expect(groups([{ key: 'size', value: '1', operator: 'gt', type: 'group', group_type_index: 0 }])).toEqual({
      ok: true,
      users_affected: 2,
      total_users: 4,
    });
    expect(index.count({ ...proQuery(), properties: [{ key: '7', type: 'flag', value: true, operator: 'flag_evaluates_to' }] })).toEqual({
      ok: false,
      unsupported: 'flag',
    });
  });
});

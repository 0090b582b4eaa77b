/**
 * A chain of merges in one processor batch moves the same distinct ids again and again (anyone
 * with the public key can send one: a person given thousands of ids by `$identify`, then
 * `$merge_dangerously` back and forth). Each id's last owner and membership are written once, so
 * the batch's writes stay proportional to the ids, not to ids × merges, and the stored result is
 * the same.
 */
import { describe, expect, it } from 'vitest';
import { applyEvent } from '../../src/processing/apply-event.js';
import { openStore } from '../../src/store/open-store.js';
import { PendingWrites } from '../../src/store/pending-writes.js';
import { PersonBatch } from '../../src/store/person-writer.js';
import { PersonReader } from '../../src/store/person-store.js';
import { normalizedBatch } from '../helpers/normalized-events.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs('hedgerow-merge-chain-');

describe('a chain of merges in one batch', () => {
  it('writes each moved id once, and every id ends with the last person of the chain', async () => {
    const dbs = openStore({ dataDir: tempDir(), sync: 'none' });
    const ids = 1000;
    const merges = 40;
    // First batch, committed: a person with 1,000 ids.
    const first = new PendingWrites();
    const setup = new PersonBatch(dbs, first);
    for (const e of normalizedBatch(
      Array.from({ length: ids }, (_, i) => ({ event: '$identify', distinct_id: 'big', properties: { $anon_distinct_id: `anon-${i}` } })),
    ))
      applyEvent(setup, e);
    setup.flush();
    dbs.root.transactionSync(() => first.apply());

    // Second batch: "big" merged into x1, x1 into x2, … each merge moving every id.
    const writes = new PendingWrites();
    const batch = new PersonBatch(dbs, writes);
    const chain: Array<Record<string, unknown>> = [];
    for (let j = 1; j <= merges; j++) {
      chain.push({ event: 'e', distinct_id: `x${j}` });
      chain.push({ event: '$merge_dangerously', distinct_id: `x${j}`, properties: { alias: j === 1 ? 'big' : `x${j - 1}` } });
    }
    for (const e of normalizedBatch(chain)) expect(applyEvent(batch, e)).not.toBe('cannot_merge_already_identified');
    batch.flush();
    // Before, every merge queued three writes per id it moved: ~120,000 here.
    expect(writes.size).toBeLessThan(3 * ids + 10 * merges);
    dbs.root.transactionSync(() => writes.apply());

    const persons = new PersonReader(dbs);
    const last = persons.personIdOf(1, `x${merges}`)!;
    expect(persons.personIdOf(1, 'big')).toBe(last);
    for (let i = 0; i < ids; i += 97) expect(persons.personIdOf(1, `anon-${i}`)).toBe(last);
    const owned = persons.distinctIdsOf(1, last);
    expect(owned.length).toBe(ids + 1 + merges);
    for (let j = 1; j < merges; j++) expect(persons.distinctIdsOf(1, persons.personIdOf(1, `x${j}`)!)).toHaveLength(ids + 1 + merges);
    // No membership is left behind on an absorbed person.
    let memberships = 0;
    for (const _ of dbs.personDistinctIds.getKeys({ start: [1], end: [2] })) memberships++;
    expect(memberships).toBe(ids + 1 + merges);
    await dbs.root.close();
  });
});

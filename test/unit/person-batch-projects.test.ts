/**
 * One processor batch holding several projects' events: each project's distinct ids, persons,
 * id counters and merges stay its own, however the projects' events interleave.
 */
import { describe, expect, it } from 'vitest';
import { applyEvent } from '../../src/processing/apply-event.js';
import { openStore } from '../../src/store/open-store.js';
import { PendingWrites } from '../../src/store/pending-writes.js';
import { PersonBatch } from '../../src/store/person-writer.js';
import { PersonReader } from '../../src/store/person-store.js';
import { normalizedBatch } from '../helpers/normalized-events.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs('hedgerow-batch-projects-');

describe('a batch with events of two projects', () => {
  it('keeps persons, ids and merges apart per project', async () => {
    const dbs = openStore({ dataDir: tempDir(), sync: 'none' });
    const writes = new PendingWrites();
    const batch = new PersonBatch(dbs, writes);
    const events = normalizedBatch([
      { event: 'e', distinct_id: 'anon', properties: { $set: { plan: 'free' } } },
      { event: 'e', distinct_id: 'anon', properties: { $set: { plan: 'pro' } } },
      { event: '$identify', distinct_id: 'user', properties: { $anon_distinct_id: 'anon' } },
      { event: 'e', distinct_id: 'other', properties: {} },
    ]);
    // Project 1 gets every event, project 2 all but the identify, interleaved.
    const [a, b, identify, other] = events as [(typeof events)[0], (typeof events)[0], (typeof events)[0], (typeof events)[0]];
    for (const e of [a, { ...b, project_id: 2 }, { ...a, project_id: 2 }, identify, b, { ...other, project_id: 2 }]) applyEvent(batch, e);
    batch.flush();
    dbs.root.transactionSync(() => writes.apply());

    const persons = new PersonReader(dbs);
    const user1 = persons.byDistinctId(1, 'user')!;
    expect(persons.personIdOf(1, 'anon')).toBe(user1.id);
    expect(persons.distinctIdsOf(1, user1.id)).toEqual(['anon', 'user']);
    expect(user1.properties.plan).toBe('pro');
    expect(user1.is_identified).toBe(true);

    // Project 2 never saw the identify: its anon is its own person, with project 2's first id.
    expect(persons.personIdOf(2, 'user')).toBeUndefined();
    const anon2 = persons.byDistinctId(2, 'anon')!;
    expect(anon2.id).toBe(1);
    expect(anon2.is_identified).toBe(false);
    // Its events came in the order pro, free.
    expect(anon2.properties.plan).toBe('free');
    expect(persons.distinctIdsOf(2, anon2.id)).toEqual(['anon']);
    expect(persons.byDistinctId(2, 'other')!.id).toBe(2);
    expect(dbs.meta.get('counter:person:1')).toBe(1);
    expect(dbs.meta.get('counter:person:2')).toBe(2);
    await dbs.root.close();
  });
});

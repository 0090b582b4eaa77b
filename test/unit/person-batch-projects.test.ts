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

  it('merges committed persons in both projects within one batch, each keeping its own ids', async () => {
    const dbs = openStore({ dataDir: tempDir(), sync: 'none' });
    const commit = (events: ReturnType<typeof normalizedBatch>) => {
      const writes = new PendingWrites();
      const batch = new PersonBatch(dbs, writes);
      for (const e of events) applyEvent(batch, e);
      batch.flush();
      dbs.root.transactionSync(() => writes.apply());
    };
    const inProject = (projectId: number, events: ReturnType<typeof normalizedBatch>) =>
      events.map((e) => ({ ...e, project_id: projectId }));
    // Committed first: persons a, b and c in both projects.
    const three = normalizedBatch(['a', 'b', 'c'].map((id) => ({ event: 'e', distinct_id: id })));
    commit([...inProject(1, three), ...inProject(2, three)]);
    const persons = new PersonReader(dbs);
    const ids = (p: number) => ['a', 'b', 'c'].map((d) => persons.personIdOf(p, d)!);
    const [a1, b1, c1] = ids(1);
    const [a2, b2, c2] = ids(2);

    // One batch: project 1 merges b into a, project 2 a into b, then c into the survivor; interleaved.
    const merge = (into: string, other: string) =>
      normalizedBatch([{ event: '$merge_dangerously', distinct_id: into, properties: { alias: other } }]);
    commit([
      ...inProject(1, merge('a', 'b')),
      ...inProject(2, merge('b', 'a')),
      ...inProject(2, merge('b', 'c')),
      ...inProject(1, merge('a', 'c')),
    ]);

    expect(ids(1)).toEqual([a1, a1, a1]);
    expect(ids(2)).toEqual([b2, b2, b2]);
    expect(persons.distinctIdsOf(1, a1!)).toEqual(['a', 'b', 'c']);
    expect(persons.distinctIdsOf(2, b2!)).toEqual(['a', 'b', 'c']);
    for (const [p, gone] of [
      [1, b1],
      [1, c1],
      [2, a2],
      [2, c2],
    ] as const) {
      expect(persons.get(p, gone!)).toBeUndefined();
      expect(persons.distinctIdsOf(p, gone!)).toEqual([]);
    }
    let memberships = 0;
    for (const _ of dbs.personDistinctIds.getKeys({})) memberships++;
    expect(memberships).toBe(6);
    await dbs.root.close();
  });
});

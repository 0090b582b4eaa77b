/**
 * The persons API's scans over a real store: pages read in slices equal a full sort of every
 * match, and the UUID lookup stops at the person it finds.
 */
import { describe, expect, it } from 'vitest';
import { FUTURE_PERSON_MARGIN_MS, newestPersonFirst, personMatches, type PersonFilter } from '../../src/persons/person-list-query.js';
import { scanPersonByUuid, scanPersonsNamed, scanPersonsPage } from '../../src/persons/scan-persons.js';
import type { ScanPacing } from '../../src/store/scan-in-slices.js';
import { openStore, type StoreDatabases } from '../../src/store/open-store.js';
import { PersonReader, type PersonRecord } from '../../src/store/person-store.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs('hedgerow-scan-persons-');
const NOW = Date.parse('2026-11-21T00:00:00Z');
const PERSONS = 300;

/** Persons 1…300 of project 1 (and one of project 2), created at times that repeat and run out of order. */
function storeWithPersons(): { dbs: StoreDatabases; all: PersonRecord[] } {
  const dbs = openStore({ dataDir: tempDir(), sync: 'none' });
  const all: PersonRecord[] = [];
  dbs.root.transactionSync(() => {
    for (let id = 1; id <= PERSONS; id++) {
      const p: PersonRecord = {
        id,
        uuid: `0190a000-0000-7000-8000-${String(id).padStart(12, '0')}`,
        properties: id % 3 === 0 ? { email: `p${id}@example.com` } : {},
        created_at: new Date(NOW - ((id * 7919) % 50) * 60_000).toISOString(),
        is_identified: false,
        version: 0,
      };
      all.push(p);
      dbs.persons.putSync([1, id], p);
      for (const d of [`d${id}`, `d${id}-b`]) dbs.personDistinctIds.putSync([1, id, d], null);
    }
    dbs.persons.putSync([2, 1], { ...all[0]!, uuid: '0190a000-0000-7000-8000-999999999999' });
  });
  return { dbs, all };
}

/** Pacing that pauses after every person (a slice of 0 ms) and counts the pauses. */
function everyPerson(): ScanPacing & { pauses: number } {
  const pacing = { sliceMs: 0, pauses: 0, pause: async () => void pacing.pauses++ };
  return pacing;
}

const base: PersonFilter = { createdBeforeMs: NOW + FUTURE_PERSON_MARGIN_MS };

describe('scanPersonsPage', () => {
  it('pages read a person at a time equal a sort of every match', async () => {
    const { dbs, all } = storeWithPersons();
    const reader = new PersonReader(dbs);
    for (const filter of [base, { ...base, search: { text: 'example', ownerId: undefined, uuid: undefined } }]) {
      const expected = all.filter((p) => personMatches(p, filter)).sort(newestPersonFirst);
      for (const [offset, limit] of [
        [0, 100],
        [0, 1],
        [37, 10],
        [95, 100],
        [299, 5],
        [400, 10],
      ] as const) {
        const pacing = everyPerson();
        const page = await scanPersonsPage(reader, { projectId: 1, filter, offset, limit }, pacing);
        expect(page.persons.map((p) => p.id)).toEqual(expected.slice(offset, offset + limit).map((p) => p.id));
        expect(page.total).toBe(expected.length);
        expect(pacing.pauses).toBe(PERSONS); // after each person, the last one included
      }
    }
  });

  it('reads in one go when the slice is long enough', async () => {
    const { dbs } = storeWithPersons();
    const pacing = { sliceMs: 60_000, pauses: 0, pause: async () => void pacing.pauses++ };
    const page = await scanPersonsPage(new PersonReader(dbs), { projectId: 2, filter: base, offset: 0, limit: 10 }, pacing);
    expect([page.persons.map((p) => p.uuid), page.total, pacing.pauses]).toEqual([['0190a000-0000-7000-8000-999999999999'], 1, 0]);
  });
});

describe('scanPersonByUuid', () => {
  it('finds the person by its lower-case UUID and stops there', async () => {
    const { dbs } = storeWithPersons();
    dbs.persons.putSync([1, 150], { ...(dbs.persons.get([1, 150]) as PersonRecord), uuid: '0190A000-0000-7000-8000-00000000ABCD' });
    const reader = new PersonReader(dbs);
    const pacing = everyPerson();
    const found = await scanPersonByUuid(reader, 1, '0190a000-0000-7000-8000-00000000abcd', pacing);
    expect([found?.id, pacing.pauses]).toEqual([150, 149]);
    expect(await scanPersonByUuid(reader, 1, '0190a000-0000-7000-8000-999999999999', everyPerson())).toBeUndefined();
    expect((await scanPersonByUuid(reader, 2, '0190a000-0000-7000-8000-999999999999', everyPerson()))?.id).toBe(1);
  });
});

describe('scanPersonsNamed', () => {
  it('finds persons by lower-case UUID or exact email, with every distinct id of each', async () => {
    const { dbs } = storeWithPersons();
    const reader = new PersonReader(dbs);
    const byUuid = await scanPersonsNamed(
      reader,
      { projectId: 1, by: 'uuid', values: ['0190a000-0000-7000-8000-000000000007', '0190a000-0000-7000-8000-000000000290', 'nobody'] },
      everyPerson(),
    );
    expect(byUuid).toEqual({ persons: 2, distinctIds: ['d7', 'd7-b', 'd290', 'd290-b'] });
    const byEmail = await scanPersonsNamed(
      reader,
      { projectId: 1, by: 'email', values: ['p9@example.com', 'P12@example.com', 'p10@example.com'] },
      everyPerson(),
    );
    expect(byEmail).toEqual({ persons: 1, distinctIds: ['d9', 'd9-b'] });
    expect(await scanPersonsNamed(reader, { projectId: 2, by: 'email', values: ['p9@example.com'] }, everyPerson())).toEqual({
      persons: 0,
      distinctIds: [],
    });
  });
});

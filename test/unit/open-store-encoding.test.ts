/**
 * Persons and groups are stored as plain msgpack maps since session 6; earlier versions wrote
 * them with msgpackr's records. A data directory with such values must read the same, and
 * values of both kinds side by side must not disturb each other.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { open } from 'lmdb';
import { Unpackr } from 'msgpackr';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const person = (id: number, extra: Record<string, unknown>) => ({
  id,
  uuid: `0190f0e4-0000-5000-8000-${String(id).padStart(12, '0')}`,
  properties: { email: `p${id}@example.com`, n: 64 + id, nested: { a: [65, 'x'], b: null }, ...extra },
  created_at: '2026-11-21T10:00:00.000Z',
  is_identified: id % 2 === 0,
  version: id,
});

describe('person and group encoding', () => {
  it('reads persons and groups written as msgpackr records by earlier versions, next to new ones', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'hedgerow-encoding-'));
    dirs.push(dir);
    const old = open({ path: path.join(dir, 'hedgerow.mdb'), maxDbs: 32 });
    const oldPersons = old.openDB('persons', { encoding: 'msgpack', keyEncoding: 'ordered-binary' });
    const oldGroups = old.openDB('groups', { encoding: 'msgpack', keyEncoding: 'ordered-binary' });
    const oldGroup = { group_type_index: 0, group_key: 'acme', group_properties: { plan: 'pro', seats: 70 }, created_at: 'x', version: 1 };
    for (let id = 1; id <= 3; id++) await oldPersons.put([1, id], person(id, { [`only${id}`]: id }));
    await oldGroups.put([1, 0, 'acme'], oldGroup);
    // Earlier versions' encoding: a record extension per value.
    expect(new Unpackr({ useRecords: false }).unpack(oldPersons.getBinary([1, 1]) as Buffer)).toEqual(person(1, { only1: 1 }));
    expect((oldPersons.getBinary([1, 1]) as Buffer).includes(0x72)).toBe(true);
    await old.close();

    const dbs = openStore({ dataDir: dir, sync: 'none' });
    try {
      await dbs.persons.put([1, 4], person(4, { only4: 4 }));
      for (let round = 0; round < 2; round++) {
        for (let id = 1; id <= 4; id++) expect(dbs.persons.get([1, id])).toEqual(person(id, { [`only${id}`]: id }));
        expect(dbs.groups.get([1, 0, 'acme'])).toEqual(oldGroup);
      }
      // New values are plain maps: readable by any msgpack decoder.
      const raw = dbs.persons.getBinary([1, 4]) as Buffer;
      expect(new Unpackr({ useRecords: false }).unpack(raw)).toEqual(person(4, { only4: 4 }));
      expect(raw[0] === 0xde || ((raw[0] as number) & 0xf0) === 0x80).toBe(true); // a map header, no record extension
    } finally {
      await dbs.root.close();
    }
  });
});

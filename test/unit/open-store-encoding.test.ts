/**
 * Persons and groups are stored as JSON text since 96eba9a (2026-11-21); earlier versions wrote
 * them as plain msgpack maps and before that with msgpackr's records. A data directory with
 * such values must read the same, and values of every kind side by side must not disturb each
 * other.
 */
import path from 'node:path';
import { open } from 'lmdb';
import { Unpackr } from 'msgpackr';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs('hedgerow-encoding-');

const person = (id: number, extra: Record<string, unknown>) => ({
  id,
  uuid: `0190f0e4-0000-5000-8000-${String(id).padStart(12, '0')}`,
  properties: { email: `p${id}@example.com`, n: 64 + id, nested: { a: [65, 'x'], b: null }, ...extra },
  created_at: '2026-11-21T10:00:00.000Z',
  is_identified: id % 2 === 0,
  version: id,
});

describe('person and group encoding', () => {
  it('reads persons and groups written as msgpackr records or plain maps by earlier versions, next to new ones', async () => {
    const dir = tempDir();
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
    // The encoding just before JSON text: plain msgpack maps.
    const mid = open({ path: path.join(dir, 'hedgerow.mdb'), maxDbs: 32 });
    const plainPersons = mid.openDB('persons', { encoding: 'msgpack', keyEncoding: 'ordered-binary', useRecords: false } as object);
    await plainPersons.put([1, 5], person(5, { only5: 5 }));
    expect((plainPersons.getBinary([1, 5]) as Buffer)[0]).toBe(0xde); // a map header (lmdb-js writes map16)
    await mid.close();

    const dbs = openStore({ dataDir: dir, sync: 'none' });
    try {
      await dbs.persons.put([1, 4], person(4, { only4: 4 }));
      await dbs.groups.put([1, 0, 'new'], { ...oldGroup, group_key: 'new' });
      for (let round = 0; round < 2; round++) {
        for (let id = 1; id <= 5; id++) expect(dbs.persons.get([1, id])).toEqual(person(id, { [`only${id}`]: id }));
        expect(dbs.groups.get([1, 0, 'acme'])).toEqual(oldGroup);
        expect(dbs.groups.get([1, 0, 'new'])).toEqual({ ...oldGroup, group_key: 'new' });
        // Range reads hand the decoder a shared buffer and each value's size.
        expect([...dbs.persons.getRange({ start: [1], end: [2] })].map((e) => e.value)).toEqual(
          [1, 2, 3, 4, 5].map((id) => person(id, { [`only${id}`]: id })),
        );
      }
      // New values are JSON text.
      const raw = dbs.persons.getBinary([1, 4]) as Buffer;
      expect(JSON.parse(raw.toString('utf8'))).toEqual(person(4, { only4: 4 }));
    } finally {
      await dbs.root.close();
    }
  });
});

/**
 * Person and group properties are stored as PostHog stores them in Postgres `jsonb`: NUL replaced
 * by U+FFFD in keys and values at any depth (`sanitizeJsonbValue`); and a group keeps the
 * earliest time it was seen at. Pure functions first, then the person processor on a real
 * temporary store.
 */
import { describe, expect, it } from 'vitest';
import { applyGroupSet } from '../../src/persons/group-event.js';
import { applyPropertyUpdates, newPersonProperties } from '../../src/persons/property-updates.js';
import { keyWithoutNul, withoutNul } from '../../src/persons/without-nul.js';
import { PersonProcessor } from '../../src/processing/person-processor.js';
import { EventWriter, encodeBlock } from '../../src/store/event-log.js';
import { GroupReader } from '../../src/store/group-store.js';
import { openStore } from '../../src/store/open-store.js';
import { PersonReader } from '../../src/store/person-store.js';
import { normalizedBatch } from '../helpers/normalized-events.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs('hedgerow-without-nul-');

describe('withoutNul', () => {
  it('replaces NUL in strings, keys and nested values, and returns NUL-free values as they are', () => {
    expect(withoutNul('a\u0000b\u0000')).toBe('a\uFFFDb\uFFFD');
    expect(keyWithoutNul('k\u0000')).toBe('k\uFFFD');
    expect(withoutNul({ 'k\u0000': ['x\u0000', { y: 'z\u0000' }], n: 1 })).toEqual({ 'k\uFFFD': ['x\uFFFD', { y: 'z\uFFFD' }], n: 1 });
    const clean = { a: ['b', { c: 1 }] };
    expect(withoutNul(clean)).toBe(clean);
    const proto = JSON.parse('{"__proto__": "x\\u0000"}') as object;
    expect(Object.keys(withoutNul(proto) as object)).toEqual(['__proto__']);
  });

  it('applies to person updates, set_once comparing the stored key', () => {
    const created = newPersonProperties({ set: { email: 'a\u0000@b' }, setOnce: { 'k\u0000': 1 }, unset: [] }, 'uuid');
    expect(created).toEqual({ 'k\uFFFD': 1, email: 'a\uFFFD@b', $creator_event_uuid: 'uuid' });
    const next = applyPropertyUpdates(created, { set: { email: 'a\u0000@b' }, setOnce: { 'k\u0000': 2 }, unset: [] });
    expect(next.changed).toBe(false);
    expect(applyGroupSet({}, { 'n\u0000': 'v\u0000' }).properties).toEqual({ 'n\uFFFD': 'v\uFFFD' });
  });
});

describe('the person processor', () => {
  it('stores NUL-free person and group properties, and a group created at the earliest event', async () => {
    const dbs = openStore({ dataDir: tempDir(), sync: 'none' });
    const writer = new EventWriter(dbs);
    const group = (timestamp: string, v: number) => ({
      event: '$groupidentify',
      distinct_id: 'g',
      timestamp,
      properties: { $group_type: 'company', $group_key: 'acme', $group_set: { v, 'n\u0000': 'x\u0000' } },
    });
    await writer.append(
      encodeBlock(normalizedBatch([{ event: '$set', distinct_id: 'nul', properties: { $set: { email: 'a\u0000@b' } } }])),
    );
    await writer.append(encodeBlock(normalizedBatch([group('2026-01-02T00:00:00Z', 1)])));
    await writer.append(encodeBlock(normalizedBatch([group('2020-01-01T00:00:00Z', 2)])));
    await writer.append(encodeBlock(normalizedBatch([group('2025-01-01T00:00:00Z', 3)])));
    const processor = new PersonProcessor(dbs);
    while (processor.step() !== undefined);
    expect(new PersonReader(dbs).byDistinctId(1, 'nul')?.properties.email).toBe('a\uFFFD@b');
    const stored = new GroupReader(dbs).get(1, 0, 'acme');
    expect(stored?.group_properties).toEqual({ v: 3, 'n\uFFFD': 'x\uFFFD' });
    expect(stored?.created_at).toBe('2020-01-01T00:00:00.000Z');
    void dbs.root.close();
  });
});

/**
 * Events any holder of the public project key can send, with values that would not fit in an LMDB
 * key (1,978 bytes) if they reached one: the person processor must apply the log past them, never
 * stop behind one (a failed batch transaction stops person processing for good, since a restart
 * meets the same batch). Real capture pipeline, real temporary store, and the blast radius tables
 * updated after each batch, as the daemon's processor thread runs it.
 */
import { describe, expect, it } from 'vitest';
import { BlastRadiusIndex } from '../../src/blast-radius/blast-radius-index.js';
import { PersonProcessor } from '../../src/processing/person-processor.js';
import { EventWriter, encodeBlock } from '../../src/store/event-log.js';
import { openStore } from '../../src/store/open-store.js';
import { PersonReader } from '../../src/store/person-store.js';
import { normalizedBatch } from '../helpers/normalized-events.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs('hedgerow-hostile-');
const long = '😀'.repeat(600); // 2,400 bytes of UTF-8
const longBmp = 'é'.repeat(1000);

describe('the person processor and hostile values', () => {
  it('applies every block past events whose values cannot be stored as keys', async () => {
    const dbs = openStore({ dataDir: tempDir(), sync: 'none' });
    const writer = new EventWriter(dbs);
    const hostile = [
      { event: '$feature_flag_called', distinct_id: 'u1', properties: { $feature_flag: long, $feature_flag_response: true } },
      { event: '$feature_flag_called', distinct_id: longBmp, properties: { $feature_flag: 'f'.repeat(400), $feature_flag_response: long } },
      { event: '$feature_view', distinct_id: 'u1', properties: { feature_flag: longBmp } },
      { event: '$feature_interaction', distinct_id: 'u1', properties: { feature_flag: 'ok', $feature_flag_response: long } },
      { event: '$groupidentify', distinct_id: 'u1', properties: { $group_type: long, $group_key: 'k', $group_set: { a: 1 } } },
      { event: '$groupidentify', distinct_id: 'u1', properties: { $group_type: 'company', $group_key: long } },
      { event: '$groupidentify', distinct_id: 'u1', properties: { $group_type: 'company', $group_key: 'é'.repeat(400) } },
      { event: 'x', distinct_id: 'u1', properties: { $groups: { [long]: 'k', company: long } } },
      { event: '$identify', distinct_id: 'u2', properties: { $anon_distinct_id: long, $set: { [long]: long } } },
      { event: '$create_alias', distinct_id: 'u2', properties: { alias: longBmp } },
      { event: '$set', distinct_id: longBmp, properties: { $set: { email: long }, $set_once: { [longBmp]: 1 }, $unset: [long] } },
      {
        event: '$set',
        distinct_id: 'u3',
        properties: {
          $set: {
            n: 1e308,
            neg: -0,
            deep: { a: [{ b: [null, true, 'x'] }] },
            list: [long],
            date: '9999-12-31T23:59:59Z',
            empty: '',
            nul: null,
          },
        },
      },
      {
        event: '$groupidentify',
        distinct_id: 'u3',
        properties: { $group_type: 'company', $group_key: 'acme', $group_set: { [long]: long, n: [1, { x: 2 }] } },
      },
    ];
    for (const e of hostile) await writer.append(encodeBlock(normalizedBatch([e])));
    await writer.append(encodeBlock(normalizedBatch([{ event: '$pageview', distinct_id: 'after-them' }])));

    const tables = new BlastRadiusIndex(dbs);
    while (tables.warmUp(1000));
    const processor = new PersonProcessor(dbs, (changes) => tables.apply(changes));
    let applied = 0;
    for (let report = processor.step(); report !== undefined; report = processor.step()) applied += report.events;
    expect(applied).toBe(hostile.length + 1);
    const persons = new PersonReader(dbs);
    expect(persons.byDistinctId(1, 'after-them')).toBeDefined();
    expect(persons.byDistinctId(1, longBmp.slice(0, 200))).toBeDefined(); // capture cut it to 200 characters
    void dbs.root.close();
  });

  it('passes over a block whose writes LMDB refuses, applying the blocks around it', async () => {
    const dbs = openStore({ dataDir: tempDir(), sync: 'none' });
    const writer = new EventWriter(dbs);
    const good = (id: string) => normalizedBatch([{ event: '$pageview', distinct_id: id }]);
    // Capture never stores such a distinct id (it cuts them to 200 characters): a stand-in for a
    // value some future bug lets through to a key.
    const [unwritable] = good('placeholder').map((e) => ({ ...e, distinct_id: 'x'.repeat(3000) }));
    await writer.append(encodeBlock(good('before')));
    await writer.append(encodeBlock([...good('same-block'), unwritable!]));
    await writer.append(encodeBlock(good('after')));

    const processor = new PersonProcessor(dbs);
    const reports = [];
    for (let report = processor.step(); report !== undefined; report = processor.step()) reports.push(report);
    const persons = new PersonReader(dbs);
    expect(persons.byDistinctId(1, 'before')).toBeDefined();
    expect(persons.byDistinctId(1, 'after')).toBeDefined();
    expect(persons.byDistinctId(1, 'same-block')).toBeUndefined(); // its block was passed over whole
    expect(reports.map((r) => r.events)).toEqual([1, 2, 1]); // the three blocks, one batch each after the refusal
    expect(reports[1]!.outcomes).toEqual({ failed: 2 });
    expect(reports[1]!.failures.map((f) => f.error)).toEqual([expect.stringContaining('Key size'), expect.stringContaining('Key size')]);
    // A new processor (a restart) starts after the block it passed over.
    await writer.append(encodeBlock(good('later')));
    const restarted = new PersonProcessor(dbs);
    expect(restarted.step()?.events).toBe(1);
    expect(persons.byDistinctId(1, 'later')).toBeDefined();
    void dbs.root.close();
  });

  it('passes over a block it cannot read, applying the blocks around it', async () => {
    const dbs = openStore({ dataDir: tempDir(), sync: 'none' });
    const writer = new EventWriter(dbs);
    const good = (id: string) => encodeBlock(normalizedBatch([{ event: '$pageview', distinct_id: id }]));
    await writer.append(good('before'));
    const [key] = await Promise.all([writer.append(Uint8Array.of(0x92, 0xc1)), writer.append(good('same-commit'))]); // 0xc1: never used
    await writer.append(good('after'));

    const processor = new PersonProcessor(dbs);
    expect(processor.backlog()).toBe(3);
    const reports = [];
    for (let report = processor.step(); report !== undefined; report = processor.step()) reports.push(report);
    const persons = new PersonReader(dbs);
    for (const id of ['before', 'same-commit', 'after']) expect(persons.byDistinctId(1, id)).toBeDefined();
    const unreadable = reports.flatMap((r) => r.unreadable);
    expect(unreadable).toEqual([{ key, error: expect.any(String) }]);
    void dbs.root.close();
  });

  it('changes a person or group with many properties in place: each event costs its own keys, not all of them', async () => {
    const dbs = openStore({ dataDir: tempDir(), sync: 'none' });
    const writer = new EventWriter(dbs);
    const many: Record<string, number> = {};
    for (let i = 0; i < 100_000; i++) many[`k${i}`] = i;
    await writer.append(encodeBlock(normalizedBatch([{ event: '$set', distinct_id: 'wide', properties: { $set: many } }])));
    await writer.append(
      encodeBlock(
        normalizedBatch([
          { event: '$groupidentify', distinct_id: 'wide', properties: { $group_type: 'company', $group_key: 'wide', $group_set: many } },
        ]),
      ),
    );
    const processor = new PersonProcessor(dbs);
    while (processor.step() !== undefined);

    // 500 events changing one property each, then 500 changing nothing, in one block each: copied
    // per event, the person took ~26 s here (and a group's 500 writes ~1 GB of JSON).
    const small = Array.from({ length: 500 }, (_, i) => [
      { event: 'e', distinct_id: 'wide', properties: { $set: { n: i }, $set_once: { first: i }, $unset: i === 499 ? ['k0'] : [] } },
      { event: '$groupidentify', distinct_id: 'wide', properties: { $group_type: 'company', $group_key: 'wide', $group_set: { n: i } } },
      { event: '$groupidentify', distinct_id: 'wide', properties: { $group_type: 'company', $group_key: 'wide', $group_set: { k1: 1 } } },
    ]).flat();
    await writer.append(encodeBlock(normalizedBatch(small)));
    const started = performance.now();
    const report = processor.step();
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(report?.events).toBe(1_500);
    expect(report?.failures).toEqual([]);
    const person = new PersonReader(dbs).byDistinctId(1, 'wide');
    expect(person?.properties).toMatchObject({ n: 499, first: 0, k1: 1, k99999: 99999 });
    expect(person?.properties.k0).toBeUndefined();
    const group = dbs.groups.get([1, 0, 'wide']) as { group_properties: Record<string, unknown>; version: number };
    expect(group.group_properties).toMatchObject({ n: 499, k1: 1, k99999: 99999 });
    expect(group.version).toBe(500);
    void dbs.root.close();
  });

  it('drops a $groupidentify whose key is over 400 characters whole, as PostHog: no person, no group type', async () => {
    const dbs = openStore({ dataDir: tempDir(), sync: 'none' });
    const writer = new EventWriter(dbs);
    const identify = (distinctId: string, key: string) => ({
      event: '$groupidentify',
      distinct_id: distinctId,
      properties: { $group_type: 'company', $group_key: key, $groups: { org: 'o' }, $set: { a: 1 } },
    });
    await writer.append(encodeBlock(normalizedBatch([identify('too-long', 'k'.repeat(401)), identify('at-limit', 'k'.repeat(400))])));
    const processor = new PersonProcessor(dbs);
    expect(processor.step()?.outcomes).toEqual({ skipped: 1, created: 1 });
    const persons = new PersonReader(dbs);
    expect(persons.byDistinctId(1, 'too-long')).toBeUndefined();
    const company = dbs.groupTypes.get([1, 'company']) as number;
    expect(dbs.groups.get([1, company, 'k'.repeat(400)])).toBeDefined();
    expect([...dbs.groupTypes.getKeys({ start: [1, ''], end: [1, '\uffff'] })]).toEqual([
      [1, 'company'],
      [1, 'org'],
    ]);
    void dbs.root.close();
  });
});

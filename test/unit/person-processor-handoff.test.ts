/**
 * Blocks handed to the person processor after their commit (handed-off-blocks.ts): applied from
 * memory when handed off, read from the store otherwise, never applied twice, and held within a
 * bound. Real capture pipeline and a real temporary store.
 */
import { describe, expect, it } from 'vitest';
import { normalizeCapture, prepareCapture } from '../../src/ingest/capture-pipeline.js';
import { HandedOffBlocks } from '../../src/processing/handed-off-blocks.js';
import { PersonProcessor } from '../../src/processing/person-processor.js';
import { EventWriter, encodeBlock, encodeEvent } from '../../src/store/event-log.js';
import type { EventKey } from '../../src/store/open-store.js';
import { openStore } from '../../src/store/open-store.js';
import { PersonReader } from '../../src/store/person-store.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs('hedgerow-handoff-');

function block(...distinctIds: string[]): Uint8Array {
  const batch = distinctIds.map((distinct_id) => ({ event: '$pageview', distinct_id }));
  const body = new TextEncoder().encode(JSON.stringify({ api_key: 'phc_test', batch }));
  const req = { path: '/batch/', query: '', method: 'POST' as const, contentType: 'application/json', contentEncoding: '', body, ip: '127.0.0.1' };
  return encodeBlock(normalizeCapture(prepareCapture(req, 1024 * 1024), 1, new Date()).events.map(encodeEvent));
}

describe('HandedOffBlocks', () => {
  const key = (n: number): EventKey => [n, 7, n];

  it('gives each block back once, and drops those the cursor passed', () => {
    const held = new HandedOffBlocks();
    held.add({ key: key(1), bytes: new Uint8Array(10) });
    held.add({ key: key(2), bytes: new Uint8Array(20) });
    held.add({ key: key(3), bytes: new Uint8Array(30) });
    expect(held.bytes).toBe(60);
    expect(held.take(key(2))?.byteLength).toBe(20);
    expect(held.take(key(2))).toBeUndefined();
    held.dropThrough(key(1));
    expect(held.take(key(1))).toBeUndefined();
    expect(held.size).toBe(1);
    expect(held.bytes).toBe(30);
  });

  it('holds no more than its bound: a block over it is left to the store', () => {
    const held = new HandedOffBlocks(100);
    held.add({ key: key(1), bytes: new Uint8Array(60) });
    held.add({ key: key(2), bytes: new Uint8Array(60) });
    held.add({ key: key(3), bytes: new Uint8Array(40) });
    expect(held.take(key(2))).toBeUndefined();
    expect(held.bytes).toBe(100);
  });
});

describe('the person processor with handed-off blocks', () => {
  it('applies a handed-off block from memory, and the others from the store, in log order', async () => {
    const dbs = openStore({ dataDir: tempDir(), sync: 'none' });
    const writer = new EventWriter(dbs);
    const first = await writer.append(block('from-store-1'));
    const second = await writer.append(block('stored-2'));
    await writer.append(block('from-store-3'));
    const processor = new PersonProcessor(dbs);
    // A stand-in whose events differ from the stored block's: which of the two gets applied shows
    // where the processor read the block. (The daemon hands over the committed bytes themselves.)
    processor.handOff([{ key: second, bytes: block('handed-off-2a', 'handed-off-2b') }]);
    const report = processor.step();
    expect(report?.events).toBe(4);
    const persons = new PersonReader(dbs);
    for (const id of ['from-store-1', 'handed-off-2a', 'handed-off-2b', 'from-store-3']) expect(persons.byDistinctId(1, id), id).toBeDefined();
    expect(persons.byDistinctId(1, 'stored-2')).toBeUndefined();
    // Handed over after the cursor passed it: not applied again.
    processor.handOff([{ key: first, bytes: block('late') }]);
    expect(processor.step()).toBeUndefined();
    expect(persons.byDistinctId(1, 'late')).toBeUndefined();
    dbs.root.close();
  });
});

/**
 * Blocks handed to the person processor after their commit (handed-off-blocks.ts, through the
 * shared ring of handoff-ring.ts): applied from memory when handed over, read from the store
 * otherwise, never applied twice. Real capture pipeline and a real temporary store.
 */
import { describe, expect, it } from 'vitest';
import { HandedOffBlocks } from '../../src/processing/handed-off-blocks.js';
import { HandOffRing } from '../../src/processing/handoff-ring.js';
import { PersonProcessor } from '../../src/processing/person-processor.js';
import { EventWriter, encodeBlock } from '../../src/store/event-log.js';
import type { EventKey } from '../../src/store/open-store.js';
import { openStore } from '../../src/store/open-store.js';
import { PersonReader } from '../../src/store/person-store.js';
import { normalizedBatch } from '../helpers/normalized-events.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs('hedgerow-handoff-');

function block(...distinctIds: string[]): Uint8Array {
  return encodeBlock(normalizedBatch(distinctIds.map((distinct_id) => ({ event: '$pageview', distinct_id }))));
}

describe('HandedOffBlocks', () => {
  const key = (n: number): EventKey => [n, 7, n];

  it('gives each block back once, and drops those the cursor passed', () => {
    const held = new HandedOffBlocks();
    held.add({ key: key(1), bytes: new Uint8Array(10) });
    held.add({ key: key(2), bytes: new Uint8Array(20) });
    held.add({ key: key(3), bytes: new Uint8Array(30) });
    expect(held.take(key(2))?.byteLength).toBe(20);
    expect(held.take(key(2))).toBeUndefined();
    held.dropThrough(key(1));
    expect(held.take(key(1))).toBeUndefined();
    expect(held.size).toBe(1);
  });
});

describe('HandOffRing', () => {
  const key = (n: number): EventKey => [n, 7, n];
  const bytes = (length: number, fill: number) => new Uint8Array(length).fill(fill);

  it('copies blocks into free stretches in order, wraps, and frees them as the cursor passes', () => {
    const ring = new HandOffRing(100);
    const view = new Uint8Array(ring.buffer);
    expect(ring.place(key(1), bytes(40, 1))).toEqual({ key: key(1), offset: 0, length: 40 });
    expect(ring.place(key(2), bytes(40, 2))).toEqual({ key: key(2), offset: 40, length: 40 });
    expect(ring.place(key(3), bytes(30, 3))).toBeUndefined(); // 20 bytes left at the end, none before
    ring.release(key(1));
    expect(ring.place(key(3), bytes(30, 3))).toEqual({ key: key(3), offset: 0, length: 30 }); // wrapped
    expect(ring.place(key(4), bytes(11, 4))).toBeUndefined(); // 10 bytes before the oldest (at 40)
    expect(ring.place(key(4), bytes(10, 4))).toEqual({ key: key(4), offset: 30, length: 10 });
    expect([view[0], view[29], view[30], view[39], view[40], view[79]]).toEqual([3, 3, 4, 4, 2, 2]);
    ring.release(key(4));
    expect(ring.place(key(5), bytes(100, 5))).toEqual({ key: key(5), offset: 0, length: 100 }); // all free again
    expect(ring.place(key(6), bytes(1, 6))).toBeUndefined();
    expect(ring.place(key(7), bytes(101, 7))).toBeUndefined();
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
    // where the processor read the block. (The daemon hands over the committed bytes themselves,
    // in shared memory, as here.)
    const ring = new HandOffRing(1024 * 1024);
    const slot = ring.place(second, block('handed-off-2a', 'handed-off-2b'))!;
    processor.handOff([{ key: second, bytes: Buffer.from(ring.buffer, slot.offset, slot.length) }]);
    const report = processor.step();
    expect(report?.events).toBe(4);
    expect(report?.blocksRead).toEqual({ handOff: 1, store: 2 });
    const persons = new PersonReader(dbs);
    for (const id of ['from-store-1', 'handed-off-2a', 'handed-off-2b', 'from-store-3'])
      expect(persons.byDistinctId(1, id), id).toBeDefined();
    expect(persons.byDistinctId(1, 'stored-2')).toBeUndefined();
    // Handed over after the cursor passed it: not applied again.
    processor.handOff([{ key: first, bytes: block('late') }]);
    expect(processor.step()).toBeUndefined();
    expect(persons.byDistinctId(1, 'late')).toBeUndefined();
    void dbs.root.close();
  });
});

/**
 * A batch the store refuses for a reason of the moment (here a full disk: a small tmpfs) is not
 * passed over: nothing of it is written, the processor throws StoreUnavailableError (its thread
 * waits and tries again), and once there is room the same events are applied. Before, the
 * processor moved its cursor past such blocks, and their events never reached their persons.
 * Needs to mount a tmpfs (root): skipped where that is not allowed.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PersonProcessor, StoreUnavailableError } from '../../src/processing/person-processor.js';
import { isTransientStoreError } from '../../src/store/store-errors.js';
import { encodeBlock, EventWriter } from '../../src/store/event-log.js';
import { openStore, type StoreDatabases } from '../../src/store/open-store.js';
import { PersonReader } from '../../src/store/person-store.js';
import { normalizedBatch } from '../helpers/normalized-events.js';

const mountPoint = mkdtempSync(path.join(os.tmpdir(), 'hedgerow-disk-full-'));
let mounted = false;
try {
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', mountPoint], { stdio: 'ignore' });
  mounted = true;
} catch {
  // not root, or no mount permission
}
let dbs: StoreDatabases | undefined;
afterAll(async () => {
  await dbs?.root.close();
  if (mounted) execFileSync('umount', [mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

describe('person processor on a full disk', () => {
  it('tells errors of the moment (an errno, a full map) from those a batch carries', () => {
    expect(isTransientStoreError(Object.assign(new Error('No space left on device'), { code: 28 }))).toBe(true);
    expect(isTransientStoreError(Object.assign(new Error('Input/output error'), { code: 5 }))).toBe(true);
    expect(isTransientStoreError(Object.assign(new Error('MDB_MAP_FULL'), { code: -30792 }))).toBe(true);
    expect(isTransientStoreError(Object.assign(new Error('MDB_BAD_VALSIZE'), { code: -30781 }))).toBe(false);
    expect(isTransientStoreError(new Error('Key size is larger than the maximum key size (1978)'))).toBe(false);
  });

  it.skipIf(!mounted)('leaves a refused batch in the log and applies it once there is room', async () => {
    dbs = openStore({ dataDir: path.join(mountPoint, 'data'), sync: 'durable' });
    const writer = new EventWriter(dbs);
    const blob = 'x'.repeat(150_000);
    const sets = Array.from({ length: 20 }, (_, i) => ({
      event: '$set',
      distinct_id: `user-${i}`,
      properties: { $set: { blob: `${blob}${i}` } },
    }));
    await writer.append(encodeBlock(normalizedBatch(sets)));
    await writer.append(encodeBlock(normalizedBatch([{ event: '$pageview', distinct_id: 'small-one' }])));

    const free = () => {
      const s = statfsSync(mountPoint);
      return s.bavail * s.bsize;
    };
    const filler = path.join(mountPoint, 'filler');
    writeFileSync(filler, Buffer.alloc(Math.max(0, free() - 600_000)));

    const processor = new PersonProcessor(dbs);
    expect(() => processor.step()).toThrow(StoreUnavailableError);
    expect(processor.position).toBeUndefined();
    const persons = new PersonReader(dbs);
    expect(persons.byDistinctId(1, 'user-0')).toBeUndefined();

    rmSync(filler);
    let applied = 0;
    for (let report = processor.step(); report !== undefined; report = processor.step()) {
      expect(report.failures).toEqual([]);
      applied += report.events;
    }
    expect(applied).toBe(21);
    expect(persons.byDistinctId(1, 'user-0')?.properties.blob).toBe(`${blob}0`);
    expect(persons.byDistinctId(1, 'small-one')).toBeDefined();
  });
});

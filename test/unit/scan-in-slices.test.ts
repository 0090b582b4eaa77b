/** Whole-range reads in slices over a real store: every entry once, in order, whatever happens between slices. */
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import { scanInSlices, type ScanPacing } from '../../src/store/scan-in-slices.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs('hedgerow-scan-slices-');

function groupsStore() {
  const dbs = openStore({ dataDir: tempDir(), sync: 'none' });
  dbs.root.transactionSync(() => {
    for (const key of ['a', 'b', 'b\u0000', 'ba', 'c', 'd']) dbs.groups.putSync([1, 0, key], { key });
    dbs.groups.putSync([1, 1, 'other type'], { key: 'other type' });
    dbs.groups.putSync([2, 0, 'other project'], { key: 'other project' });
  });
  return dbs;
}

const RANGE = { start: [1, 0, ''], end: [1, 1, ''] };

/** A visitor that records each entry's key and never stops the scan. */
function collect(seen: string[]): (v: unknown) => boolean {
  return (v) => {
    seen.push((v as { key: string }).key);
    return false;
  };
}

function pacing(between: () => void = () => {}): ScanPacing & { pauses: number } {
  const p = {
    sliceMs: 0,
    pauses: 0,
    pause: async () => {
      p.pauses++;
      between();
    },
  };
  return p;
}

describe('scanInSlices', () => {
  it('visits every entry of the range once, in key order, pausing after each when slices are 0 ms', async () => {
    const dbs = groupsStore();
    const seen: string[] = [];
    const p = pacing();
    await scanInSlices(dbs.groups, RANGE, p, collect(seen));
    expect(seen).toEqual(['a', 'b', 'b\u0000', 'ba', 'c', 'd']);
    expect(p.pauses).toBe(6);
  });

  it('stops when the visitor says so', async () => {
    const dbs = groupsStore();
    const seen: string[] = [];
    const p = pacing();
    await scanInSlices(dbs.groups, RANGE, p, (v) => {
      seen.push((v as { key: string }).key);
      return seen.length === 3;
    });
    expect([seen, p.pauses]).toEqual([['a', 'b', 'b\u0000'], 2]);
  });

  it('goes on from where it stopped when entries change during a pause', async () => {
    const dbs = groupsStore();
    const seen: string[] = [];
    let step = 0;
    const p = pacing(() => {
      step++;
      if (step === 2) dbs.groups.removeSync([1, 0, 'b']); // the key the scan stopped at
      if (step === 3) dbs.groups.putSync([1, 0, 'bb'], { key: 'bb' }); // ahead of the scan
      if (step === 3) dbs.groups.putSync([1, 0, '0'], { key: '0' }); // behind it
    });
    await scanInSlices(dbs.groups, RANGE, p, collect(seen));
    expect(seen).toEqual(['a', 'b', 'b\u0000', 'ba', 'bb', 'c', 'd']);
  });

  it('reads a range in one slice when the slice is long enough', async () => {
    const dbs = groupsStore();
    const seen: string[] = [];
    const p = { ...pacing(), sliceMs: 60_000 };
    await scanInSlices(dbs.groups, { start: [1], end: [3] }, p, collect(seen));
    expect(seen).toEqual(['a', 'b', 'b\u0000', 'ba', 'c', 'd', 'other type', 'other project']);
    expect(p.pauses).toBe(0);
  });
});

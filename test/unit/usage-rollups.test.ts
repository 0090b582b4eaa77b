import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { UsageContribution } from '../../src/dashboards/usage-event.js';
import type { UsageEvent } from '../../src/dashboards/usage-insights.js';
import { openStore, type StoreDatabases } from '../../src/store/open-store.js';
import { PendingWrites } from '../../src/store/pending-writes.js';
import { UsageRollupBatch, UsageRollupReader, usageUser, type DailyKind } from '../../src/store/usage-rollups.js';

const opened: { dir: string; dbs: StoreDatabases }[] = [];

function setup(): { dbs: StoreDatabases; reader: UsageRollupReader } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hedgerow-rollups-'));
  const dbs = openStore({ dataDir: dir, sync: 'none' });
  opened.push({ dir, dbs });
  return { dbs, reader: new UsageRollupReader(dbs) };
}

afterEach(async () => {
  for (const { dir, dbs } of opened.splice(0)) {
    await dbs.root.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

interface Add {
  project?: number;
  event?: UsageEvent;
  flag?: string;
  value?: string;
  day: string;
  user: string;
}

/** Applies the adds as one processor batch: gathered, flushed, then written in one transaction. */
function apply(dbs: StoreDatabases, adds: readonly Add[]): void {
  const writes = new PendingWrites();
  const batch = new UsageRollupBatch(dbs, writes);
  for (const a of adds) {
    const c: UsageContribution = {
      event: a.event ?? '$feature_flag_called',
      flagKey: a.flag ?? 'beta',
      breakdown: a.value ?? 'true',
      day: a.day,
    };
    batch.add(a.project ?? 1, c, a.user);
  }
  batch.flush();
  dbs.root.transactionSync(() => writes.apply());
}

/** The reader's answer as plain objects: value → day → number. */
function read(
  reader: UsageRollupReader,
  kind: DailyKind,
  from = '2026-01-01',
  to = '2026-12-31',
  where: { project?: number; event?: string; flag?: string } = {},
): Record<string, Record<string, number>> {
  const { project = 1, event = '$feature_flag_called', flag = 'beta' } = where;
  const out: Record<string, Record<string, number>> = {};
  for (const [value, days] of reader.daily(project, kind, event, flag, from, to)) out[value] = Object.fromEntries(days);
  return out;
}

/** Users of a window ending on `to`: the last_seen counts summed over its days. */
function windowUsers(reader: UsageRollupReader, from: string, to: string, value = 'true'): number {
  const days = reader.daily(1, 'last_seen', '$feature_flag_called', 'beta', from, to).get(value);
  return [...(days?.values() ?? [])].reduce((a, b) => a + b, 0);
}

const D1 = '2026-03-01';
const D2 = '2026-03-02';
const D4 = '2026-03-04';
const D5 = '2026-03-05';

describe('usageUser', () => {
  it('names a user by person id when known, else by distinct id', () => {
    expect(usageUser(42, 'anon-1')).toBe('p42');
    expect(usageUser(0, 'anon-1')).toBe('p0');
    expect(usageUser(undefined, 'anon-1')).toBe('danon-1');
    expect(usageUser(undefined, '42')).toBe('d42');
    expect(usageUser(undefined, '')).toBe('d');
  });
});

describe('usage rollups', () => {
  it('reads nothing from an empty store', () => {
    const { reader } = setup();
    expect(read(reader, 'total')).toEqual({});
    expect(read(reader, 'day_users')).toEqual({});
    expect(read(reader, 'last_seen')).toEqual({});
  });

  it('counts events per day and breakdown value', () => {
    const { dbs, reader } = setup();
    apply(dbs, [
      { day: D1, user: 'p1' },
      { day: D1, user: 'p1' },
      { day: D1, user: 'p2', value: 'false' },
      { day: D2, user: 'p1' },
      { day: D2, user: 'p3', value: '' },
    ]);
    expect(read(reader, 'total')).toEqual({
      true: { [D1]: 2, [D2]: 1 },
      false: { [D1]: 1 },
      '': { [D2]: 1 },
    });
  });

  it('adds up totals over several batches', () => {
    const { dbs, reader } = setup();
    apply(dbs, [{ day: D1, user: 'p1' }]);
    apply(dbs, [
      { day: D1, user: 'p1' },
      { day: D1, user: 'p2' },
    ]);
    expect(read(reader, 'total')).toEqual({ true: { [D1]: 3 } });
  });

  it('reads only the days from..to, both included', () => {
    const { dbs, reader } = setup();
    apply(dbs, [
      { day: '2026-02-28', user: 'p1' },
      { day: D1, user: 'p1' },
      { day: D2, user: 'p1' },
      { day: '2026-03-03', user: 'p1' },
    ]);
    expect(read(reader, 'total', D1, D2)).toEqual({ true: { [D1]: 1, [D2]: 1 } });
    expect(read(reader, 'total', D2, D2)).toEqual({ true: { [D2]: 1 } });
    expect(read(reader, 'day_users', D1, D2)).toEqual({ true: { [D1]: 1, [D2]: 1 } });
    expect(read(reader, 'total', D4, D5)).toEqual({});
  });

  it('reads the last day of the range for every value, the empty value included', () => {
    const { dbs, reader } = setup();
    apply(dbs, [
      { day: D2, user: 'p1', value: '' },
      { day: D2, user: 'p1', value: '~' },
      { day: D2, user: 'p1', value: '\u0000' },
    ]);
    expect(Object.keys(read(reader, 'total', D1, D2)).sort()).toEqual(['', '\u0000', '~']);
  });

  it('counts a user once per day and value, within a batch and across batches', () => {
    const { dbs, reader } = setup();
    apply(dbs, [
      { day: D1, user: 'p1' },
      { day: D1, user: 'p1' },
      { day: D1, user: 'p2' },
      { day: D1, user: 'p1', value: 'false' },
    ]);
    apply(dbs, [
      { day: D1, user: 'p1' },
      { day: D1, user: 'p3' },
      { day: D2, user: 'p1' },
    ]);
    expect(read(reader, 'day_users')).toEqual({ true: { [D1]: 3, [D2]: 1 }, false: { [D1]: 1 } });
    expect(read(reader, 'total')).toEqual({ true: { [D1]: 5, [D2]: 1 }, false: { [D1]: 1 } });
  });

  it('counts a user under their newest day only', () => {
    const { dbs, reader } = setup();
    apply(dbs, [
      { day: D1, user: 'p1' },
      { day: D1, user: 'p2' },
    ]);
    expect(read(reader, 'last_seen')).toEqual({ true: { [D1]: 2 } });

    apply(dbs, [{ day: D5, user: 'p1' }]);
    expect(read(reader, 'last_seen')).toEqual({ true: { [D1]: 1, [D5]: 1 } });
    // A window ending on day 5 counts each user once.
    expect(windowUsers(reader, D1, D5)).toBe(2);
    // By design, a window that ends before a user's newest day no longer counts them there: the
    // dashboards' windows always end today, where every user's newest day falls inside.
    expect(windowUsers(reader, D1, D4)).toBe(1);
    // The per-day unique users still count p1 on day 1.
    expect(read(reader, 'day_users')).toEqual({ true: { [D1]: 2, [D5]: 1 } });
  });

  it('moves a user forward within one batch and removes the emptied day', () => {
    const { dbs, reader } = setup();
    apply(dbs, [
      { day: D1, user: 'p1' },
      { day: D2, user: 'p1' },
      { day: D5, user: 'p1' },
    ]);
    expect(read(reader, 'last_seen')).toEqual({ true: { [D5]: 1 } });

    apply(dbs, [{ day: D1, user: 'p2' }]);
    apply(dbs, [{ day: D4, user: 'p2' }]);
    expect(read(reader, 'last_seen')).toEqual({ true: { [D4]: 1, [D5]: 1 } });
    expect(read(reader, 'last_seen', D1, D2)).toEqual({});
  });

  it('does not move last_seen back for a late event of an older day', () => {
    const { dbs, reader } = setup();
    apply(dbs, [{ day: D5, user: 'p1' }]);
    apply(dbs, [{ day: D1, user: 'p1' }]);
    expect(read(reader, 'last_seen')).toEqual({ true: { [D5]: 1 } });
    expect(read(reader, 'day_users')).toEqual({ true: { [D1]: 1, [D5]: 1 } });
    expect(read(reader, 'total')).toEqual({ true: { [D1]: 1, [D5]: 1 } });

    // The same within one batch, in either order.
    apply(dbs, [
      { day: D5, user: 'p2' },
      { day: D1, user: 'p2' },
      { day: D4, user: 'p2' },
    ]);
    expect(read(reader, 'last_seen')).toEqual({ true: { [D5]: 2 } });
  });

  it('keeps last_seen apart per breakdown value', () => {
    const { dbs, reader } = setup();
    apply(dbs, [
      { day: D1, user: 'p1', value: 'control' },
      { day: D5, user: 'p1', value: 'test' },
    ]);
    expect(read(reader, 'last_seen')).toEqual({ control: { [D1]: 1 }, test: { [D5]: 1 } });
  });

  it('keeps projects, events, flags and values apart', () => {
    const { dbs, reader } = setup();
    apply(dbs, [
      { day: D1, user: 'p1' },
      { day: D1, user: 'p1', project: 2 },
      { day: D1, user: 'p1', project: 2 },
      { day: D1, user: 'p1', flag: 'beta-2' },
      { day: D1, user: 'p1', flag: 'bet' },
      { day: D1, user: 'p1', event: '$feature_view', value: '' },
      { day: D1, user: 'p1', event: '$feature_interaction', value: '' },
      { day: D1, user: 'p1', event: '$feature_interaction', value: '' },
      { day: D1, user: 'p1', value: 'false' },
    ]);
    expect(read(reader, 'total')).toEqual({ true: { [D1]: 1 }, false: { [D1]: 1 } });
    expect(read(reader, 'total', undefined, undefined, { project: 2 })).toEqual({ true: { [D1]: 2 } });
    expect(read(reader, 'total', undefined, undefined, { project: 3 })).toEqual({});
    expect(read(reader, 'total', undefined, undefined, { flag: 'beta-2' })).toEqual({ true: { [D1]: 1 } });
    expect(read(reader, 'total', undefined, undefined, { flag: 'bet' })).toEqual({ true: { [D1]: 1 } });
    expect(read(reader, 'total', undefined, undefined, { event: '$feature_view' })).toEqual({ '': { [D1]: 1 } });
    expect(read(reader, 'total', undefined, undefined, { event: '$feature_interaction' })).toEqual({ '': { [D1]: 2 } });
    for (const kind of ['day_users', 'last_seen'] as const) {
      expect(read(reader, kind)).toEqual({ true: { [D1]: 1 }, false: { [D1]: 1 } });
      expect(read(reader, kind, undefined, undefined, { project: 2 })).toEqual({ true: { [D1]: 1 } });
      expect(read(reader, kind, undefined, undefined, { event: '$feature_interaction' })).toEqual({ '': { [D1]: 1 } });
      expect(read(reader, kind, undefined, undefined, { flag: 'beta-2' })).toEqual({ true: { [D1]: 1 } });
    }
  });

  it('tells users apart by their usage id', () => {
    const { dbs, reader } = setup();
    apply(dbs, [
      { day: D1, user: usageUser(1, 'x') },
      { day: D1, user: usageUser(undefined, '1') },
      { day: D1, user: usageUser(undefined, 'x') },
      { day: D1, user: usageUser(1, 'y') },
    ]);
    expect(read(reader, 'day_users')).toEqual({ true: { [D1]: 3 } });
    expect(read(reader, 'last_seen')).toEqual({ true: { [D1]: 3 } });
  });

  it('writes nothing when the transaction is aborted before it ends', () => {
    const { dbs, reader } = setup();
    const writes = new PendingWrites();
    const batch = new UsageRollupBatch(dbs, writes);
    batch.add(1, { event: '$feature_flag_called', flagKey: 'beta', breakdown: 'true', day: D1 }, 'p1');
    batch.flush();
    // Nothing is written before the transaction.
    expect(read(reader, 'total')).toEqual({});
    expect(() =>
      dbs.root.transactionSync(() => {
        writes.apply();
        throw new Error('crash');
      }),
    ).toThrow('crash');
    expect(read(reader, 'total')).toEqual({});
    expect(read(reader, 'day_users')).toEqual({});
    expect(read(reader, 'last_seen')).toEqual({});
    // The user is new again afterwards.
    apply(dbs, [{ day: D1, user: 'p1' }]);
    expect(read(reader, 'day_users')).toEqual({ true: { [D1]: 1 } });
  });
});

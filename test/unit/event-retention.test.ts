import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../src/ingest/types.js';
import { PRUNE_CHECK_INTERVAL_MS, RetentionSchedule } from '../../src/processing/retention-schedule.js';
import { encodeBlock } from '../../src/store/event-log.js';
import { oldestEventKey, PROCESSOR_CURSOR_KEY, processorCursor, pruneSlice } from '../../src/store/event-retention.js';
import { type EventKey, openStore, type StoreDatabases } from '../../src/store/open-store.js';

const dirs: string[] = [];
const stores: StoreDatabases[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.root.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function store(): StoreDatabases {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hedgerow-retention-'));
  dirs.push(dir);
  const dbs = openStore({ dataDir: dir, sync: 'none' });
  stores.push(dbs);
  return dbs;
}

const event = (i: number): StoredEvent => ({
  uuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  event: 'e',
  distinct_id: `d${i}`,
  properties: {},
  timestamp: '2026-01-01T00:00:00.000Z',
  created_at: '2026-01-01T00:00:00.000Z',
  project_id: 1,
});

/** Blocks of three events at the given ingest times (µs). */
function fill(dbs: StoreDatabases, micros: number[]): EventKey[] {
  const keys = micros.map((m, i): EventKey => [m, 7, i]);
  dbs.root.transactionSync(() => {
    for (const [i, key] of keys.entries())
      dbs.events.putSync(key, Buffer.from(encodeBlock([event(3 * i), event(3 * i + 1), event(3 * i + 2)])));
  });
  return keys;
}

describe('pruning the event log', () => {
  it('removes blocks before the horizon that the processor has applied, oldest first, a slice at a time', () => {
    const dbs = store();
    const keys = fill(dbs, [100, 200, 300, 400, 500, 600]);
    // Nothing applied yet: nothing goes, and it says why.
    expect(pruneSlice(dbs, 1000, undefined, 10)).toEqual({ blocks: 0, more: false, waitingForProcessor: true });
    // Applied through the fourth block; the horizon is before the sixth.
    expect(pruneSlice(dbs, 550, keys[3], 2, { countEvents: true })).toEqual({
      blocks: 2,
      events: 6,
      more: true,
      waitingForProcessor: false,
    });
    expect(pruneSlice(dbs, 550, keys[3], 2)).toEqual({ blocks: 2, more: false, waitingForProcessor: true });
    expect(pruneSlice(dbs, 550, keys[3], 2)).toEqual({ blocks: 0, more: false, waitingForProcessor: true });
    expect(oldestEventKey(dbs)).toEqual(keys[4]);
    // The horizon, not the cursor, holds the rest back.
    expect(pruneSlice(dbs, 550, keys[5], 10)).toEqual({ blocks: 1, more: false, waitingForProcessor: false });
    expect([...dbs.events.getKeys()]).toEqual([keys[5]]);
  });

  it('reads the cursor the processor stores', () => {
    const dbs = store();
    expect(processorCursor(dbs)).toBeUndefined();
    dbs.meta.putSync(PROCESSOR_CURSOR_KEY, [1, 2, 3]);
    expect(processorCursor(dbs)).toEqual([1, 2, 3]);
  });
});

describe('the retention schedule', () => {
  it('puts the horizon the given days back, slices again at once while slices are full, then looks once a minute', () => {
    const s = new RetentionSchedule(2);
    const now = Date.UTC(2026, 10, 28);
    expect(s.horizonMicros(now)).toBe((now - 2 * 86_400_000) * 1000);
    expect(s.due(now)).toBe(true);
    s.after({ blocks: 64, more: true, waitingForProcessor: false }, now);
    expect(s.due(now)).toBe(true);
    s.after({ blocks: 3, more: false, waitingForProcessor: false }, now);
    expect(s.due(now + PRUNE_CHECK_INTERVAL_MS - 1)).toBe(false);
    expect(s.due(now + PRUNE_CHECK_INTERVAL_MS)).toBe(true);
  });
});

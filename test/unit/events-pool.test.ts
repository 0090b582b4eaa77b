/**
 * Events API pages read in slices by a real worker pool: slices are stitched into the same page
 * a single scan gives, and a page whose budget runs out comes back short with a cursor to go on.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../src/ingest/types.js';
import type { EventsPool as EventsPoolType } from '../../src/pool/events-pool.js';
import type { WorkerPool as WorkerPoolType } from '../../src/pool/worker-pool.js';
import { encodeBlock, encodeEvent } from '../../src/store/event-log.js';
import { listEvents, type ListEventsQuery } from '../../src/store/list-events.js';
import { openStore, type StoreDatabases } from '../../src/store/open-store.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

// The pool's workers run the built worker module (npm test builds first): a worker cannot load .ts.
const { WorkerPool } = (await import(new URL('../../dist/src/pool/worker-pool.js', import.meta.url).href)) as {
  WorkerPool: typeof WorkerPoolType;
};
const { EventsPool } = (await import(new URL('../../dist/src/pool/events-pool.js', import.meta.url).href)) as {
  EventsPool: typeof EventsPoolType;
};

const tempDir = useTempDirs('hedgerow-events-pool-');
let open: { pool: WorkerPoolType; dbs: StoreDatabases } | undefined;
afterEach(async () => {
  if (!open) return;
  await open.pool.close();
  await open.dbs.root.close();
  open = undefined;
});

/** A store with 20 blocks of 5 events (event n in block n / 5) and a one-worker pool on it. */
async function logAndPool(): Promise<{ pool: WorkerPoolType; dbs: StoreDatabases }> {
  const dataDir = tempDir();
  const dbs = openStore({ dataDir, sync: 'none' });
  const t0 = Date.UTC(2026, 10, 21);
  for (let b = 0; b < 20; b++) {
    const events = Array.from({ length: 5 }, (_, i): StoredEvent => {
      const n = b * 5 + i;
      const timestamp = new Date(t0 + n * 1000).toISOString();
      const distinct_id = `user-${n % 3}`;
      return { uuid: `u${n}`, event: 'e', distinct_id, properties: { n }, timestamp, created_at: timestamp, project_id: 1 };
    });
    await dbs.events.put([(t0 + b) * 1000, 1, b], Buffer.from(encodeBlock(events.map(encodeEvent))));
  }
  const pool = new WorkerPool({ setup: { dataDir, sync: 'none', maxDecompressedBytes: 1 << 20, nice: 0 }, workers: 1, tasksPerWorker: 2 });
  await pool.ready();
  open = { pool, dbs };
  return open;
}

const numbers = (events: Array<{ event: StoredEvent }>) => events.map((e) => e.event.properties['n']);

describe('EventsPool', () => {
  it('stitches one-block slices into the page a single scan gives', async () => {
    const { pool, dbs } = await logAndPool();
    const q: ListEventsQuery = { projectId: 1, limit: 20, distinctId: 'user-2' };
    const single = listEvents(dbs, q);
    const sliced = await new EventsPool(pool, { sliceMs: 0 }).list(q);
    expect(numbers(sliced.events)).toEqual(numbers(single.events));
    expect(sliced.events).toHaveLength(20);
    expect(sliced.nextCursor).toBe(single.nextCursor);
    const rest = await new EventsPool(pool, { sliceMs: 0 }).list({ ...q, cursor: sliced.nextCursor! });
    expect(numbers(rest.events)).toEqual(numbers(listEvents(dbs, { ...q, cursor: single.nextCursor! }).events));
    expect(rest.nextCursor).toBeUndefined();
  });

  it('answers with what it found and a cursor once the page budget is spent', async () => {
    const { pool } = await logAndPool();
    const events = new EventsPool(pool, { sliceMs: 0, pageBudgetMs: 0 });
    const q: ListEventsQuery = { projectId: 1, limit: 100 };
    const seen: unknown[] = [];
    let page = await events.list(q);
    expect(numbers(page.events)).toEqual([99, 98, 97, 96, 95]); // one block
    let pages = 1;
    while (page.nextCursor !== undefined) {
      seen.push(...numbers(page.events));
      page = await events.list({ ...q, cursor: page.nextCursor });
      pages++;
    }
    seen.push(...numbers(page.events));
    expect(seen).toEqual(Array.from({ length: 100 }, (_, i) => 99 - i));
    expect(pages).toBeGreaterThanOrEqual(20);
  });
});

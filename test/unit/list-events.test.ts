/**
 * Events API pages from a real event log in a temporary store: order, cursors, pages cut short
 * by the scan budget, the byte prefilter, the `after` cut-off and the time bounds, and pages read
 * in slices with pauses between them.
 */
import { describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../src/ingest/types.js';
import { MAX_FUTURE_SKEW_MS } from '../../src/limits.js';
import { encodeBlock } from '../../src/store/event-log.js';
import { decodeCursor, listEvents, listEventsPaced, type EventsPage, type ListEventsQuery } from '../../src/store/list-events.js';
import { openStore, type EventKey, type StoreDatabases } from '../../src/store/open-store.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs('hedgerow-list-events-');
const NOW_MS = Date.UTC(2026, 10, 21, 12);

function event(n: number, fields: Partial<StoredEvent> = {}): StoredEvent {
  const timestamp = new Date(NOW_MS - 1000 * (100 - n)).toISOString();
  return {
    uuid: `00000000-0000-7000-8000-${String(n).padStart(12, '0')}`,
    event: n % 3 === 0 ? 'signup' : 'pageview',
    distinct_id: `user-${n % 4}`,
    properties: { n },
    timestamp,
    created_at: timestamp,
    project_id: 1,
    ...fields,
  };
}

async function withLog(blocks: Array<{ atMs: number; events: StoredEvent[] } | { atMs: number; raw: Buffer }>): Promise<StoreDatabases> {
  const dbs = openStore({ dataDir: tempDir(), sync: 'none' });
  let counter = 0;
  for (const b of blocks) {
    const key: EventKey = [b.atMs * 1000, 7, counter++];
    const value = 'raw' in b ? b.raw : Buffer.from(encodeBlock(b.events));
    await dbs.events.put(key, value);
  }
  return dbs;
}

/** Ten blocks of ten events, one second apart, oldest first (event n is in block n / 10). */
function tenBlocks(): Array<{ atMs: number; events: StoredEvent[] }> {
  return Array.from({ length: 10 }, (_, b) => ({
    atMs: NOW_MS - 10_000 + b * 1000,
    events: Array.from({ length: 10 }, (_, i) => event(b * 10 + i)),
  }));
}

const numbers = (page: Pick<EventsPage, 'events'>) => page.events.map((e) => e.properties['n']);

/** Every page from the first, following each page's cursor. */
function allPages(dbs: StoreDatabases, q: ListEventsQuery, shouldStop?: () => boolean): EventsPage[] {
  const pages: EventsPage[] = [];
  let cursor: string | undefined;
  do {
    const page = listEvents(dbs, cursor === undefined ? q : { ...q, cursor }, shouldStop);
    pages.push(page);
    cursor = page.nextCursor;
  } while (cursor !== undefined && pages.length < 1000);
  return pages;
}

describe('listEvents', () => {
  it('lists newest first in pages whose cursors neither repeat nor skip an event', async () => {
    const dbs = await withLog(tenBlocks());
    const first = listEvents(dbs, { projectId: 1, limit: 15 });
    expect(first.stop).toBe('full');
    expect(numbers(first)).toEqual(Array.from({ length: 15 }, (_, i) => 99 - i));
    const pages = allPages(dbs, { projectId: 1, limit: 15 });
    expect(pages.flatMap(numbers)).toEqual(Array.from({ length: 100 }, (_, i) => 99 - i));
    expect(pages.at(-1)?.stop).toBe('end');
    expect(pages.at(-1)?.nextCursor).toBeUndefined();
  });

  it('with lookAhead, a full page has a cursor only when another event matches', async () => {
    const dbs = await withLog(tenBlocks());
    for (const limit of [1, 4, 10, 25, 50, 100]) {
      const pages = allPages(dbs, { projectId: 1, limit, lookAhead: true });
      expect(pages.flatMap(numbers), `limit ${limit}`).toEqual(Array.from({ length: 100 }, (_, i) => 99 - i));
      expect(pages.length, `limit ${limit}`).toBe(100 / limit);
      expect(pages.at(-1)?.nextCursor).toBeUndefined();
    }
    // Without it, the page after the last full one is empty.
    const plain = allPages(dbs, { projectId: 1, limit: 25 });
    expect(plain.map((p) => p.events.length)).toEqual([25, 25, 25, 25, 0]);
    // user-1's events are 97, 93, …, 1: the match after the page may sit in a later block.
    const filtered = allPages(dbs, { projectId: 1, limit: 5, distinctIds: ['user-1'], lookAhead: true });
    expect(filtered.flatMap(numbers)).toEqual(Array.from({ length: 25 }, (_, i) => 97 - 4 * i));
    expect(filtered.map((p) => p.stop)).toEqual(['full', 'full', 'full', 'full', 'end']);
  });

  // PostHog's `limit=0` page is empty, with a next link below the one row it read
  // (`posthog/api/event.py`): following it passes one match a page, and ends.
  it('with lookAhead and limit 0, an empty page whose cursor passes over one match', async () => {
    const dbs = await withLog(tenBlocks());
    for (const order of ['newest', 'oldest'] as const) {
      const q: ListEventsQuery = { projectId: 1, limit: 0, lookAhead: true, order, passOver: true };
      const pages = allPages(dbs, q);
      expect(pages.map((p) => p.events.length).every((n) => n === 0)).toBe(true);
      expect(pages.length, order).toBe(101);
      expect(pages.at(-1)?.stop).toBe('end');
      const first = await listEventsPaced(dbs, { ...q, passOver: undefined }, { sliceMs: 0, pause: async () => {} }, Infinity);
      expect(first.events).toEqual([]);
      const after = listEvents(dbs, { projectId: 1, limit: 1, order, cursor: first.nextCursor as string });
      expect(numbers(after), order).toEqual([order === 'newest' ? 98 : 1]);
    }
    const none = listEvents(dbs, { projectId: 1, limit: 0, lookAhead: true, passOver: true, distinctIds: ['nobody'] });
    expect([none.events, none.nextCursor, none.stop]).toEqual([[], undefined, 'end']);
  });

  it('lists oldest first too, with the same cursors, cuts, look-ahead and offset', async () => {
    const dbs = await withLog(tenBlocks());
    const ascending = Array.from({ length: 100 }, (_, i) => i);
    for (const limit of [1, 3, 10, 25, 100]) {
      for (const lookAhead of [false, true]) {
        const q: ListEventsQuery = { projectId: 1, limit, lookAhead, order: 'oldest' };
        const pages = allPages(dbs, q);
        expect(pages.flatMap(numbers), `limit ${limit}`).toEqual(ascending);
        expect(pages.at(-1)?.nextCursor).toBeUndefined();
        if (lookAhead) expect(pages.length).toBe(Math.ceil(100 / limit));
        expect(allPages(dbs, q, () => true).flatMap(numbers), `limit ${limit}, cut after every block`).toEqual(ascending);
      }
    }
    const user1 = Array.from({ length: 25 }, (_, i) => 1 + 4 * i);
    const q: ListEventsQuery = { projectId: 1, limit: 4, distinctIds: ['user-1'], lookAhead: true, order: 'oldest' };
    expect(allPages(dbs, q).flatMap(numbers)).toEqual(user1);
    expect(numbers(listEvents(dbs, { ...q, offset: 5 }))).toEqual(user1.slice(5, 9));
    const paced = await listEventsPaced(dbs, { ...q, offset: 5 }, { sliceMs: 0, pause: async () => {} }, 0);
    const rest = paced.nextCursor === undefined ? [] : allPages(dbs, { ...q, cursor: paced.nextCursor }).flatMap(numbers);
    expect([...numbers(paced), ...rest]).toEqual(user1.slice(5));
  });

  it('cut short after any block, the pages still add up to the same events', async () => {
    const dbs = await withLog(tenBlocks());
    const q: ListEventsQuery = { projectId: 1, limit: 7, distinctIds: ['user-1'] };
    const whole = allPages(dbs, q).flatMap(numbers);
    expect(whole).toEqual(Array.from({ length: 25 }, (_, i) => 97 - 4 * i));
    const stopped = allPages(dbs, q, () => true);
    expect(stopped.flatMap(numbers)).toEqual(whole);
    expect(stopped.some((p) => p.stop === 'budget' && p.events.length < 7)).toBe(true);
    for (const p of stopped.filter((p) => p.stop === 'budget')) expect(decodeCursor(p.nextCursor!)[3]).toBe(0);
  });

  it('filters by event, distinct_id and project', async () => {
    const blocks = tenBlocks();
    blocks[4]!.events.push(event(200, { project_id: 2, distinct_id: 'user-1', event: 'signup' }));
    const dbs = await withLog(blocks);
    const q = { projectId: 1, limit: 100 };
    expect(numbers(listEvents(dbs, { ...q, event: 'signup', distinctIds: ['user-1'] }))).toEqual([93, 81, 69, 57, 45, 33, 21, 9]);
    expect(numbers(listEvents(dbs, { ...q, projectId: 2 }))).toEqual([200]);
    expect(numbers(listEvents(dbs, { ...q, distinctIds: ['nobody'] }))).toEqual([]);
  });

  it("filters by a set of distinct ids (a person's), none matching when the set is empty", async () => {
    const garbage = Buffer.from([0xdb, 0xff, 0xff, 0xff, 0xff]); // never decoded when no id can be in it
    const blocks: Array<{ atMs: number; events: StoredEvent[] } | { atMs: number; raw: Buffer }> = tenBlocks();
    blocks.push({ atMs: NOW_MS + 1000, raw: garbage });
    const dbs = await withLog(blocks);
    const q = { projectId: 1, limit: 100 };
    const ids = ['user-1', 'user-3', 'elsewhere'];
    expect(numbers(listEvents(dbs, { ...q, distinctIds: ids, beforeMs: NOW_MS - 90_000 }))).toEqual([9, 7, 5, 3, 1]);
    expect(listEvents(dbs, { ...q, distinctIds: [] })).toEqual({ events: [], stop: 'end', skipped: 0 });
    // One value without a byte prefilter (a lone surrogate) makes every block a candidate.
    expect(() => listEvents(dbs, { ...q, distinctIds: ['user-1', 'x\ud800'] })).toThrow();
    // So do many values (searching for each would cost more than decoding).
    const many = Array.from({ length: 9 }, (_, i) => `nobody-${i}`);
    expect(() => listEvents(dbs, { ...q, distinctIds: many })).toThrow();
    expect(numbers(listEvents(dbs, { ...q, distinctIds: many.slice(0, 8) }))).toEqual([]);
  });

  it('passes over `offset` matches first, also across slices and with a cursor after it', async () => {
    const dbs = await withLog(tenBlocks());
    const q: ListEventsQuery = { projectId: 1, limit: 4, distinctIds: ['user-2'], lookAhead: true };
    const all = allPages(dbs, { ...q, limit: 100 }).flatMap(numbers);
    for (const offset of [0, 1, 3, 10, 24, 25, 40]) {
      const page = listEvents(dbs, { ...q, offset });
      expect(numbers(page), `offset ${offset}`).toEqual(all.slice(offset, offset + 4));
      expect(page.skipped).toBe(Math.min(offset, all.length));
      // Read a block per slice: with no budget the page ends once the offset is passed, and its
      // cursor goes on from there; with time to spare it is the same page as in one read.
      for (const budgetMs of [0, Infinity]) {
        const paced = await listEventsPaced(dbs, { ...q, offset }, { sliceMs: 0, pause: async () => {} }, budgetMs);
        const rest = paced.nextCursor === undefined ? [] : allPages(dbs, { ...q, cursor: paced.nextCursor }).flatMap(numbers);
        expect([...numbers(paced), ...rest], `offset ${offset}, budget ${budgetMs}`).toEqual(all.slice(offset));
        if (budgetMs === Infinity) expect(numbers(paced)).toEqual(numbers(page));
      }
    }
  });

  it('does not decode a block that cannot hold the distinct_id or event asked for', async () => {
    const garbage = Buffer.from([0xdb, 0xff, 0xff, 0xff, 0xff]); // a 4 GiB string that is not there
    const dbs = await withLog([
      { atMs: NOW_MS - 2000, events: [event(1)] },
      { atMs: NOW_MS - 1000, raw: garbage },
    ]);
    expect(numbers(listEvents(dbs, { projectId: 1, limit: 10, distinctIds: ['user-1'] }))).toEqual([1]);
    expect(numbers(listEvents(dbs, { projectId: 1, limit: 10, event: 'pageview' }))).toEqual([1]);
    expect(numbers(listEvents(dbs, { projectId: 1, limit: 10, distinctIds: ['üser-😀'], event: 'ñ' }))).toEqual([]);
    expect(() => listEvents(dbs, { projectId: 1, limit: 10 })).toThrow();
  });

  it('finds non-ASCII values, and a lone surrogate by the value it reads back as', async () => {
    const dbs = await withLog([
      { atMs: NOW_MS, events: [event(1, { distinct_id: 'üser-😀', event: 'ñ' }), event(2, { distinct_id: 'user-\ud800' })] },
    ]);
    const q = { projectId: 1, limit: 10 };
    expect(numbers(listEvents(dbs, { ...q, distinctIds: ['üser-😀'], event: 'ñ' }))).toEqual([1]);
    const stored = listEvents(dbs, { ...q, distinctIds: ['user-\ud800'] });
    expect(stored.events).toEqual([]); // msgpackr reads the surrogate back as U+FFFD characters
    const shown = listEvents(dbs, q).events[0]!.distinct_id;
    expect(shown).toMatch(/^user-\ufffd+$/);
    expect(numbers(listEvents(dbs, { ...q, distinctIds: [shown] }))).toEqual([2]);
  });

  it('reads no block ingested more than the future-skew allowance (and an hour) before `after`, in either order', async () => {
    const afterMs = NOW_MS - 60_000;
    const cutoffMs = afterMs - MAX_FUTURE_SKEW_MS - 3_600_000;
    const garbage = Buffer.from([0xdb, 0xff, 0xff, 0xff, 0xff]);
    const dbs = await withLog([
      { atMs: cutoffMs - 1, raw: garbage },
      // Ingested before `after` but within the allowance: a timestamp up to 23 h ahead is possible.
      { atMs: cutoffMs + 1, events: [event(1, { timestamp: new Date(afterMs + 1).toISOString() }), event(2)] },
      { atMs: NOW_MS, events: [event(3, { timestamp: new Date(NOW_MS).toISOString() })] },
    ]);
    const newest = listEvents(dbs, { projectId: 1, limit: 10, afterMs });
    expect([numbers(newest), newest.stop]).toEqual([[3, 1], 'end']);
    // Oldest first, `after` starts the read there instead of ending it.
    const oldest = listEvents(dbs, { projectId: 1, limit: 10, afterMs, order: 'oldest' });
    expect([numbers(oldest), oldest.stop]).toEqual([[1, 3], 'end']);
  });

  it('compares timestamps as instants: bounds are exclusive, out-of-range bounds and other formats work', async () => {
    const t = (iso: string, n: number) => event(n, { timestamp: iso });
    const dbs = await withLog([
      {
        atMs: NOW_MS,
        events: [
          t('2026-01-01T00:00:00.000Z', 1),
          t('2026-01-01T00:00:00.001Z', 2),
          t('2026-01-01T01:00:00+01:00', 3), // the same instant as event 1, written another way
          t('0001-01-01T00:00:00.000Z', 4),
        ],
      },
    ]);
    const q = { projectId: 1, limit: 10 };
    const jan1 = Date.UTC(2026, 0, 1);
    expect(numbers(listEvents(dbs, { ...q, afterMs: jan1 }))).toEqual([2]);
    expect(numbers(listEvents(dbs, { ...q, beforeMs: jan1 + 1 }))).toEqual([4, 3, 1]);
    expect(numbers(listEvents(dbs, { ...q, afterMs: jan1 - 1, beforeMs: jan1 + 1 }))).toEqual([3, 1]);
    expect(numbers(listEvents(dbs, { ...q, afterMs: -8.64e15 }))).toEqual([4, 3, 2, 1]);
    expect(numbers(listEvents(dbs, { ...q, beforeMs: 8.64e15 }))).toEqual([4, 3, 2, 1]);
    expect(numbers(listEvents(dbs, { ...q, afterMs: 8.64e15 }))).toEqual([]);
    // Bounds between two milliseconds (a relative date's End is …59.999999).
    expect(numbers(listEvents(dbs, { ...q, beforeMs: jan1 + 0.5 }))).toEqual([4, 3, 1]);
    expect(numbers(listEvents(dbs, { ...q, beforeMs: jan1 + 1.5 }))).toEqual([4, 3, 2, 1]);
    expect(numbers(listEvents(dbs, { ...q, afterMs: jan1 - 0.5 }))).toEqual([3, 2, 1]);
    expect(numbers(listEvents(dbs, { ...q, afterMs: jan1 + 0.5 }))).toEqual([2]);
  });

  it('rejects a cursor it did not produce', () => {
    for (const bad of ['', 'abc', Buffer.from('1.2.3').toString('base64url'), Buffer.from('1.2.3.-4').toString('base64url')]) {
      expect(() => decodeCursor(bad)).toThrow(RangeError);
    }
  });
});

describe('listEventsPaced', () => {
  const paced = () => {
    const p = { sliceMs: 0, pauses: 0, pause: async () => void p.pauses++ };
    return p;
  };

  it('joins slices of one block each into the page one read gives', async () => {
    const dbs = await withLog(tenBlocks());
    const q: ListEventsQuery = { projectId: 1, limit: 20, distinctIds: ['user-2'] };
    const whole = listEvents(dbs, q);
    const pacing = paced();
    const page = await listEventsPaced(dbs, q, pacing, Infinity);
    expect(numbers(page)).toEqual(numbers(whole));
    expect(page.nextCursor).toBe(whole.nextCursor);
    expect(pacing.pauses).toBeGreaterThan(5);
    const rest = await listEventsPaced(dbs, { ...q, cursor: page.nextCursor! }, paced(), Infinity);
    expect(numbers(rest)).toEqual(numbers(listEvents(dbs, { ...q, cursor: whole.nextCursor! })));
    expect(rest.nextCursor).toBeUndefined();
  });

  it('looks ahead across slices: a page filled in one slice ends or goes on by what the next finds', async () => {
    const dbs = await withLog(tenBlocks());
    for (const [distinctId, limit, pages] of [
      ['user-3', 5, 5], // 25 events: the last page finds nothing after it
      ['user-3', 6, 5],
      ['user-0', 10, 3],
    ] as const) {
      const q: ListEventsQuery = { projectId: 1, limit, distinctIds: [distinctId], lookAhead: true };
      const seen: unknown[] = [];
      let page = await listEventsPaced(dbs, q, paced(), Infinity);
      let count = 1;
      seen.push(...numbers(page));
      while (page.nextCursor !== undefined) {
        expect(page.events).toHaveLength(limit);
        page = await listEventsPaced(dbs, { ...q, cursor: page.nextCursor }, paced(), Infinity);
        seen.push(...numbers(page));
        count++;
      }
      expect(seen).toEqual(allPages(dbs, { ...q, limit: 1000 }).flatMap(numbers));
      expect(count, `${distinctId} by ${limit}`).toBe(pages);
    }
  });

  it('answers with what it found and a cursor once its budget is spent', async () => {
    const dbs = await withLog(tenBlocks());
    const q: ListEventsQuery = { projectId: 1, limit: 100 };
    let page = await listEventsPaced(dbs, q, paced(), 0);
    expect(numbers(page)).toEqual([99, 98, 97, 96, 95, 94, 93, 92, 91, 90]); // one block
    const seen = numbers(page);
    while (page.nextCursor !== undefined) {
      page = await listEventsPaced(dbs, { ...q, cursor: page.nextCursor }, paced(), 0);
      seen.push(...numbers(page));
    }
    expect(seen).toEqual(Array.from({ length: 100 }, (_, i) => 99 - i));
  });

  it('finds one event by UUID', async () => {
    const dbs = await withLog(tenBlocks());
    const uuid = event(42).uuid;
    const page = await listEventsPaced(dbs, { projectId: 1, uuid, limit: 1 }, paced(), Infinity);
    expect(page.events.map((e) => e.uuid)).toEqual([uuid]);
    expect((await listEventsPaced(dbs, { projectId: 1, uuid: event(1000).uuid, limit: 1 }, paced(), Infinity)).events).toEqual([]);
  });
});

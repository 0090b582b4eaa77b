import { describe, expect, it } from 'vitest';
import {
  CURSOR_OFFSET_CUTOFF,
  cursorPage,
  decodeCursor,
  encodeCursor,
  type Cursor,
  type CursorOrdering,
} from '../../src/compat/drf-cursor-pagination.js';
import { HedgerowError } from '../../src/errors.js';

interface Item {
  name: string;
  at: string;
}

/** Newest first, as the groups list orders. */
const ORDER: CursorOrdering<Item> = {
  position: (i) => i.at,
  compare: (a, b) => Date.parse(b) - Date.parse(a),
  valid: (p) => !Number.isNaN(Date.parse(p)),
};

/** 11 items, newest first, with runs of equal timestamps (one longer than a page of 3). */
const ITEMS: Item[] = ['10', '09', '09', '08', '08', '08', '08', '07', '06', '06', '05'].map((day, i) => ({
  name: `i${i}`,
  at: `2024-01-${day}T00:00:00.000Z`,
}));

function walk(start: Cursor | undefined, dir: 'next' | 'previous', size: number): string[][] {
  const pages: string[][] = [];
  let cursor = start;
  for (let guard = 0; guard < 50; guard++) {
    // Each cursor goes through its text form, as a client would send it back.
    const page = cursorPage(ITEMS, cursor === undefined ? undefined : decodeCursor(encodeCursor(cursor)), size, ORDER);
    pages.push(page.items.map((i) => i.name));
    const following = page[dir];
    if (!following) return pages;
    cursor = following;
  }
  throw new Error('no end');
}

describe('encodeCursor / decodeCursor', () => {
  it('writes DRF’s base64 query string, each part only when set', () => {
    expect(Buffer.from(encodeCursor({ offset: 0, reverse: false, position: undefined }), 'base64').toString()).toBe('');
    const c = { offset: 2, reverse: true, position: '2024-01-08T00:00:00.000Z' };
    expect(Buffer.from(encodeCursor(c), 'base64').toString()).toBe('o=2&r=1&p=2024-01-08T00%3A00%3A00.000Z');
    expect(decodeCursor(encodeCursor(c))).toEqual(c);
    expect(decodeCursor(null)).toBeUndefined();
  });

  it('clamps the offset and refuses what does not decode', () => {
    const big = Buffer.from('o=5000').toString('base64');
    expect(decodeCursor(big)?.offset).toBe(CURSOR_OFFSET_CUTOFF);
    for (const bad of [
      'abc',
      Buffer.from('o=-1').toString('base64'),
      Buffer.from('r=x').toString('base64'),
      Buffer.from([0xff, 0xfe, 0x41]).toString('base64'),
    ]) {
      expect(() => decodeCursor(bad)).toThrow(HedgerowError);
    }
    try {
      decodeCursor('abc');
    } catch (err) {
      expect((err as HedgerowError).toBody()).toEqual({ type: 'invalid_request', code: 'not_found', detail: 'Invalid cursor', attr: null });
    }
  });
});

describe('cursorPage', () => {
  it('pages forward through every item once, across runs of ties longer than a page', () => {
    const pages = walk(undefined, 'next', 3);
    expect(pages.flat()).toEqual(ITEMS.map((i) => i.name));
    expect(pages.slice(0, -1).every((p) => p.length === 3)).toBe(true);
  });

  it('has no previous page at the start and no next page at the end', () => {
    const first = cursorPage(ITEMS, undefined, 3, ORDER);
    expect(first.previous).toBeNull();
    const all = cursorPage(ITEMS, undefined, 100, ORDER);
    expect([all.items.length, all.next, all.previous]).toEqual([11, null, null]);
  });

  it.each([2, 3, 4])('pages back from the last page through the same pages (page size %i)', (size) => {
    const forward = walk(undefined, 'next', size);
    let cursor: Cursor | undefined;
    let page = cursorPage(ITEMS, undefined, size, ORDER);
    while (page.next) {
      cursor = page.next;
      page = cursorPage(ITEMS, cursor, size, ORDER);
    }
    expect(walk(cursor, 'previous', size)).toEqual([...forward].reverse());
  });

  it('is stable when newer items arrive between requests', () => {
    const first = cursorPage(ITEMS, undefined, 3, ORDER);
    const newer = [{ name: 'new', at: '2024-02-01T00:00:00.000Z' }, ...ITEMS];
    const second = cursorPage(newer, first.next!, 3, ORDER);
    expect(second.items.map((i) => i.name)).toEqual(['i3', 'i4', 'i5']);
  });

  it('refuses a cursor whose position does not parse', () => {
    expect(() => cursorPage(ITEMS, { offset: 0, reverse: false, position: 'soon' }, 3, ORDER)).toThrow(HedgerowError);
  });
});

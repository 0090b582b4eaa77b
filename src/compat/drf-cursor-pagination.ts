/**
 * Django REST framework's `CursorPagination` over an ordered in-memory list, as PostHog's groups
 * list uses it: `{next, previous, results}`, where the links carry `cursor=`, a base64 query string
 * `o=<offset>&r=1&p=<position>` (each part only when set). A cursor points after (or, reversed,
 * before) the item at `position`, then skips `offset` items: stable while items are added, and
 * exact across runs of items sharing a position. The page size is fixed (no `limit`). The links
 * are built where the request is known (`cursorUrl`).
 */
import { HedgerowError } from '../errors.js';
import { pythonInt } from './python-parse.js';

/** DRF clamps a cursor's offset to this, so a crafted cursor cannot ask for a huge skip. */
export const CURSOR_OFFSET_CUTOFF = 1000;

export interface Cursor {
  offset: number;
  reverse: boolean;
  position: string | undefined;
}

export interface CursorOrdering<T> {
  /** The ordering value of an item, as the cursor carries it. */
  position(item: T): string;
  /** Negative when position `a` comes before `b` in the list's order, 0 when they tie. */
  compare(a: string, b: string): number;
  /** Whether a position read from a cursor can be compared (else the cursor is invalid). */
  valid(position: string): boolean;
}

export interface CursorPage<T> {
  items: T[];
  /** Cursors for the following and preceding pages, or null. */
  next: Cursor | null;
  previous: Cursor | null;
}

/** The `cursor` parameter, or undefined without one; a malformed one is a 404 `Invalid cursor`. */
export function decodeCursor(encoded: string | null): Cursor | undefined {
  if (encoded === null) return undefined;
  const invalid = () => new HedgerowError('HR_INVALID_CURSOR');
  // Python's b64decode drops characters outside the alphabet, then insists on whole quadruples.
  const b64 = encoded.replace(/[^A-Za-z0-9+/=]/g, '');
  if (b64.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(b64)) throw invalid();
  const bytes = Buffer.from(b64, 'base64');
  if (bytes.some((b) => b > 0x7f)) throw invalid();
  const tokens = new URLSearchParams(bytes.toString('latin1'));
  const offset = pythonInt(tokens.get('o') ?? '0');
  const reverse = pythonInt(tokens.get('r') ?? '0');
  if (offset === undefined || offset < 0 || reverse === undefined) throw invalid();
  return { offset: Math.min(offset, CURSOR_OFFSET_CUTOFF), reverse: reverse !== 0, position: tokens.get('p') ?? undefined };
}

export function encodeCursor(cursor: Cursor): string {
  const tokens = new URLSearchParams();
  if (cursor.offset !== 0) tokens.set('o', String(cursor.offset));
  if (cursor.reverse) tokens.set('r', '1');
  if (cursor.position !== undefined) tokens.set('p', cursor.position);
  return Buffer.from(tokens.toString(), 'latin1').toString('base64');
}

/** One page of `items` (already in order) at `cursor`, with the cursors of its neighbours. */
export function cursorPage<T>(items: readonly T[], cursor: Cursor | undefined, pageSize: number, order: CursorOrdering<T>): CursorPage<T> {
  const { offset, reverse, position } = cursor ?? { offset: 0, reverse: false, position: undefined };
  if (position !== undefined && !order.valid(position)) throw new HedgerowError('HR_INVALID_CURSOR');
  const pos = (item: T) => order.position(item);
  const same = (a: string | undefined, b: string | undefined) => a !== undefined && b !== undefined && order.compare(a, b) === 0;

  let seq = reverse ? [...items].reverse() : [...items];
  if (position !== undefined) {
    seq = seq.filter((item) => {
      const c = order.compare(pos(item), position);
      return reverse ? c < 0 : c > 0;
    });
  }
  const window = seq.slice(offset, offset + pageSize + 1);
  const page = window.slice(0, pageSize);
  const following = window.length > pageSize ? pos(window[pageSize]!) : undefined;
  if (reverse) page.reverse();

  const hasNext = reverse ? position !== undefined || offset > 0 : following !== undefined;
  const hasPrevious = reverse ? following !== undefined : position !== undefined || offset > 0;
  const nextPosition = reverse ? position : following;
  const previousPosition = reverse ? following : position;

  // The marker for a link is the last (first) item whose position differs from its neighbour
  // beyond the page; the items after it that share the neighbour's position become the offset.
  const link = (forward: boolean): Cursor => {
    const walk = forward ? [...page].reverse() : page;
    const reversingWithOffset = cursor !== undefined && cursor.reverse === forward && cursor.offset > 0;
    let compare =
      page.length > 0 && reversingWithOffset ? pos(forward ? page[page.length - 1]! : page[0]!) : forward ? nextPosition : previousPosition;
    let skip = 0;
    let marker: string | undefined;
    for (const item of walk) {
      const p = pos(item);
      if (!same(p, compare)) {
        marker = p;
        break;
      }
      compare = p;
      skip++;
    }
    if (page.length > 0 && marker === undefined) {
      // No usable marker in the page: every item ties with the neighbour.
      if (!(forward ? hasPrevious : hasNext)) {
        skip = pageSize;
      } else if (cursor!.reverse === forward) {
        // Changing direction: PostHog (DRF) restarts at the other end's position.
        skip = 0;
        marker = forward ? previousPosition : nextPosition;
      } else {
        skip = cursor!.offset + pageSize;
        marker = forward ? previousPosition : nextPosition;
      }
    }
    if (page.length === 0) marker = forward ? nextPosition : previousPosition;
    return { offset: skip, reverse: !forward, position: marker };
  };

  return { items: page, next: hasNext ? link(true) : null, previous: hasPrevious ? link(false) : null };
}

/**
 * The two pagination styles of PostHog's REST API:
 * - limit/offset (DRF `LimitOffsetPagination`, page size 100, no maximum): `{count, next, previous,
 *   results}` where `next`/`previous` are absolute URLs with `limit`/`offset` replaced and the query
 *   re-encoded in sorted order, and `previous` drops `offset` when it would be 0;
 * - page numbers (the activity log): `{results, next, previous, total_count}`;
 * - cursors (the groups list, DRF `CursorPagination`, compat/drf-cursor-pagination.ts): `next` and
 *   `previous` are absolute URLs with `cursor` replaced, the query re-encoded in sorted order.
 */
import { type Cursor, encodeCursor } from '../compat/drf-cursor-pagination.js';
import { catalogueError } from '../errors.js';
import { absoluteUrl } from '../http/api-request.js';
import type { HttpRequest } from '../http/types.js';

const DEFAULT_PAGE_SIZE = 100;

export interface LimitOffset {
  limit: number;
  offset: number;
}

/** An invalid or non-positive `limit` falls back to the default, an invalid `offset` to 0 (as DRF does). */
export function parseLimitOffset(query: URLSearchParams, defaultLimit = DEFAULT_PAGE_SIZE): LimitOffset {
  return {
    limit: positiveInt(query.get('limit')) ?? defaultLimit,
    offset: nonNegativeInt(query.get('offset')) ?? 0,
  };
}

export interface LimitOffsetPage<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

/** Slices `items` (already filtered and ordered) and builds the envelope. */
export function limitOffsetPage<T, R = T>(
  http: HttpRequest,
  query: URLSearchParams,
  items: readonly T[],
  page: LimitOffset,
  render: (item: T) => R,
): LimitOffsetPage<R> {
  const { limit, offset } = page;
  const count = items.length;
  const withParams = (set: Record<string, number>, drop?: string): string => {
    const params = new Map<string, string[]>();
    for (const [k, v] of query) params.set(k, [...(params.get(k) ?? []), v]);
    for (const [k, v] of Object.entries(set)) params.set(k, [String(v)]);
    if (drop) params.delete(drop);
    const sorted = new URLSearchParams();
    for (const k of [...params.keys()].sort()) for (const v of params.get(k)!) sorted.append(k, v);
    return absoluteUrl(http, sorted);
  };
  const next = offset + limit < count ? withParams({ limit, offset: offset + limit }) : null;
  const previous =
    offset <= 0 ? null : offset - limit <= 0 ? withParams({ limit }, 'offset') : withParams({ limit, offset: offset - limit });
  return { count, next, previous, results: items.slice(offset, offset + limit).map(render) };
}

export interface PageNumber {
  limit: number;
  page: number;
}

/** `limit` (default 10) and 1-based `page` (default 1), each an integer ≥ 1, else 400. */
export function parsePageNumber(query: URLSearchParams, defaultLimit = 10): PageNumber {
  const read = (name: string, fallback: number): number => {
    const raw = query.get(name);
    if (raw === null || raw === '') return fallback;
    const n = positiveInt(raw);
    if (n === undefined) {
      throw catalogueError('HR_QUERY_NOT_POSITIVE_INTEGER', { name }, name);
    }
    return n;
  };
  return { limit: read('limit', defaultLimit), page: read('page', 1) };
}

export interface PageNumberPage<T> {
  results: T[];
  next: string | null;
  previous: string | null;
  total_count: number;
}

/** The page of `items` and links with `page` (then `limit`) set or replaced in the request's query. */
export function pageNumberPage<T, R = T>(
  http: HttpRequest,
  query: URLSearchParams,
  items: readonly T[],
  { limit, page }: PageNumber,
  render: (item: T) => R,
): PageNumberPage<R> {
  const start = (page - 1) * limit;
  const link = (p: number): string => {
    const q = new URLSearchParams(query);
    q.set('page', String(p));
    q.set('limit', String(limit));
    return absoluteUrl(http, q);
  };
  return {
    results: items.slice(start, start + limit).map(render),
    next: start + limit < items.length ? link(page + 1) : null,
    previous: page > 1 ? link(page - 1) : null,
    total_count: items.length,
  };
}

/**
 * The request's absolute URL with `cursor` set to `cursor`, the parameters re-encoded in sorted
 * order (DRF's `replace_query_param`).
 */
export function cursorUrl(http: HttpRequest, query: URLSearchParams, cursor: Cursor): string {
  const params = new Map<string, string[]>();
  for (const [k, v] of query) params.set(k, [...(params.get(k) ?? []), v]);
  params.set('cursor', [encodeCursor(cursor)]);
  const sorted = new URLSearchParams();
  for (const k of [...params.keys()].sort()) for (const v of params.get(k)!) sorted.append(k, v);
  return absoluteUrl(http, sorted);
}

function positiveInt(raw: string | null): number | undefined {
  if (raw === null || !/^\d{1,15}$/.test(raw)) return undefined;
  const n = Number(raw);
  return n > 0 ? n : undefined;
}

function nonNegativeInt(raw: string | null): number | undefined {
  if (raw === null || !/^\d{1,15}$/.test(raw)) return undefined;
  return Number(raw);
}

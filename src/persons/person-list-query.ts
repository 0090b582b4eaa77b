/**
 * The persons list's query, as PostHog's `PersonQuery` reads it (ClickHouse):
 * - `distinct_id`: the person owning that distinct id (exact);
 * - `email`: the `email` property equals the value;
 * - `search`: the `email` property ILIKE `%search%` (LIKE wildcards in the search are live, as in
 *   PostHog), or a distinct id equal to the search, or, when the search is a UUID, the person's UUID;
 * - persons created more than a day ahead of now are hidden;
 * - order: newest `created_at` first, then UUID descending;
 * - pages by `limit` (default 100) and `offset`; `next` is given whenever a page is full.
 * Empty parameters are ignored.
 */
import type { PersonRecord } from '../store/person-store.js';
import { canonicalUuid } from '../compat/python-parse.js';

export interface PersonFilter {
  /** `distinct_id`: only the person it belongs to; `null` when it belongs to nobody. */
  personId?: number | null;
  email?: string;
  search?: {
    text: string;
    /** The owner of the distinct id equal to the search text, if any. */
    ownerId: number | undefined;
    /** The search as a canonical UUID, when it is one. */
    uuid: string | undefined;
  };
  /** Persons created at or after this instant (ms) are hidden. */
  createdBeforeMs: number;
}

/** PostHog hides persons whose `created_at` is more than this far in the future. */
export const FUTURE_PERSON_MARGIN_MS = 24 * 60 * 60 * 1000;

export function personMatches(person: PersonRecord, f: PersonFilter): boolean {
  if (f.personId !== undefined && person.id !== f.personId) return false;
  if (!(Date.parse(person.created_at) < f.createdBeforeMs)) return false;
  if (f.email !== undefined && propertyText(person.properties.email) !== f.email) return false;
  if (f.search !== undefined) {
    const s = f.search;
    const hit =
      ilike(propertyText(person.properties.email), `%${s.text}%`) ||
      person.id === s.ownerId ||
      (s.uuid !== undefined && canonicalUuid(person.uuid) === s.uuid);
    if (!hit) return false;
  }
  return true;
}

/** Newest `created_at` first, then UUID descending. */
export function newestPersonFirst(a: PersonRecord, b: PersonRecord): number {
  const byTime = Date.parse(b.created_at) - Date.parse(a.created_at);
  if (byTime !== 0 && !Number.isNaN(byTime)) return byTime;
  return a.uuid < b.uuid ? 1 : a.uuid > b.uuid ? -1 : 0;
}

/**
 * A property as ClickHouse compares it (`JSONExtractRaw` with the outer quotes trimmed): a
 * string's JSON text without its quotes, other values as JSON, a missing one as ''.
 */
export function propertyText(value: unknown): string {
  if (value === undefined) return '';
  const text = JSON.stringify(value);
  return typeof value === 'string' ? text.slice(1, -1) : text;
}

/**
 * SQL `ILIKE`: `%` any run, `_` any one character, `\` escapes the next; case-insensitive. The
 * pattern is split at its `%`s and each piece placed at its leftmost match after the one before
 * (the first anchored at the start, the last at the end), which decides the match in
 * O(text × pattern): one regular expression with a `.*` per `%` backtracks exponentially in the
 * number of `%`s on a text it does not match.
 */
export function ilike(text: string, pattern: string): boolean {
  const pieces = likePieces(pattern);
  if (pieces.length === 1) return new RegExp(`^${pieces[0]}$`, 'isu').test(text);
  const first = new RegExp(`^${pieces[0]}`, 'isu').exec(text);
  if (first === null) return false;
  let at = first[0].length;
  for (let i = 1; i < pieces.length - 1; i++) {
    if (pieces[i] === '') continue;
    const middle = new RegExp(pieces[i]!, 'gisu');
    middle.lastIndex = at;
    const found = middle.exec(text);
    if (found === null) return false;
    at = found.index + found[0].length;
  }
  const last = new RegExp(`(?:${pieces[pieces.length - 1]})$`, 'gisu');
  last.lastIndex = at;
  return last.exec(text) !== null;
}

/** The pattern's pieces between its unescaped `%`s, each as a regular expression source. */
function likePieces(pattern: string): string[] {
  const pieces: string[] = [];
  let source = '';
  const chars = [...pattern];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === '\\' && i + 1 < chars.length) source += escapeRegExp(chars[++i]!);
    else if (c === '%') {
      pieces.push(source);
      source = '';
    } else if (c === '_') source += '.';
    else source += escapeRegExp(c);
  }
  pieces.push(source);
  return pieces;
}

/**
 * PostHog's `format_query_params_absolute_url`: the request URL with its `offset=` value replaced
 * (or `offset=` appended), every other parameter left as sent.
 */
export function withOffset(url: string, offset: number): string {
  const re = /([&?]offset=)(\d+)/g;
  if (re.test(url)) return url.replace(re, `$1${offset}`);
  return `${url}${url.includes('?') ? '&' : '?'}offset=${offset}`;
}

function escapeRegExp(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

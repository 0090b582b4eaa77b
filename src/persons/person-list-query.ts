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

/** SQL `ILIKE`: `%` any run, `_` any one character, `\` escapes the next; case-insensitive. */
export function ilike(text: string, pattern: string): boolean {
  let source = '';
  const chars = [...pattern];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === '\\' && i + 1 < chars.length) source += escapeRegExp(chars[++i]!);
    else if (c === '%') source += '.*';
    else if (c === '_') source += '.';
    else source += escapeRegExp(c);
  }
  return new RegExp(`^${source}$`, 'isu').test(text);
}

/**
 * The canonical (lower-case, hyphenated) form of a UUID in any form Python's `UUID()` takes:
 * 32 hex digits, hyphens anywhere, optional braces and `urn:uuid:` prefix. Else undefined.
 */
export function canonicalUuid(raw: string): string | undefined {
  const hex = raw.trim().replace(/^urn:/i, '').replace(/^uuid:/i, '').replace(/^\{+|\}+$/g, '').replaceAll('-', '');
  if (!/^[0-9a-f]{32}$/i.test(hex)) return undefined;
  const h = hex.toLowerCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
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

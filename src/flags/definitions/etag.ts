/**
 * ETags of the local-evaluation definitions (docs/compatibility.md#flag-definitions): a weak tag
 * `W/"<hash>"` over the served body, and the `If-None-Match` check that turns a poll into a 304.
 * PostHog hashes the cached body with SHA-256 and keeps the first 16 hex digits
 * (`HyperCache._compute_etag`), and sends the tag weak so proxies that gzip the response keep it
 * (PostHog PR #42875).
 */

import { createHash } from 'node:crypto';

/** Hex digits of the SHA-256 digest kept in the tag, as PostHog does. */
const ETAG_HEX_DIGITS = 16;

/** Weak ETag over the exact served body text: `W/"<hex>"` (sha256 truncated to 16 hex digits). */
export function definitionsEtag(bodyText: string): string {
  const hex = createHash('sha256').update(bodyText, 'utf8').digest('hex').slice(0, ETAG_HEX_DIGITS);
  return `W/"${hex}"`;
}

/**
 * The entity tags of an `If-None-Match` value: comma-separated, each `W/"x"`, `"x"` or a bare
 * `x` (sent by clients that strip quotes). Commas inside quotes do not split.
 */
function listedTags(header: string): string[] {
  const out: string[] = [];
  let current = '';
  let quoted = false;
  for (const ch of header) {
    if (ch === '"') quoted = !quoted;
    if (ch === ',' && !quoted) {
      out.push(current.trim());
      current = '';
    } else {
      current += ch;
    }
  }
  out.push(current.trim());
  return out.filter((t) => t.length > 0);
}

/** The opaque part of a tag, for weak comparison: no `W/` prefix, no surrounding quotes. */
function opaqueTag(tag: string): string {
  const strong = /^w\//i.test(tag) ? tag.slice(2) : tag;
  return strong.length >= 2 && strong.startsWith('"') && strong.endsWith('"') ? strong.slice(1, -1) : strong;
}

/** If-None-Match matches (weak `W/"x"`, strong `"x"`, bare `x`, comma lists, `*`). */
export function ifNoneMatchMatches(ifNoneMatch: string, etag: string): boolean {
  // What a polling SDK sends back: the served tag itself (the common case, checked first).
  if (ifNoneMatch === etag && etag !== '') return true;
  const current = opaqueTag(etag.trim());
  if (current === '') return false;
  return listedTags(ifNoneMatch).some((tag) => tag === '*' || opaqueTag(tag) === current);
}

/** ETags of the definitions body and the If-None-Match check (src/flags/definitions/etag.ts). */
import { describe, expect, it } from 'vitest';
import { definitionsEtag, ifNoneMatchMatches } from '../../src/flags/definitions/etag.js';

describe('definitionsEtag', () => {
  it('is a weak tag of 16 hex digits of the body text', () => {
    const tag = definitionsEtag('{"flags":[]}');
    expect(tag).toMatch(/^W\/"[0-9a-f]{16}"$/);
    // The first 16 hex digits of sha256('{"flags":[]}'), as PostHog's HyperCache keeps them.
    expect(tag).toBe('W/"ccbb299897f0a689"');
  });

  it('is stable for equal text and differs for different text', () => {
    const body = '{"flags":[],"group_type_mapping":{},"cohorts":{}}';
    expect(definitionsEtag(body)).toBe(definitionsEtag(String(body)));
    expect(definitionsEtag(body)).not.toBe(definitionsEtag(body.replace('[]', '[ ]')));
    expect(definitionsEtag('é')).not.toBe(definitionsEtag('e'));
  });
});

describe('ifNoneMatchMatches', () => {
  const etag = 'W/"0123456789abcdef"';

  it('matches the weak, strong and bare forms of the current tag', () => {
    for (const header of ['W/"0123456789abcdef"', '"0123456789abcdef"', '0123456789abcdef', ' W/"0123456789abcdef" ']) {
      expect(ifNoneMatchMatches(header, etag), header).toBe(true);
    }
  });

  it('matches within a comma list and on *', () => {
    expect(ifNoneMatchMatches('"aaaa", W/"0123456789abcdef"', etag)).toBe(true);
    expect(ifNoneMatchMatches('W/"x",0123456789abcdef', etag)).toBe(true);
    expect(ifNoneMatchMatches('*', etag)).toBe(true);
    expect(ifNoneMatchMatches(' * ', etag)).toBe(true);
  });

  it('does not match other tags, prefixes or empty values', () => {
    for (const header of ['', ' ', ',', 'W/"0123456789abcde"', '"0123456789abcdef0"', '"aaaa", "bbbb"', 'W/""']) {
      expect(ifNoneMatchMatches(header, etag), header).toBe(false);
    }
  });

  it('does not split on commas inside quotes', () => {
    expect(ifNoneMatchMatches('"a,0123456789abcdef"', etag)).toBe(false);
    expect(ifNoneMatchMatches('"a,b"', 'W/"a,b"')).toBe(true);
  });

  it('accepts the tag definitionsEtag produced', () => {
    const tag = definitionsEtag('body');
    expect(ifNoneMatchMatches(tag, tag)).toBe(true);
    expect(ifNoneMatchMatches(tag.slice(2), tag)).toBe(true);
    expect(ifNoneMatchMatches(definitionsEtag('other'), tag)).toBe(false);
  });
});

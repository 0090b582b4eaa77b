import { describe, expect, it } from 'vitest';
import { parseCompressionHint, queryCompressionHint } from '../../src/wire/compression-hint.js';
import { vectorsFor } from './ingestion-vectors.js';

const EXPECTED: Record<string, string> = {
  Gzip: 'gzip',
  LZString: 'lz64',
  Base64: 'base64',
  Unsupported: 'unsupported',
};

describe('parseCompressionHint', () => {
  const vectors = vectorsFor('Compression deserialize (query param / form field `compression`)');

  it('covers vectors 61-72', () => {
    expect(vectors.map((v) => v.id)).toEqual([61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72]);
  });

  for (const v of vectors) {
    it(`vector ${v.id}: ${JSON.stringify(v.input.compression)}`, () => {
      const expected = v.expected.compression;
      // null in the vector = no parameter at all, which is our 'unsupported' (no hint)
      const want = expected === null ? 'unsupported' : EXPECTED[expected as string];
      expect(parseCompressionHint(v.input.compression as string | null)).toBe(want);
    });
  }

  it('trims and accepts mixed case', () => {
    expect(parseCompressionHint(' Gzip-JS ')).toBe('gzip');
    expect(parseCompressionHint('Lz-String')).toBe('lz64');
    expect(parseCompressionHint('B64')).toBe('base64');
    expect(parseCompressionHint(undefined)).toBe('unsupported');
    expect(parseCompressionHint('deflate')).toBe('unsupported');
  });
});

describe('queryCompressionHint', () => {
  it("reads a raw query's `compression` parameter, as capture's query reading does", () => {
    expect(queryCompressionHint('')).toBe('unsupported');
    expect(queryCompressionHint('v=2&config=true')).toBe('unsupported');
    expect(queryCompressionHint('compression=gzip-js&data=eyJ9')).toBe('gzip');
    expect(queryCompressionHint('_=1700000000000&compression=LZ64')).toBe('lz64');
    expect(queryCompressionHint('compression=b%36%34')).toBe('base64');
    expect(queryCompressionHint('compression=deflate')).toBe('unsupported');
  });
});

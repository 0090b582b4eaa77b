import { describe, expect, it } from 'vitest';
import { extractDistinctId, normalizeDistinctId } from '../../src/ingest/distinct-id.js';
import { parseCaptureBody } from '../../src/ingest/parse-body.js';
import { vectorPath, vectorsFor } from './ingestion-vectors.js';

/** Builds the templated distinct_id inputs of vectors 80-84. */
function templated(input: string): string {
  let m = /^'(.)' x (\d+)$/.exec(input);
  if (m) return m[1]!.repeat(Number(m[2]));
  m = /^U\+([0-9A-F]{4}) x (\d+)/.exec(input);
  if (m) return String.fromCodePoint(parseInt(m[1]!, 16)).repeat(Number(m[2]));
  m = /^'(.*)'$/.exec(input);
  if (m) return m[1]!;
  throw new Error(`unknown template ${input}`);
}

describe('RawEvent::extract_distinct_id vectors (41-52, 75-79)', () => {
  const vectors = vectorsFor('RawEvent::extract_distinct_id');
  it('covers 41-52 and 75-79', () => {
    expect(vectors.map((v) => v.id)).toEqual([41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 75, 76, 77, 78, 79]);
  });

  for (const v of vectors) {
    it(`vector ${v.id}: ${JSON.stringify(v.input)}`, () => {
      if ('body_template' in v.input) {
        // vector 52: 222 alphanumerics in an array request, cut to the first 200
        const long = 'aB3'.repeat(74);
        const template = v.input.body_template as string;
        const body = template.replace('<222 ASCII alphanumerics>', long);
        expect(body).not.toBe(template);
        const [event] = parseCaptureBody(body, '/e/').events;
        expect(v.expected.distinct_id).toBe('<first 200 chars>');
        expect(extractDistinctId(event!)).toBe(long.slice(0, 200));
      } else if ('body' in v.input) {
        const [event] = parseCaptureBody(v.input.body as string, vectorPath(v.input)).events;
        const got = extractDistinctId(event!);
        if (v.expected.error === 'MissingDistinctId') expect(got).toBeUndefined();
        else expect(got).toBe(v.expected.distinct_id);
      } else {
        const want = v.expected.distinct_id;
        expect(normalizeDistinctId(v.input.distinct_id)).toBe(want === null ? undefined : want);
      }
    });
  }
});

describe('RawEvent::extract_distinct_id_checked vectors (80-84)', () => {
  const vectors = vectorsFor('RawEvent::extract_distinct_id_checked');
  it('covers 80-84', () => expect(vectors.map((v) => v.id)).toEqual([80, 81, 82, 83, 84]));

  for (const v of vectors) {
    it(`vector ${v.id}: ${v.input.distinct_id as string}`, () => {
      const input = templated(v.input.distinct_id as string);
      const got = normalizeDistinctId(input);
      const truncatedFrom = v.expected.truncated_from_chars as number | null;
      if (truncatedFrom === null) {
        expect(got).toBe(input);
      } else {
        expect(Array.from(input)).toHaveLength(truncatedFrom);
        expect(got).toBe(Array.from(input).slice(0, 200).join(''));
        expect(Array.from(got!)).toHaveLength(200);
      }
    });
  }
});

describe('normalizeDistinctId', () => {
  it('stringifies containers with sorted keys at every level', () => {
    expect(normalizeDistinctId({ b: { z: 1, a: [{ y: 2, x: 1 }] }, a: null })).toBe('{"a":null,"b":{"a":[{"x":1,"y":2}],"z":1}}');
    expect(normalizeDistinctId(['b', 'a', 1])).toBe('["b","a",1]');
  });

  it('keeps a __proto__ key as data', () => {
    expect(normalizeDistinctId(JSON.parse('{"__proto__":{"x":1},"a":2}'))).toBe('{"__proto__":{"x":1},"a":2}');
  });

  it('stringifies booleans and numbers', () => {
    expect(normalizeDistinctId(true)).toBe('true');
    expect(normalizeDistinctId(0)).toBe('0');
    expect(normalizeDistinctId(-1.5)).toBe('-1.5');
  });

  it('replaces NUL with U+FFFD and treats blank as missing', () => {
    expect(normalizeDistinctId('a\u0000b')).toBe('a\uFFFDb');
    expect(normalizeDistinctId('')).toBeUndefined();
    expect(normalizeDistinctId(' \u00a0\t')).toBeUndefined();
    expect(normalizeDistinctId(null)).toBeUndefined();
    expect(normalizeDistinctId(undefined)).toBeUndefined();
  });

  it('counts code points, never splitting a surrogate pair', () => {
    const emoji = '😀'.repeat(250); // 500 UTF-16 units
    expect(normalizeDistinctId(emoji)).toBe('😀'.repeat(200));
    const mixed = 'a'.repeat(199) + '😀😀';
    expect(normalizeDistinctId(mixed)).toBe('a'.repeat(199) + '😀');
  });

  it('prefers top-level, then $distinct_id, then properties', () => {
    expect(extractDistinctId({ distinct_id: 'a', $distinct_id: 'b', properties: { distinct_id: 'c' } })).toBe('a');
    expect(extractDistinctId({ distinct_id: null, $distinct_id: 'b', properties: { distinct_id: 'c' } })).toBe('b');
    expect(extractDistinctId({ properties: { distinct_id: 'c' } })).toBe('c');
    expect(extractDistinctId({ distinct_id: '', properties: { distinct_id: 'c' } })).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { parseCaptureQuery } from '../../src/ingest/capture-query.js';
import { VECTORS } from './ingestion-vectors.js';

function toQueryString(q: Record<string, unknown>): string {
  return new URLSearchParams(Object.entries(q).map(([k, v]) => [k, String(v)])).toString();
}

describe('parseCaptureQuery', () => {
  const vectors = VECTORS.filter((v) => v.function === 'EventQuery beacon' || v.function === 'EventQuery');

  it('covers vectors 115-118', () => {
    expect(vectors.map((v) => v.id)).toEqual([115, 116, 117, 118]);
  });

  for (const v of vectors) {
    it(`vector ${v.id}: ${v.description}`, () => {
      const q = parseCaptureQuery(toQueryString(v.input.query as Record<string, unknown>));
      if ('beacon' in v.expected) expect(q.beacon).toBe(v.expected.beacon);
      if ('compression' in v.expected) {
        expect(v.expected.compression).toBeNull();
        expect(q.compression).toBe('unsupported');
      }
    });
  }

  it('reads data, compression, sent_at, _ and project_id', () => {
    const q = parseCaptureQuery('data=%7B%22a%22%3A1%7D&compression=GZIP-JS&_=1704067200000&ver=1.2.3&project_id=42');
    expect(q).toEqual({
      data: '{"a":1}',
      compression: 'gzip',
      sentAtMs: 1704067200000,
      beacon: false,
      projectId: 42,
    });
  });

  it('prefers sent_at over _ and ignores seconds', () => {
    expect(parseCaptureQuery('sent_at=1704067200001&_=1704067200000').sentAtMs).toBe(1704067200001);
    expect(parseCaptureQuery('sent_at=1704067200').sentAtMs).toBeUndefined();
    expect(parseCaptureQuery('sent_at=abc').sentAtMs).toBeUndefined();
  });

  it('returns the empty query for an empty string', () => {
    expect(parseCaptureQuery('')).toEqual({
      data: '',
      compression: 'unsupported',
      sentAtMs: undefined,
      beacon: false,
      projectId: undefined,
    });
  });
});

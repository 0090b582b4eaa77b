import { describe, expect, it } from 'vitest';
import { parseCaptureBody } from '../../src/ingest/parse-body.js';
import { extractToken, validateTokenShape } from '../../src/ingest/token.js';
import { expectHedgerowError, vectorsFor } from './ingestion-vectors.js';

const REASONS: Record<string, string> = {
  Empty: 'empty',
  TooLong: 'too_long',
  NotAscii: 'not_ascii',
  PersonalApiKey: 'personal_api_key',
  NullByte: 'null_byte',
};

describe('extract_and_verify_token vectors (53-60)', () => {
  const vectors = vectorsFor('extract_and_verify_token');
  it('covers 53-60', () => expect(vectors.map((v) => v.id)).toEqual([53, 54, 55, 56, 57, 58, 59, 60]));

  for (const v of vectors) {
    it(`vector ${v.id}: ${v.input.body as string}`, () => {
      const parsed = parseCaptureBody(v.input.body as string, '/i/v0/e');
      const error = v.expected.error as string | undefined;
      if (error === 'MultipleTokensError') {
        expect(expectHedgerowError(() => extractToken(parsed), 'HR_INCONSISTENT_API_KEYS').status).toBe(401);
        return;
      }
      const token = extractToken(parsed);
      if (error === 'NoTokenError') {
        expect(token).toBeUndefined();
        return;
      }
      const shape = validateTokenShape(token as string);
      const m = error === undefined ? null : /^TokenValidationError\((\w+)\)$/.exec(error);
      if (m) expect(shape).toEqual({ ok: false, reason: REASONS[m[1]!] });
      else expect(shape).toEqual({ ok: true, token: v.expected.token });
    });
  }
});

describe('validate_token vectors (85-93)', () => {
  const vectors = vectorsFor('validate_token');
  it('covers 85-93', () => expect(vectors.map((v) => v.id)).toEqual([85, 86, 87, 88, 89, 90, 91, 92, 93]));

  for (const v of vectors) {
    it(`vector ${v.id}: ${JSON.stringify(v.input.token)}`, () => {
      const result = v.expected.result as string;
      const shape = validateTokenShape(v.input.token as string);
      if (result.startsWith('ok: ')) expect(shape).toEqual({ ok: true, token: result.slice(4) });
      else expect(shape).toEqual({ ok: false, reason: REASONS[result] });
    });
  }

  it('accepts exactly 64 characters', () => {
    expect(validateTokenShape('x'.repeat(64))).toEqual({ ok: true, token: 'x'.repeat(64) });
  });
});

describe('extractToken', () => {
  it('reads token, $token, api_key, then properties.token, in that order', () => {
    const ev = (e: Record<string, unknown>) => extractToken({ events: [e], batchToken: undefined });
    expect(ev({ token: 'a', $token: 'b', api_key: 'c', properties: { token: 'd' } })).toBe('a');
    expect(ev({ $token: 'b', api_key: 'c', properties: { token: 'd' } })).toBe('b');
    expect(ev({ api_key: 'c', properties: { token: 'd' } })).toBe('c');
    expect(ev({ properties: { token: 'd', $token: 'e' } })).toBe('d');
    expect(ev({ properties: { $token: 'e' } })).toBeUndefined();
    expect(ev({ properties: { token: 5 } })).toBeUndefined();
  });

  it('accepts events without a token under the one token the others carry', () => {
    const events = [{ event: 'a' }, { event: 'b', properties: { token: 't' } }, { event: 'c', token: 't' }];
    expect(extractToken({ events, batchToken: undefined })).toBe('t');
  });

  it('lets the batch key win over disagreeing event tokens', () => {
    const events = [{ token: 'x' }, { token: 'y' }];
    expect(extractToken({ events, batchToken: 'b' })).toBe('b');
  });
});

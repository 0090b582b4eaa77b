import { gzipSync } from 'node:zlib';
import LZString from 'lz-string';
import { describe, expect, it } from 'vitest';
import { decodeFlagsBody, replaceNonFiniteLiterals, type FlagsHttpInput } from '../../src/flag-requests/decode-flags-body.js';
import { expectHedgerowError } from './ingestion-vectors.js';

const CAP = 1024 * 1024;
const FORM = 'application/x-www-form-urlencoded';

// Chosen so that its base64 contains '+', which urldecoding turns into a space.
const BODY = { token: 't', distinct_id: 'u1', person_properties: { x: '>>>?' } };
const JSON_TEXT = JSON.stringify(BODY);
const B64 = Buffer.from(JSON_TEXT).toString('base64');
// The same without its '=' padding, as some clients send it.
const B64_UNPADDED = B64.replace(/=+$/, '');

function input(body: Uint8Array | string, over: Partial<Omit<FlagsHttpInput, 'body'>> = {}): FlagsHttpInput {
  return {
    query: '',
    contentType: 'application/json',
    contentEncoding: '',
    body: typeof body === 'string' ? Buffer.from(body, 'utf8') : body,
    ...over,
  };
}

const decode = (i: FlagsHttpInput): unknown => decodeFlagsBody(i, CAP);

describe('decodeFlagsBody: encodings', () => {
  it('checks the fixtures exercise the + quirk', () => {
    expect(B64).toContain('+');
    expect(B64.endsWith('=')).toBe(true);
    expect(B64_UNPADDED).toContain('+');
    expect(B64_UNPADDED.length % 4).not.toBe(0);
  });

  it('plain JSON', () => {
    expect(decode(input(JSON_TEXT))).toEqual(BODY);
  });

  it('plain JSON from a Uint8Array that is not a Buffer, at an offset', () => {
    const bytes = new TextEncoder().encode(`xx${JSON_TEXT}`).subarray(2);
    expect(decode(input(bytes))).toEqual(BODY);
  });

  it('plain JSON whatever the headers and query say', () => {
    const hints = { query: 'compression=gzip', contentEncoding: 'gzip', contentType: FORM };
    expect(decode(input(JSON_TEXT, hints))).toEqual(BODY);
  });

  it('plain JSON with leading whitespace and no content type', () => {
    expect(decode(input(`\n  ${JSON_TEXT}`, { contentType: '' }))).toEqual(BODY);
  });

  it('gzip by Content-Encoding header', () => {
    expect(decode(input(gzipSync(JSON_TEXT), { contentEncoding: 'gzip' }))).toEqual(BODY);
  });

  it('gzip by ?compression=gzip and gzip-js', () => {
    expect(decode(input(gzipSync(JSON_TEXT), { query: 'compression=gzip' }))).toEqual(BODY);
    expect(decode(input(gzipSync(JSON_TEXT), { query: 'v=2&compression=gzip-js' }))).toEqual(BODY);
  });

  it('gzip by magic bytes alone', () => {
    expect(decode(input(gzipSync(JSON_TEXT), { contentType: 'text/plain' }))).toEqual(BODY);
  });

  it('lz64 by ?compression=lz64', () => {
    const lz = LZString.compressToBase64(JSON_TEXT);
    expect(decode(input(lz, { query: 'compression=lz64', contentType: 'text/plain' }))).toEqual(BODY);
  });

  it('lz64 in a form with compression=lz64', () => {
    const lz = LZString.compressToBase64(JSON_TEXT);
    const form = `data=${encodeURIComponent(lz)}&compression=lz64`;
    expect(decode(input(form, { contentType: FORM }))).toEqual(BODY);
  });

  it('form data= with base64, urlencoded', () => {
    expect(decode(input(`data=${encodeURIComponent(B64)}`, { contentType: FORM }))).toEqual(BODY);
  });

  it("form data= with raw base64: '+' read as space is put back", () => {
    expect(decode(input(`data=${B64}`, { contentType: FORM }))).toEqual(BODY);
    expect(decode(input(`data=${B64}&compression=base64`, { contentType: FORM }))).toEqual(BODY);
  });

  it("form data= with unpadded raw base64: '+' put back, padding added (Rust fallback)", () => {
    expect(decode(input(`data=${B64_UNPADDED}`, { contentType: FORM }))).toEqual(BODY);
  });

  it('form content type with the base64 body and no data= prefix', () => {
    expect(decode(input(B64, { contentType: `${FORM}; charset=utf-8` }))).toEqual(BODY);
  });

  it('whole-body base64', () => {
    expect(decode(input(B64))).toEqual(BODY);
    expect(decode(input(B64, { query: 'compression=base64' }))).toEqual(BODY);
  });

  it('whole-body base64 without padding, and percent-encoded (Rust fallback)', () => {
    expect(decode(input(B64_UNPADDED))).toEqual(BODY);
    const pct = B64.replace(/=+$/, (m) => '%3D'.repeat(m.length));
    expect(decode(input(pct, { query: 'compression=base64' }))).toEqual(BODY);
  });

  it('whole-body base64 of a gzip body', () => {
    const b64gz = gzipSync(JSON_TEXT).toString('base64');
    expect(decode(input(b64gz))).toEqual(BODY);
  });

  it('NaN, Infinity and -Infinity outside strings read as null', () => {
    const text = '{"token":"t","person_properties":{"a":NaN,"b":Infinity,"c":-Infinity,"d":"NaN \\"Infinity\\"","e":[1,NaN]}}';
    expect(decode(input(text))).toEqual({
      token: 't',
      person_properties: { a: null, b: null, c: null, d: 'NaN "Infinity"', e: [1, null] },
    });
    expect(decode(input(gzipSync(text)))).toEqual(decode(input(text)));
  });

  it('invalid UTF-8 is replaced, not refused (Rust from_utf8_lossy)', () => {
    const bytes = Buffer.concat([Buffer.from('{"token":"t","distinct_id":"a'), Buffer.from([0xff]), Buffer.from('"}')]);
    expect(decode(input(bytes))).toEqual({ token: 't', distinct_id: 'a\uFFFD' });
    expect(decode(input(gzipSync(bytes)))).toEqual({ token: 't', distinct_id: 'a\uFFFD' });
  });

  it('returns non-object JSON as is (parseFlagsRequest refuses it)', () => {
    expect(decode(input('[1,2]'))).toEqual([1, 2]);
    expect(decode(input('"x"'))).toBe('x');
  });
});

describe('decodeFlagsBody: errors', () => {
  it('empty body', () => {
    const err = expectHedgerowError(() => decode(input('')), 'HR_FLAGS_EMPTY_BODY');
    expect(err.status).toBe(400);
    expect(err.toBody()).toEqual({
      type: 'validation_error',
      code: 'malformed_data',
      detail: 'Malformed request data: empty request body',
      attr: null,
    });
  });

  it('bad JSON', () => {
    expectHedgerowError(() => decode(input('{"token":')), 'HR_FLAGS_INVALID_JSON');
    expectHedgerowError(() => decode(input('not json at all')), 'HR_FLAGS_INVALID_JSON');
    expectHedgerowError(() => decode(input('abcd')), 'HR_FLAGS_INVALID_JSON'); // base64, but not of JSON
  });

  it('corrupt gzip', () => {
    const gz = gzipSync(JSON_TEXT);
    const err = expectHedgerowError(() => decode(input(gz.subarray(0, 12))), 'HR_FLAGS_MALFORMED');
    expect(err.message).toMatch(/^Malformed request data: /);
  });

  it('invalid lz64', () => {
    expectHedgerowError(() => decode(input('////', { query: 'compression=lz64' })), 'HR_FLAGS_INVALID_LZ64');
  });

  it('empty form data', () => {
    expectHedgerowError(() => decode(input('data=', { contentType: FORM })), 'HR_FLAGS_MALFORMED');
  });

  it('over the decompressed cap -> 413', () => {
    const big = JSON.stringify({ token: 't', pad: 'x'.repeat(5000) });
    expectHedgerowError(() => decodeFlagsBody(input(big), 1000), 'HR_PAYLOAD_OVER_BUDGET');
    expectHedgerowError(() => decodeFlagsBody(input(gzipSync(big)), 1000), 'HR_DECOMPRESSED_TOO_LARGE');
    const lz = LZString.compressToBase64(big);
    expectHedgerowError(() => decodeFlagsBody(input(lz, { query: 'compression=lz64' }), 1000), 'HR_LZ64_TOO_LARGE');
  });
});

describe('replaceNonFiniteLiterals', () => {
  it('leaves text without them alone', () => {
    expect(replaceNonFiniteLiterals('{"a":-1,"b":"NaN"}')).toBeUndefined();
  });

  it('replaces at the edges and after escapes', () => {
    expect(replaceNonFiniteLiterals('NaN')).toBe('null');
    expect(replaceNonFiniteLiterals('["\\\\",Infinity]')).toBe('["\\\\",null]');
  });
});

import { gzipSync } from 'node:zlib';
import LZString from 'lz-string';
import { describe, expect, it } from 'vitest';
import { type ErrorCode, ERRORS } from '../../src/errors.js';
import { parseCaptureQuery } from '../../src/ingest/capture-query.js';
import { decodePayload } from '../../src/ingest/decode-payload.js';
import {
  decodedLimit,
  decompressPayload,
  gunzipCapped,
  INFLATE_UNMEASURED_MAX_BYTES,
  isOverDecodedLimit,
  isUndecodable,
} from '../../src/wire/decompress-payload.js';
import { extractPayloadBytes, isFormContentType, looksLikeForm } from '../../src/wire/extract-payload.js';
import { DECODED_FLOOR_BYTES, MAX_DECODED_RATIO } from '../../src/limits.js';
import { lz64Bomb } from '../helpers/lz64-bomb.js';
import { expectHedgerowError, request, vectorsFor } from './ingestion-vectors.js';

/** The decoded payload's text (what the capture pipeline parses). */
const decodeText = (...args: Parameters<typeof decodePayload>): string => decodePayload(...args).text;

const MiB = 1024 * 1024;
const CAP = 5 * MiB;
const b64 = (s: string | Buffer): string => Buffer.from(s).toString('base64');

// Chosen so that its base64 contains '+', which urldecoding turns into a space.
const JSON_WITH_PLUS = '{"event":"a","distinct_id":"u1","properties":{"token":"t","x":">>>?"}}';
const JSON_WITH_PLUS_B64 = b64(JSON_WITH_PLUS);

describe('extract_payload_bytes vectors (108-112)', () => {
  const vectors = vectorsFor('extract_payload_bytes');
  it('covers 108-112', () => expect(vectors.map((v) => v.id)).toEqual([108, 109, 110, 111, 112]));

  for (const v of vectors) {
    it(`vector ${v.id}: ${v.description}`, () => {
      const input = v.input;
      const headers = input.headers as Record<string, string>;
      const query = new URLSearchParams(input.query as Record<string, string>).toString();
      const req = request({
        method: input.method as 'GET' | 'POST',
        query,
        contentType: headers['content-type'] ?? '',
        body: Buffer.from(input.body as string),
      });
      if (v.expected.error === 'EmptyPayload') {
        expectHedgerowError(() => extractPayloadBytes(req, parseCaptureQuery(query)), 'HR_EMPTY_PAYLOAD');
        expectHedgerowError(() => decodeText(req, CAP), 'HR_EMPTY_PAYLOAD');
        return;
      }
      const extracted = extractPayloadBytes(req, parseCaptureQuery(query));
      if ('payload' in v.expected) {
        expect(extracted.bytes.toString('utf8')).toBe(v.expected.payload);
        expect(decodeText(req, CAP)).toBe(v.expected.payload);
      }
      if ('compression' in v.expected) {
        const want = { Unsupported: 'unsupported', Gzip: 'gzip' }[v.expected.compression as string];
        expect(extracted.hint).toBe(want);
      }
    });
  }
});

describe('decompression vectors (119-124)', () => {
  const vectors = [...vectorsFor('decompress_payload(lz64)'), ...vectorsFor('decompress_gzip_to_bytes / decompress_payload')];
  it('covers 119-124', () => expect(vectors.map((v) => v.id)).toEqual([119, 120, 121, 122, 123, 124]));

  const lz64 = vectors.find((v) => v.id === 119)!;
  it(`vector 119: ${lz64.description}`, () => {
    const plain = lz64.input.body_plain as string;
    const req = request({
      path: lz64.input.path as string,
      query: `compression=${lz64.input.compression as string}`,
      contentType: 'text/plain',
      body: Buffer.from(LZString.compressToBase64(plain)),
    });
    expect(decodeText(req, CAP)).toBe(lz64.expected.payload);
  });

  for (const v of vectors.filter((x) => x.id !== 119)) {
    it(`vector ${v.id}: ${v.description}`, () => {
      const plain = v.input.plain as string;
      const limit = v.input.limit as number;
      let run: () => unknown;
      let tooLarge: ErrorCode = 'HR_DECOMPRESSED_TOO_LARGE';
      let m: RegExpExecArray | null;
      if ((m = /^(\d+) zero bytes$/.exec(plain))) {
        run = () => gunzipCapped(gzipSync(Buffer.alloc(Number(m![1]))), limit);
      } else if ((m = /^(\d+) x 'A' \(lz64\)$/.exec(plain))) {
        const text = LZString.compressToBase64('A'.repeat(Number(m[1])));
        run = () => decompressPayload({ bytes: Buffer.from(text), hint: 'lz64', base64Decoded: false, formToken: undefined }, limit);
        tooLarge = 'HR_LZ64_TOO_LARGE';
      } else if ((m = /^(\d+) x 'A'$/.exec(plain))) {
        run = () => gunzipCapped(gzipSync(Buffer.alloc(Number(m![1]), 'A')), limit);
      } else {
        run = () => gunzipCapped(Buffer.from(plain), limit);
      }
      if (v.expected.error === 'EventTooBig') expectHedgerowError(run, tooLarge);
      else if (v.expected.error === 'RequestDecodingError') expectHedgerowError(run, 'HR_GZIP_INVALID');
      else expect((run() as Buffer).length).toBe(v.expected.length);
    });
  }
});

describe('decodePayload', () => {
  it("keeps a form's api_key (else token) field for requests whose JSON has no key", () => {
    const form = (body: string) => request({ contentType: 'application/x-www-form-urlencoded', body: Buffer.from(body) });
    const data = encodeURIComponent('{"event":"x"}');
    expect(decodePayload(form(`data=${data}&api_key=phc_a&token=phc_b`), CAP)).toEqual({ text: '{"event":"x"}', formToken: 'phc_a' });
    expect(decodePayload(form(`token=phc_b&data=${data}`), CAP).formToken).toBe('phc_b');
    expect(decodePayload(form(`data=${data}`), CAP).formToken).toBeUndefined();
    expect(decodePayload(request({ body: Buffer.from('{"event":"x","api_key":"phc_c"}') }), CAP).formToken).toBeUndefined();
  });

  it('passes a plain JSON body through', () => {
    expect(decodeText(request({ body: Buffer.from('{"event":"x"}') }), CAP)).toBe('{"event":"x"}');
  });

  it('prefers query data= over the body on POST too', () => {
    const req = request({ query: 'data=%7B%22q%22%3A1%7D', body: Buffer.from('{"b":1}') });
    expect(decodeText(req, CAP)).toBe('{"q":1}');
  });

  it('restores + in a form data= base64 value that urldecoding turned into spaces (legacy path)', () => {
    expect(JSON_WITH_PLUS_B64).toContain('+');
    const req = request({
      path: '/e/',
      contentType: 'application/x-www-form-urlencoded',
      body: Buffer.from(`data=${JSON_WITH_PLUS_B64}`), // '+' not percent-encoded
    });
    expect(decodeText(req, CAP)).toBe(JSON_WITH_PLUS);
  });

  it('decodes a base64 form under a compression=base64 hint on a non-legacy path', () => {
    const req = request({
      path: '/i/v0/e/',
      query: 'compression=base64',
      contentType: 'application/x-www-form-urlencoded; charset=UTF-8',
      body: Buffer.from(`data=${encodeURIComponent(JSON_WITH_PLUS_B64)}&ver=1.2.3`),
    });
    expect(decodeText(req, CAP)).toBe(JSON_WITH_PLUS);
  });

  it('takes the hint from the form compression field', () => {
    const req = request({
      path: '/batch/',
      contentType: 'application/x-www-form-urlencoded',
      body: Buffer.from(`compression=b64&data=${JSON_WITH_PLUS_B64}`),
    });
    expect(extractPayloadBytes(req, parseCaptureQuery('')).hint).toBe('base64');
    expect(decodeText(req, CAP)).toBe(JSON_WITH_PLUS);
  });

  it('repairs spaces in GET data= base64 too', () => {
    const req = request({ method: 'GET', path: '/e/', query: `data=${JSON_WITH_PLUS_B64}` });
    expect(decodeText(req, CAP)).toBe(JSON_WITH_PLUS);
  });

  it('sniffs a whole-body base64 payload on any path', () => {
    const req = request({ path: '/batch/', contentType: 'text/plain', body: Buffer.from(JSON_WITH_PLUS_B64) });
    expect(decodeText(req, CAP)).toBe(JSON_WITH_PLUS);
  });

  it('reads null, true and bare digits as the JSON they are, not as base64 (which would not be UTF-8)', () => {
    for (const text of ['null', 'true', '1234', '1e+5', '12345678']) {
      expect(decodeText(request({ path: '/batch/', contentType: 'application/json', body: Buffer.from(text) }), CAP)).toBe(text);
      expect(decodeText(request({ path: '/e/', query: `data=${text}` }), CAP)).toBe(text);
    }
    // Anything else that looks like base64 is still decoded as such
    expect(decodeText(request({ body: Buffer.from(b64('{"event":"n"}')) }), CAP)).toBe('{"event":"n"}');
  });

  it('keeps the bytes when the sniffed base64 does not decode', () => {
    // looks like base64 (alphabet, length % 4 == 0) but the padding is misplaced
    const req = request({ path: '/batch/', body: Buffer.from('ab=c') });
    expect(decodeText(req, CAP)).toBe('ab=c');
  });

  it('decodes base64 twice on every path (capture-rs: on its legacy paths only)', () => {
    const twice = b64(b64('{"event":"x"}'));
    for (const path of ['/e/', '/capture/', '/batch/', '/i/v0/e/', '/track/', '/engage/']) {
      expect(decodeText(request({ path, body: Buffer.from(twice) }), CAP)).toBe('{"event":"x"}');
    }
  });

  it('reads a form data=<base64> without a hint on every path', () => {
    const form = `data=${encodeURIComponent(JSON_WITH_PLUS_B64)}`;
    for (const path of ['/e/', '/capture/', '/batch/', '/i/v0/e/', '/track/', '/engage/']) {
      const req = request({ path, contentType: 'application/x-www-form-urlencoded', body: Buffer.from(form) });
      expect(decodeText(req, CAP)).toBe(JSON_WITH_PLUS);
    }
  });

  it('detects gzip by magic bytes without any hint (posthog-js text/plain)', () => {
    const req = request({ path: '/e/', contentType: 'text/plain', body: gzipSync('{"event":"g"}') });
    expect(decodeText(req, CAP)).toBe('{"event":"g"}');
  });

  it('gunzips with a Content-Encoding: gzip header', () => {
    const req = request({ path: '/batch/', contentEncoding: 'gzip', body: gzipSync('[{"event":"g"}]') });
    expect(decodeText(req, CAP)).toBe('[{"event":"g"}]');
  });

  it('falls back to plain decoding when a gzip hint is wrong (capture-rs dump case)', () => {
    const form = request({
      path: '/e/',
      query: 'compression=gzip-js&ver=1.2.3',
      contentType: 'application/x-www-form-urlencoded',
      body: Buffer.from(`data=${encodeURIComponent(b64('{"event":"f"}'))}`),
    });
    expect(decodeText(form, CAP)).toBe('{"event":"f"}');
    const json = request({ path: '/batch/', contentEncoding: 'gzip', body: Buffer.from('{"event":"j"}') });
    expect(decodeText(json, CAP)).toBe('{"event":"j"}');
  });

  it('decodes lz64 from an old posthog-js form whose + became spaces', () => {
    const plain = '[{"event":"$pageview","distinct_id":"u1","properties":{"token":"abc"}}]';
    const lz = LZString.compressToBase64(plain);
    expect(lz).toContain('+');
    const req = request({
      path: '/e/',
      contentType: 'application/x-www-form-urlencoded',
      body: Buffer.from(`data=${lz}&compression=lz64`),
    });
    expect(decodeText(req, CAP)).toBe(plain);
  });

  it('refuses invalid lz64 data with 400', () => {
    const req = request({ query: 'compression=lz64', body: Buffer.from('!!!!') });
    expectHedgerowError(() => decodeText(req, CAP), 'HR_LZ64_INVALID');
  });

  it('a wrong base64 hint falls back to the bytes as sent (capture-rs ignores it, Django tries it)', () => {
    const form = request({
      query: 'compression=base64',
      contentType: 'application/x-www-form-urlencoded',
      body: Buffer.from('data=abc%24'),
    });
    expect(decodeText(form, CAP)).toBe('abc$');
    const raw = request({ contentEncoding: 'base64', body: Buffer.from('{"event":"x"}') });
    expect(decodeText(raw, CAP)).toBe('{"event":"x"}');
    const hinted = request({ query: 'compression=b64', body: Buffer.from('[{"event":"y"}]') });
    expect(decodeText(hinted, CAP)).toBe('[{"event":"y"}]');
  });

  it('accepts a base64 hint when the sniff already decoded the body', () => {
    const req = request({ query: 'compression=base64', body: Buffer.from(b64('{"event":"s"}')) });
    expect(decodeText(req, CAP)).toBe('{"event":"s"}');
  });

  it('refuses truncated gzip with 400', () => {
    const gz = gzipSync('{"event":"truncated","properties":{"a":1}}');
    const req = request({ body: gz.subarray(0, gz.length - 6) });
    expect(expectHedgerowError(() => decodeText(req, CAP), 'HR_GZIP_INVALID').status).toBe(400);
  });

  it('refuses corrupt gzip after the magic bytes with 400', () => {
    const req = request({ body: Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0xde, 0xad, 0xbe, 0xef]) });
    expectHedgerowError(() => decodeText(req, CAP), 'HR_GZIP_INVALID');
  });

  it('refuses invalid UTF-8, plain or gzipped, with 400', () => {
    const bad = Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
    expectHedgerowError(() => decodeText(request({ body: bad }), CAP), 'HR_PAYLOAD_NOT_UTF8');
    expectHedgerowError(() => decodeText(request({ body: gzipSync(bad) }), CAP), 'HR_GZIP_NOT_UTF8');
  });

  it('answers 413 quickly for a gzip bomb (50 MiB of zeros, 1 MiB cap)', () => {
    const bomb = gzipSync(Buffer.alloc(50 * MiB));
    expect(bomb.length).toBeLessThan(100 * 1024);
    const started = performance.now();
    const err = expectHedgerowError(() => decodeText(request({ body: bomb }), MiB), 'HR_DECOMPRESSED_TOO_LARGE');
    const elapsed = performance.now() - started;
    expect(err.status).toBe(413);
    expect(elapsed).toBeLessThan(100); // a full inflate takes ~250 ms here; the cap stops it at ~1 MiB
  });

  it('answers 413 for an lz64 bomb without expanding it', () => {
    // 256 KiB of output from ~1 KiB of input (lz-string's own compressor is too slow for bigger demos)
    const bomb = LZString.compressToBase64('A'.repeat(256 * 1024));
    expect(bomb.length).toBeLessThan(2 * 1024);
    const req = request({ query: 'compression=lz64', body: Buffer.from(bomb) });
    const started = performance.now();
    expectHedgerowError(() => decodeText(req, 4 * 1024), 'HR_LZ64_TOO_LARGE');
    expect(performance.now() - started).toBeLessThan(50);
  });

  it('answers 413 for an uncompressed payload over the cap, and accepts one exactly at it', () => {
    const body = Buffer.from(`{"event":"${'x'.repeat(100)}"}`);
    expectHedgerowError(() => decodeText(request({ body }), body.length - 1), 'HR_PAYLOAD_OVER_BUDGET');
    expect(decodeText(request({ body }), body.length)).toBe(body.toString());
  });

  it('counts the cap in UTF-8 bytes for lz64 output', () => {
    const plain = '€'.repeat(100); // 100 UTF-16 units, 300 UTF-8 bytes
    const req = request({ query: 'compression=lz64', body: Buffer.from(LZString.compressToBase64(plain)) });
    expectHedgerowError(() => decodeText(req, 299), 'HR_PAYLOAD_OVER_BUDGET');
    expect(decodeText(req, 300)).toBe(plain);
  });

  it('reads a body labelled as a form that is not one as a raw payload', () => {
    const req = request({ contentType: 'application/x-www-form-urlencoded', body: Buffer.from('event=x&foo=1') });
    expect(decodeText(req, CAP)).toBe('event=x&foo=1');
  });

  it('reads a gzip body sent with a form content type (curl --data-binary)', () => {
    const req = request({ contentType: 'application/x-www-form-urlencoded', body: gzipSync('{"event":"x"}') });
    expect(decodeText(req, CAP)).toBe('{"event":"x"}');
  });

  it('reads a JSON body sent with a form content type (curl -d) as JSON', () => {
    const req = request({ contentType: 'application/x-www-form-urlencoded', body: Buffer.from(' {"event":"x"}') });
    expect(decodeText(req, CAP)).toBe(' {"event":"x"}');
  });

  it('refuses an empty form data= field as an empty payload', () => {
    const req = request({ contentType: 'application/x-www-form-urlencoded', body: Buffer.from('data=&ver=1') });
    expectHedgerowError(() => decodeText(req, CAP), 'HR_EMPTY_PAYLOAD');
  });
});

/** `bytes` bytes of words picked at random from 16: gzip makes about 5:1 of it. */
function wordy(bytes: number, seed = 1): Buffer {
  const words = ['alpha', 'beta', 'gamma', 'delta', 'eps', 'zeta', 'eta', 'theta', 'iota', 'kappa', 'mu', 'nu', 'xi', 'pi', 'rho', 'tau'];
  const out = Buffer.alloc(bytes, ' ');
  let x = seed;
  for (let at = 0; at < bytes; ) {
    x = (Math.imul(x, 1103515245) + 12345) & 0x7fffffff;
    at += out.write(`${words[(x >>> 16) & 15]} `, at);
  }
  return out;
}

describe('decoded limit: the budget, and past a floor, a ratio to the compressed size', () => {
  const BUDGET = 100 * MiB;

  it('is the floor for small payloads, the ratio for larger ones, never over the budget', () => {
    expect(decodedLimit(1_000, BUDGET)).toBe(DECODED_FLOOR_BYTES);
    expect(decodedLimit(MiB, BUDGET)).toBe(MAX_DECODED_RATIO * MiB);
    expect(decodedLimit(20 * MiB, BUDGET)).toBe(BUDGET);
    expect(decodedLimit(1_000, MiB)).toBe(MiB);
  });

  it('refuses gzip past the floor at more than the ratio, with the reason, well under the budget', () => {
    const bomb = gzipSync(Buffer.alloc(DECODED_FLOOR_BYTES + 1)); // ~4 KB: 1000:1
    const err = expectHedgerowError(() => decodeText(request({ body: bomb }), BUDGET), 'HR_DECOMPRESSED_RATIO');
    expect(err.status).toBe(413);
    expect(err.message).toBe(
      `decompressed payload exceeds ${DECODED_FLOOR_BYTES} bytes: past ${DECODED_FLOOR_BYTES} bytes, a payload may decode ` +
        `to at most ${MAX_DECODED_RATIO} times its compressed size (${bomb.length} bytes)`,
    );
    // The floor itself is accepted at any ratio; past it, text compressed ~10:1 is too.
    expect(decodeText(request({ body: gzipSync(Buffer.alloc(DECODED_FLOOR_BYTES)) }), BUDGET)).toHaveLength(DECODED_FLOOR_BYTES);
    const text = wordy(3 * DECODED_FLOOR_BYTES);
    expect(decodeText(request({ body: gzipSync(text) }), BUDGET)).toBe(text.toString());
  });

  it('refuses lz64 past the floor at more than the ratio, and accepts it within the floor', () => {
    const lz = (tokens: number) => request({ query: 'compression=lz64', body: Buffer.from(lz64Bomb(tokens).text) });
    expect(lz64Bomb(2_800).units).toBeLessThan(DECODED_FLOOR_BYTES);
    expect(decodeText(lz(2_800), BUDGET)).toBe('a'.repeat(lz64Bomb(2_800).units));
    expect(lz64Bomb(3_000).units).toBeGreaterThan(DECODED_FLOOR_BYTES);
    const err = expectHedgerowError(() => decodeText(lz(3_000), BUDGET), 'HR_DECOMPRESSED_RATIO');
    expect(err.message).toContain(`at most ${MAX_DECODED_RATIO} times its compressed size`);
  });

  it('measures a body whose trailer claims less than it holds: a bomb is 413, several members are read', () => {
    const lying = gzipSync(Buffer.alloc(50 * MiB));
    lying.writeUInt32LE(100, lying.length - 4);
    const started = performance.now();
    expectHedgerowError(() => gunzipCapped(lying, 10 * MiB), 'HR_DECOMPRESSED_TOO_LARGE');
    expect(performance.now() - started).toBeLessThan(100); // stops past its claim, then measures
    // A lie within the limit is corrupt gzip, as zlib says: 400
    const small = gzipSync(Buffer.alloc(3 * MiB));
    small.writeUInt32LE(100, small.length - 4);
    expectHedgerowError(() => gunzipCapped(small, 10 * MiB), 'HR_GZIP_INVALID');

    const first = wordy(INFLATE_UNMEASURED_MAX_BYTES + 1000, 2);
    const members = Buffer.concat([gzipSync(first), gzipSync('tail')]);
    expect(gunzipCapped(members, 10 * MiB).toString()).toBe(`${first.toString()}tail`);
    expectHedgerowError(() => gunzipCapped(members, first.length), 'HR_DECOMPRESSED_TOO_LARGE');
  });
});

describe('form helpers', () => {
  it('recognises the form content type leniently', () => {
    expect(isFormContentType('application/x-www-form-urlencoded')).toBe(true);
    expect(isFormContentType('Application/X-WWW-Form-Urlencoded; charset=utf-8')).toBe(true);
    expect(isFormContentType('application/json')).toBe(false);
    expect(isFormContentType('')).toBe(false);
  });

  it('sniffs form keys at the start or after & within 128 bytes', () => {
    expect(looksLikeForm(Buffer.from('data=x'))).toBe(true);
    expect(looksLikeForm(Buffer.from('ver=1&_=123'))).toBe(true);
    expect(looksLikeForm(Buffer.from('ver=1&compression=lz64'))).toBe(true);
    expect(looksLikeForm(Buffer.from('ver=1.2.3'))).toBe(false);
    expect(looksLikeForm(Buffer.from(`${'v'.repeat(130)}&data=x`))).toBe(false);
    expect(looksLikeForm(Buffer.from('{"data=":1}'))).toBe(false);
  });
});

describe('refusal families', () => {
  it('name every catalogue entry of an undecodable payload, and every 413 of the decoded budget', () => {
    for (const [code, e] of Object.entries(ERRORS) as [ErrorCode, (typeof ERRORS)[ErrorCode]][]) {
      expect(isUndecodable(code), code).toBe(e.message.startsWith('failed to decode request: '));
      expect(isOverDecodedLimit(code), code).toBe(e.code === 'payload_too_large' && code !== 'HR_BODY_TOO_LARGE');
    }
  });
});

/**
 * Which capture requests the main thread decodes itself: only small plain JSON. Anything the
 * pipeline could expand (gzip, base64 of gzip, lz64, forms; a query naming a compression, even
 * percent-encoded) goes to a worker, so a 4 KB body cannot become seconds of main-thread work.
 */
import { gzipSync } from 'node:zlib';
import { compressToBase64 } from 'lz-string';
import { describe, expect, it } from 'vitest';
import type { CaptureRequest } from '../../src/ingest/types.js';
import { runsInline } from '../../src/pool/ingest-pool.js';

const json = JSON.stringify({ api_key: 'phc_inlinetest01', batch: [{ event: 'e', distinct_id: 'a' }] });

function req(body: string | Uint8Array, extra: Partial<CaptureRequest> = {}): CaptureRequest {
  return {
    path: '/batch/',
    query: '',
    method: 'POST',
    contentType: 'application/json',
    contentEncoding: '',
    body: typeof body === 'string' ? new TextEncoder().encode(body) : body,
    ip: '127.0.0.1',
    ...extra,
  };
}

describe('runsInline', () => {
  it('takes small plain JSON objects and arrays, after whitespace', () => {
    expect(runsInline(req(json))).toBe(true);
    expect(runsInline(req(` \n\t[${json}]`))).toBe(true);
    expect(runsInline(req(json, { query: 'ip=1&_=1700000000000&ver=1.2.3' }))).toBe(true);
  });

  it('sends anything that may expand to a worker', () => {
    const gz = gzipSync(json);
    expect(runsInline(req(gz))).toBe(false);
    expect(runsInline(req(gz.toString('base64')))).toBe(false); // whole-body base64 of gzip
    expect(runsInline(req(`data=${encodeURIComponent(Buffer.from(json).toString('base64'))}`))).toBe(false);
    expect(runsInline(req(json, { contentType: 'Application/X-WWW-Form-Urlencoded' }))).toBe(true); // still JSON text
    expect(runsInline(req(`data=${encodeURIComponent(json)}`, { contentType: 'Application/X-WWW-Form-Urlencoded' }))).toBe(false);
    expect(runsInline(req(compressToBase64(json), { query: 'compression=lz64' }))).toBe(false);
    expect(runsInline(req(json, { query: '%63ompression=lz64' }))).toBe(false);
    // A query's data= wins over the body: base64 of gzip there would be inflated
    expect(runsInline(req(json, { query: `data=${gzipSync(json).toString('base64')}` }))).toBe(false);
    // JSON-looking text that is also a form (read as one with a form content type)
    const form = { contentType: 'application/x-www-form-urlencoded' };
    expect(runsInline(req(`{&compression=base64&data=${gzipSync(json).toString('base64')}`, form))).toBe(false);
    expect(runsInline(req(json, { contentEncoding: 'gzip' }))).toBe(false);
    expect(runsInline(req(`${json}${' '.repeat(4096)}`))).toBe(false);
    expect(runsInline(req(''))).toBe(false);
  });
});

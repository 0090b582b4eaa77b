import { describe, expect, it } from 'vitest';
import { framingFault } from '../../src/http/framing.js';
import { clientErrorAnswer } from '../../src/http/node-client-errors.js';
import type { HttpResponse } from '../../src/http/types.js';

function shape(r: HttpResponse | undefined): [number, string] | undefined {
  if (r === undefined) return undefined;
  return [r.status, (JSON.parse(String(r.body)) as { code: string }).code];
}

describe('framingFault', () => {
  it('lets through one length, the same length repeated, and chunked in any case', () => {
    for (const [cl, te] of [
      ['42', ''],
      ['42, 42', ''],
      ['', 'chunked'],
      ['', 'Chunked'],
      ['', ''],
      ['123456789012345678901', ''],
    ]) {
      expect(framingFault(cl!, te!)).toBeUndefined();
    }
  });

  it('refuses a Transfer-Encoding other than chunked with 501', () => {
    for (const te of ['xchunked', 'gzip, chunked', 'chunked, chunked', 'identity']) {
      expect(shape(framingFault('', te))).toEqual([501, 'not_implemented']);
    }
  });

  it('refuses differing or malformed lengths with 400, saying which', () => {
    const conflicting = framingFault('5, 6', '');
    expect(shape(conflicting)).toEqual([400, 'malformed_request']);
    expect(String(conflicting?.body)).toContain('conflicting Content-Length headers (5, 6)');
    for (const cl of ['-5', 'abc', '4,', '1e3']) {
      const r = framingFault(cl, '');
      expect(shape(r)).toEqual([400, 'malformed_request']);
      expect(String(r?.body)).toContain('malformed Content-Length');
    }
  });
});

describe('clientErrorAnswer (node:http parse errors)', () => {
  const err = (code: string, reason = '') => Object.assign(new Error(`Parse Error: ${reason}`), { code, reason });

  it('gives each fault its status', () => {
    expect(shape(clientErrorAnswer(err('HPE_HEADER_OVERFLOW', 'Header overflow')))).toEqual([431, 'request_header_fields_too_large']);
    expect(shape(clientErrorAnswer(err('HPE_INVALID_VERSION', 'Invalid HTTP version')))).toEqual([505, 'http_version_not_supported']);
    expect(shape(clientErrorAnswer(err('HPE_INVALID_VERSION', 'Expected CRLF after version')))).toEqual([400, 'malformed_request']);
    expect(shape(clientErrorAnswer(err('HPE_PAUSED_H2_UPGRADE', 'Pause on PRI/Upgrade')))).toEqual([505, 'http_version_not_supported']);
    expect(shape(clientErrorAnswer(err('HPE_INVALID_TRANSFER_ENCODING', 'Request has invalid `Transfer-Encoding`')))).toEqual([
      501,
      'not_implemented',
    ]);
    expect(
      shape(clientErrorAnswer(err('HPE_INVALID_TRANSFER_ENCODING', "Transfer-Encoding can't be present with Content-Length"))),
    ).toEqual([400, 'malformed_request']);
    expect(shape(clientErrorAnswer(err('HPE_UNEXPECTED_CONTENT_LENGTH', 'Duplicate Content-Length')))).toEqual([400, 'malformed_request']);
    expect(shape(clientErrorAnswer(err('ERR_HTTP_REQUEST_TIMEOUT')))).toEqual([408, 'request_timeout']);
    expect(shape(clientErrorAnswer(err('HPE_INVALID_CHUNK_SIZE', 'Invalid character in chunk size')))).toEqual([400, 'malformed_request']);
  });

  it('answers nothing on a reset connection', () => {
    expect(clientErrorAnswer(err('ECONNRESET'))).toBeUndefined();
  });
});

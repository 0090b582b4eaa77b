import { describe, expect, it } from 'vitest';
import { acceptsGzip } from '../../src/http/accept-encoding.js';

describe('acceptsGzip', () => {
  it('takes gzip when it is listed or covered by *, without q=0', () => {
    for (const header of ['gzip', 'gzip, deflate, br, zstd', 'br;q=1.0, gzip;q=0.8, *;q=0.1', 'x-gzip', 'GZIP', '*', 'identity, *;q=0.5']) {
      expect(acceptsGzip(header), header).toBe(true);
    }
  });

  it('refuses it when absent, refused, or only other codings are listed', () => {
    for (const header of ['', 'identity', 'br, deflate', 'gzip;q=0', 'gzip; q=0.000', '*;q=0', 'gzip;q=0, *', 'gzip;q=abc']) {
      expect(acceptsGzip(header), header).toBe(false);
    }
  });
});

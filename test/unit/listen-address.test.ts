import { describe, expect, it } from 'vitest';
import { formatListenAddress, parseListenAddress } from '../../src/config/listen-address.js';

describe('parseListenAddress', () => {
  it('splits host and port, and takes the brackets off an IPv6 address', () => {
    expect(parseListenAddress('127.0.0.1:9464')).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(parseListenAddress('localhost:0')).toEqual({ host: 'localhost', port: 0 });
    expect(parseListenAddress('[::1]:9464')).toEqual({ host: '::1', port: 9464 });
    expect(parseListenAddress('[fe80::1:2]:80')).toEqual({ host: 'fe80::1:2', port: 80 });
  });

  it('formats it back as a URL shows it', () => {
    for (const text of ['127.0.0.1:9464', '[::1]:9464', 'localhost:1']) expect(formatListenAddress(parseListenAddress(text))).toBe(text);
  });
});

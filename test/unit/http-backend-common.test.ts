/** Unit tests for the pure helpers both HTTP backends share. */

import { describe, expect, it } from 'vitest';
import {
  bodyBytes,
  InFlight,
  bodyVerdict,
  clientIp,
  formatIp,
  normalizePeer,
  parseContentLength,
  prepare,
} from '../../src/http/backend-common.js';

describe('backend-common', () => {
  it('bodyVerdict keeps up to the cap, discards up to twice the cap, then closes', () => {
    expect([10, 11, 20, 21].map((n) => bodyVerdict(n, 10))).toEqual(['keep', 'discard', 'discard', 'close']);
  });

  it('parseContentLength accepts digits only, the same length sent twice counting once', () => {
    expect(parseContentLength('42')).toBe(42);
    expect(parseContentLength('42, 42')).toBe(42);
    expect(parseContentLength('42,42,42')).toBe(42);
    expect(['', '-1', '1e3', ' 4', '4, 5', '4,', ', 4'].map(parseContentLength)).toEqual(Array(7).fill(undefined));
  });

  it('formatIp writes IPv4, IPv4-mapped and compressed IPv6', () => {
    expect(formatIp(Uint8Array.of(10, 0, 0, 1))).toBe('10.0.0.1');
    expect(formatIp(Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 127, 0, 0, 1))).toBe('127.0.0.1');
    expect(formatIp(Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1))).toBe('::1');
    expect(formatIp(new Uint8Array(16))).toBe('::');
    const doc = Uint8Array.of(0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1);
    expect(formatIp(doc)).toBe('2001:db8::1:0:0:1'); // RFC 5952: the first of equal runs
    expect(formatIp(Uint8Array.of(0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1))).toBe('2001:db8:0:1:1:1:1:1');
  });

  it('clientIp takes the first X-Forwarded-For hop, else the peer', () => {
    const peerAsked: string[] = [];
    const peer = () => {
      peerAsked.push('9.9.9.9');
      return '9.9.9.9';
    };
    expect(clientIp(' 1.2.3.4 , 5.6.7.8', peer)).toBe('1.2.3.4');
    expect(peerAsked).toEqual([]); // the peer is not looked up when the header names a hop
    expect(clientIp('', peer)).toBe('9.9.9.9');
    expect(clientIp(' , 5.6.7.8', peer)).toBe('9.9.9.9');
    expect(peerAsked).toHaveLength(2);
    expect(normalizePeer('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(normalizePeer(undefined)).toBe('');
  });

  it('prepare drops framing headers, refuses CR/LF, and names the status', () => {
    const p = prepare({ status: 404, headers: { 'Content-Length': '1', 'x-a': 'b' }, body: 'hé' });
    expect(p.statusLine).toBe('404 Not Found');
    expect(p.headers).toEqual([['x-a', 'b']]);
    expect(bodyBytes(p.body)).toBe(3); // text goes out as UTF-8
    expect(bodyBytes(new Uint8Array(5))).toBe(5);
    expect(() => prepare({ status: 200, headers: { 'x-a': 'b\r\nc: d' } })).toThrow();
  });

  it('InFlight.drained resolves on zero or times out', async () => {
    const f = new InFlight();
    expect(await f.drained(10)).toBe(true);
    f.add();
    expect(await f.drained(10)).toBe(false);
    const waiting = f.drained(1000);
    f.done();
    expect(await waiting).toBe(true);
  });
});

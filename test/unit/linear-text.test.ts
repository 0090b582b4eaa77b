/**
 * Text handling that runs on client input stays linear: property values matched as numbers,
 * semver or dates (`rustParseF64`, `rustTrim`), Python's `strip` on management fields and static
 * cohort CSV cells, SQL `ILIKE` for the persons search, and UUID braces. Each of these was a
 * regular expression that backtracked quadratically (or exponentially) on some inputs; the
 * timings below took seconds to minutes before.
 */
import { describe, expect, it } from 'vitest';
import { rustParseF64, rustTrim } from '../../src/flags/engine/coerce.js';
import { pythonStrip } from '../../src/compat/python-repr.js';
import { canonicalUuid } from '../../src/compat/python-parse.js';
import { ilike } from '../../src/persons/person-list-query.js';

/** Milliseconds `f` takes. */
function timed(f: () => unknown): number {
  const started = performance.now();
  f();
  return performance.now() - started;
}

const N = 200_000;

describe('linear on hostile input', () => {
  it('rustParseF64 on a long run of digits that is not a number (was ~5 s at 100,000)', () => {
    expect(timed(() => expect(rustParseF64(`${'1'.repeat(N)}x`)).toBeUndefined())).toBeLessThan(500);
    expect(rustParseF64('1.5e3')).toBe(1500);
    expect(rustParseF64('1.')).toBe(1);
    expect(rustParseF64('.5')).toBe(0.5);
    expect(rustParseF64('1.2.3')).toBeUndefined();
    expect(rustParseF64('+.e1')).toBeUndefined();
  });

  it('rustTrim and pythonStrip on a long run of spaces before a character (was quadratic)', () => {
    const text = `1${' '.repeat(N)}x`;
    expect(timed(() => expect(rustTrim(text)).toBe(text))).toBeLessThan(500);
    expect(timed(() => expect(pythonStrip(text)).toBe(text))).toBeLessThan(500);
  });

  it('rustTrim and pythonStrip remove their own whitespace sets', () => {
    expect(rustTrim('\u0085\u3000 a b\t\n')).toBe('a b');
    expect(rustTrim('\ufeffa\ufeff')).toBe('\ufeffa\ufeff'); // not White_Space for Rust
    expect(pythonStrip('\x1c\x1f a \x85')).toBe('a'); // Python strips the separators 0x1c–0x1f
    expect(pythonStrip('\ufeffa')).toBe('\ufeffa');
    expect(pythonStrip('   ')).toBe('');
  });

  it('ILIKE with many % against a text it does not match (was exponential: 52 s for ten)', () => {
    expect(timed(() => expect(ilike('a'.repeat(100), `%${'a%'.repeat(30)}b%`)).toBe(false))).toBeLessThan(500);
    expect(timed(() => expect(ilike('a'.repeat(37), `%${'%_'.repeat(10)}!%`)).toBe(false))).toBeLessThan(500);
    expect(timed(() => ilike('x'.repeat(N), '%a%b%c%d%e%f%g%h%i%j%'))).toBeLessThan(1000);
  });

  it('ILIKE places each piece between % leftmost, anchors the first and last, and keeps _ and escapes', () => {
    expect(ilike('abcabc', 'a%c')).toBe(true);
    expect(ilike('abcabd', 'a%c')).toBe(false);
    expect(ilike('abcab', '%b%b')).toBe(true);
    expect(ilike('ab', 'a%%b')).toBe(true);
    expect(ilike('aXbYc', 'a_b_c')).toBe(true);
    expect(ilike('a%b', 'a\\%b')).toBe(true);
    expect(ilike('axb', 'a\\%b')).toBe(false);
    expect(ilike('ABCabc', '%C%A%')).toBe(true);
    expect(ilike('', '%')).toBe(true);
    expect(ilike('', '_')).toBe(false);
    expect(ilike('😀x', '_x')).toBe(true); // one character, not one UTF-16 unit
  });

  it('canonicalUuid strips braces from both ends, as Python’s UUID() does, in linear time', () => {
    const uuid = '0190f0e4-0000-7000-8000-000000000001';
    expect(canonicalUuid(`{${uuid}}`)).toBe(uuid);
    expect(canonicalUuid(`{{${uuid.toUpperCase()}}}`)).toBe(uuid);
    expect(canonicalUuid(`urn:uuid:${uuid}`)).toBe(uuid);
    expect(timed(() => expect(canonicalUuid(`${'}'.repeat(N)}x`)).toBeUndefined())).toBeLessThan(500);
  });
});

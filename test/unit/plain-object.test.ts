/** Copies and merges of JSON objects from clients: same keys, order and values as a spread, `__proto__` kept as a key. */
import { describe, expect, it } from 'vitest';
import { copyOwn, hasOwn, mergeOwn } from '../../src/util/plain-object.js';

const parsed = (text: string) => JSON.parse(text) as Record<string, unknown>;

describe('copyOwn', () => {
  it('copies the own keys in order, into a new object', () => {
    const source = parsed('{"b":1,"a":{"x":2},"c":null}');
    const copy = copyOwn(source);
    expect(copy).not.toBe(source);
    expect(Object.entries(copy)).toEqual(Object.entries(source));
    expect(copy.a).toBe(source.a); // shallow
    copy.d = 4;
    expect(hasOwn(source, 'd')).toBe(false);
  });

  it('keeps a __proto__ key as a key, never as the prototype', () => {
    const source = parsed('{"__proto__":{"plan":"pro"},"a":1}');
    const copy = copyOwn(source);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(copy.plan).toBeUndefined();
    expect(Object.keys(copy)).toEqual(['__proto__', 'a']);
    expect(JSON.stringify(copy)).toBe('{"__proto__":{"plan":"pro"},"a":1}');
  });
});

describe('mergeOwn', () => {
  it('is { ...first, ...second }: a shared key keeps its place from first and the value from second', () => {
    const first = parsed('{"a":1,"b":2,"c":3}');
    const second = parsed('{"d":4,"b":20}');
    const merged = mergeOwn(first, second);
    expect(JSON.stringify(merged)).toBe(JSON.stringify({ ...first, ...second }));
    expect(JSON.stringify(merged)).toBe('{"a":1,"b":20,"c":3,"d":4}');
    expect(first).toEqual({ a: 1, b: 2, c: 3 });
  });

  it('keeps a __proto__ key from either side as a key', () => {
    for (const [a, b] of [
      ['{"__proto__":{"plan":"pro"},"a":1}', '{"b":2}'],
      ['{"a":1}', '{"__proto__":{"plan":"pro"},"b":2}'],
    ] as const) {
      const merged = mergeOwn(parsed(a), parsed(b));
      expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
      expect(merged.plan).toBeUndefined();
      expect(hasOwn(merged, '__proto__')).toBe(true);
      expect(Object.keys(merged).sort()).toEqual(['__proto__', 'a', 'b']);
    }
  });
});

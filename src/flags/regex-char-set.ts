/**
 * Sets of code points, as sorted lists of disjoint inclusive ranges, for what regex-cost.ts needs
 * to know of a pattern's characters: whether two places can match the same character. `null`
 * stands for a set not worked out (any character may be in it).
 */

export type CharSet = readonly (readonly [number, number])[];

const MAX_CODE_POINT = 0x10ffff;

export const EMPTY: CharSet = [];

export function single(codePoint: number): CharSet {
  return [[codePoint, codePoint]];
}

export function range(from: number, to: number): CharSet {
  return from <= to ? [[from, to]] : EMPTY;
}

export function union(a: CharSet | null, b: CharSet | null): CharSet | null {
  if (a === null || b === null) return null;
  const all = [...a, ...b].sort((x, y) => x[0] - y[0]);
  const out: [number, number][] = [];
  for (const [from, to] of all) {
    const last = out[out.length - 1];
    if (last !== undefined && from <= last[1] + 1) last[1] = Math.max(last[1], to);
    else out.push([from, to]);
  }
  return out;
}

export function complement(set: CharSet): CharSet {
  const out: [number, number][] = [];
  let next = 0;
  for (const [from, to] of set) {
    if (from > next) out.push([next, from - 1]);
    next = to + 1;
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
}

/** Whether some character is in both (true when either is not worked out). */
export function overlaps(a: CharSet | null, b: CharSet | null): boolean {
  if (a === null || b === null) return true;
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as readonly [number, number];
    const y = b[j] as readonly [number, number];
    if (x[1] < y[0]) i++;
    else if (y[1] < x[0]) j++;
    else return true;
  }
  return false;
}

export const DIGIT: CharSet = [[0x30, 0x39]];
export const WORD: CharSet = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];
/** JavaScript's `\s`: WhiteSpace and LineTerminator. */
export const SPACE: CharSet = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];
/** `.` without the `s` flag: anything but a line terminator. */
export const DOT: CharSet = complement([
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
]);

/**
 * Trimming by a character class without a regular expression. `/^\s+|\s+$/g` is quadratic in
 * the length of a run of spaces that does not reach the end (the second branch is tried at every
 * position of the run), and these run on client text.
 */

/** `s` without the leading and trailing UTF-16 code units for which `isSpace` holds. */
export function trimWhere(s: string, isSpace: (code: number) => boolean): string {
  let start = 0;
  let end = s.length;
  while (start < end && isSpace(s.charCodeAt(start))) start++;
  while (end > start && isSpace(s.charCodeAt(end - 1))) end--;
  return start === 0 && end === s.length ? s : s.slice(start, end);
}

/** Unicode's White_Space property: what Rust's `str::trim` removes (JavaScript's `trim` also takes U+FEFF). */
export function isUnicodeWhiteSpace(c: number): boolean {
  return (
    (c >= 0x09 && c <= 0x0d) ||
    c === 0x20 ||
    c === 0x85 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000
  );
}

/** Cutting strings to a number of characters (Unicode code points, as Rust's `chars()` counts them). */

/** The first `max` code points of `s`; never splits a surrogate pair. */
export function truncateChars(s: string, max: number): string {
  // A string of at most `max` UTF-16 units has at most `max` code points.
  if (s.length <= max) return s;
  let units = 0;
  for (let chars = 0; chars < max && units < s.length; chars++) {
    const c = s.charCodeAt(units);
    const pair = c >= 0xd800 && c <= 0xdbff && isLowSurrogate(s.charCodeAt(units + 1));
    units += pair ? 2 : 1;
  }
  return units >= s.length ? s : s.slice(0, units);
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff; // NaN past the end compares false
}

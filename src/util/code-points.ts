/** Whether `s` holds more than `max` Unicode code points (without counting unless it may be close). */
export function exceedsCodePoints(s: string, max: number): boolean {
  // A code point is one or two UTF-16 units.
  if (s.length <= max) return false;
  if (s.length > 2 * max) return true;
  return [...s].length > max;
}

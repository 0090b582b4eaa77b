/** Whether `s` holds more than `max` Unicode code points (short strings answer without counting). */
export function exceedsCodePoints(s: string, max: number): boolean {
  // A string never has more code points than UTF-16 units.
  return s.length > max && [...s].length > max;
}

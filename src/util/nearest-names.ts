/** "Did you mean …?": the known names closest to a mistyped one, by edit distance. */

/**
 * The candidates at the smallest edit distance from `name` (a swap of neighbours counts as one
 * edit), if that distance is at most `maxDistance`; in the candidates' order.
 */
export function nearestNames(name: string, candidates: Iterable<string>, maxDistance = 2): string[] {
  let best: string[] = [];
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const c of candidates) {
    const d = editDistance(name, c);
    if (d > maxDistance || d > bestDistance) continue;
    if (d < bestDistance) [best, bestDistance] = [[], d];
    best.push(c);
  }
  return best;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps. */
export function editDistance(a: string, b: string): number {
  const width = b.length + 1;
  const d = new Array<number>((a.length + 1) * width).fill(0);
  const at = (i: number, j: number): number => d[i * width + j] ?? 0;
  for (let i = 0; i <= a.length; i++) d[i * width] = i;
  for (let j = 0; j <= b.length; j++) d[j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      d[i * width + j] = best;
    }
  }
  return at(a.length, b.length);
}

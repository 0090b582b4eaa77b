/**
 * PostHog's tag normalisation (docs/compatibility.md#flag-fields): each tag trimmed and
 * lower-cased; duplicates and tags left empty are dropped. Hedgerow keeps the order in which tags
 * were first given.
 */

import { pythonStrip } from '../compat/python-repr.js';

export function tagify(tag: string): string {
  return pythonStrip(tag).toLowerCase();
}

export function tagifyAll(tags: readonly string[]): string[] {
  const seen = new Set<string>();
  for (const t of tags) {
    const n = tagify(t);
    if (n !== '') seen.add(n);
  }
  return [...seen];
}

import { MAX_JSON_DEPTH } from '../limits.js';

/**
 * True when containers nest deeper than `MAX_JSON_DEPTH`, counting `value` itself as `depth`
 * (1 for a body or an event). Stops descending there, so it cannot exhaust the stack itself.
 */
export function exceedsMaxDepth(value: unknown, depth: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (depth > MAX_JSON_DEPTH) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (exceedsMaxDepth(value[i], depth + 1)) return true;
    return false;
  }
  for (const key in value) {
    if (exceedsMaxDepth((value as Record<string, unknown>)[key], depth + 1)) return true;
  }
  return false;
}

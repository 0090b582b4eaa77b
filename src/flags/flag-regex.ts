/**
 * The regular-expression dialect of flag conditions (`regex`/`not_regex` operators).
 *
 * PostHog's create() dry-runs new flags in Postgres and its flag service uses the Rust `regex`
 * crate; both reject malformed patterns such as `2.3.9{0-9}{1}` (spec §3.4 create(), vector 44).
 * JavaScript's RegExp in `u` mode is close to that: lone braces and other sloppy syntax are
 * errors. The management API and the evaluation engine share this one function, so a pattern that
 * was accepted on create is one the engine can run.
 */

/** Compiled patterns: stateless (no `g`/`y`), so safe to share. Bounded; cleared when full. */
const cache = new Map<string, RegExp | null>();
const CACHE_LIMIT = 1000;

/** The compiled pattern, or `undefined` when it is not valid in the flag dialect. */
export function compileFlagRegex(pattern: string): RegExp | undefined {
  const hit = cache.get(pattern);
  if (hit !== undefined) return hit ?? undefined;
  let re: RegExp | null;
  try {
    re = new RegExp(pattern, 'u');
  } catch {
    re = null;
  }
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(pattern, re);
  return re ?? undefined;
}

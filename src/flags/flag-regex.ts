/**
 * The regular-expression dialect of flag conditions (`regex`/`not_regex` operators).
 *
 * PostHog's create() dry-runs new flags in Postgres and its flag service uses the Rust
 * `fancy_regex` crate; both reject malformed patterns such as `2.3.9{0-9}{1}`
 * (docs/compatibility.md#flag-validation; test/fixtures/management-vectors.json, vector 44).
 * JavaScript's RegExp in `u` mode is close to that: lone braces and other sloppy syntax are errors.
 * The management API and the evaluation engine share this one function, so a pattern that was
 * accepted on create is one the engine can run.
 *
 * Running: `fancy_regex` stops a match after 10,000 backtracks
 * (docs/compatibility.md#property-matching), so a pattern such as `^(a+)+$` cannot hold the
 * service. V8's RegExp backtracks without a bound, and flag values come from `/flags` callers, who
 * only need the public project key: one crafted `person_properties` value could hold a front-end
 * thread for seconds. Every pattern RE2 can run (re2js, linear in the input) is therefore run by
 * RE2. Patterns that need backtracking (back-references, lookaround, which `fancy_regex` supports
 * and RE2 does not) run on V8's RegExp with a backtrack limit, as `fancy_regex` runs them
 * (bounded-backtracking.ts).
 */
import { RE2JS } from 're2js';
import { boundedBacktrackingSearch } from './bounded-backtracking.js';

/** A compiled flag pattern: an unanchored search, as the Rust service runs it. */
export interface FlagRegex {
  /** Whether the pattern occurs in `input`; undefined when the search gave up (bounded-backtracking.ts). */
  search(input: string): boolean | undefined;
}

/** Compiled patterns: stateless (no `g`/`y`), so safe to share. Bounded; cleared when full. */
const cache = new Map<string, FlagRegex | null>();
const CACHE_LIMIT = 1000;

/** The compiled pattern, or `undefined` when it is not valid in the flag dialect. */
export function compileFlagRegex(pattern: string): FlagRegex | undefined {
  const hit = cache.get(pattern);
  if (hit !== undefined) return hit ?? undefined;
  let re: FlagRegex | null;
  try {
    new RegExp(pattern, 'u'); // the dialect check: throws on what the flag dialect refuses
    re = linearTime(pattern) ?? boundedBacktrackingSearch(pattern) ?? null;
  } catch {
    re = null;
  }
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(pattern, re);
  return re ?? undefined;
}

/** The pattern on RE2, or undefined where RE2's syntax has no equivalent (back-references, lookaround). */
function linearTime(pattern: string): FlagRegex | undefined {
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern);
  } catch {
    return undefined;
  }
  return { search: (input) => re.test(input) };
}

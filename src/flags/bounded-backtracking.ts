/**
 * V8's RegExp with a bound on its work, for the flag patterns RE2 cannot run (back-references,
 * lookaround; flag-regex.ts). The Rust flags service builds such patterns with `fancy_regex` and a
 * backtrack limit, so a crafted property value costs it about a millisecond at most; V8's
 * RegExp has no such limit in its API, and `^(?=(a+)+$)` against forty `a`s and a `!` holds a
 * thread for hours.
 *
 * V8 has the limit internally: `%NewRegExpWithBacktrackLimit(pattern, flags, limit)` makes a
 * RegExp whose match gives up, as a failed match, once it has backtracked `limit` times. It is a
 * runtime function, reachable only from code compiled with `--allow-natives-syntax`; the flag is
 * turned on here, for the process, and left on (each thread compiles the factory below for
 * itself, and turning the flag off could race another thread's compile). It only lets
 * the parser read `%name(…)` in a place where any other JavaScript has a syntax error, so it
 * changes the meaning of no valid program. Nothing of this happens until the first such pattern
 * is compiled.
 *
 * The factory is checked when loaded: a pattern that needs about a million backtracks to match
 * must give up under a limit of 1,000, and a back-reference must still match. Where either fails
 * (a V8 without the function), no factory is returned and such patterns are refused as
 * unsupported, as invalid ones are, rather than run without a bound.
 */
import { setFlagsFromString } from 'node:v8';
import type { FlagRegex } from './flag-regex.js';

/**
 * The backtrack limit. V8 counts every backtrack of the pattern, where `fancy_regex` counts only
 * those of its own backtracking parts (it hands the rest to a linear engine), so the same limit
 * would give up on patterns the Rust service matches. 100,000 backtracks take V8 about 0.5 ms on
 * this machine (measured: ~0.05 ms for 10,000, ~4.7 ms for 1,000,000), about the time the Rust
 * service bounds its own at ("10k steps completes in ~1ms worst case", property_matching.rs).
 */
export const MAX_REGEX_BACKTRACKS = 100_000;

type LimitedRegExpFactory = (pattern: string, flags: string, limit: number) => RegExp;

/** Loaded on first use: a process whose flags never need it never sets the V8 flag. */
let factory: LimitedRegExpFactory | undefined | null = null;

/**
 * The longest input searched in one run. V8 does not count as backtracks the steps of a greedy
 * loop over single characters (`a*`, `.*`), and a search runs such a loop again from each start
 * position: `(?=a*b)` against n `a`s takes about n² steps however low the limit (a 300,000
 * character value held a thread for 16 s). Up to this length that is at most ~4 million steps a
 * loop (about a millisecond here).
 */
export const ONE_RUN_MAX_LENGTH = 2048;
/** Longer inputs are searched from fewer start positions: positions × length stays within this. */
const STEP_BUDGET = ONE_RUN_MAX_LENGTH * ONE_RUN_MAX_LENGTH;

/**
 * `pattern` (flag dialect: `u`) as a search that gives up after MAX_REGEX_BACKTRACKS backtracks;
 * undefined where this V8 cannot bound it. Throws on an invalid pattern.
 *
 * A RegExp that gives up answers as if nothing matched, and the Rust service tells the two
 * apart: giving up is an error there, a non-match for `regex` and `not_regex` alike. So the
 * pattern runs as `(?:pattern)|($)`: where the pattern is found nowhere, the empty alternative
 * still matches at the end of the input, its group set, so only a search that gave up finds
 * nothing at all. The added group comes after the pattern's own, whose numbers stay as written.
 *
 * An input longer than ONE_RUN_MAX_LENGTH is searched only from its first `reach` positions
 * (a power of two, reach × length ≤ STEP_BUDGET), in one run of `^(?:[\s\S]{0,reach}?(?:pattern)|())`:
 * found there, it matches; otherwise the search gave up, as `fancy_regex`'s gives up on a long
 * input once its backtracks (each start position is one) reach its limit. A pattern anchored at
 * the start (`^…` with no `|` outside a group) can only match at the first position, which
 * costs one loop's steps: it is searched in one run whatever the input's length.
 */
export function boundedBacktrackingSearch(pattern: string): FlagRegex | undefined {
  if (factory === null) factory = loadFactory();
  if (factory === undefined) return undefined;
  const create = factory;
  const endGroup = new RegExp(`${pattern}|`, 'u').exec('')?.length ?? 1; // the pattern's groups + 1
  const whole = create(`(?:${pattern})|($)`, 'u', MAX_REGEX_BACKTRACKS);
  const anchored = anchoredAtStart(pattern);
  const byReach = new Map<number, RegExp>();
  const fromStart = (reach: number): RegExp => {
    let re = byReach.get(reach);
    if (re === undefined) {
      re = create(`^(?:[\\s\\S]{0,${reach}}?(?:${pattern})|())`, 'u', MAX_REGEX_BACKTRACKS);
      byReach.set(reach, re);
    }
    return re;
  };
  return {
    search(input) {
      if (anchored || input.length <= ONE_RUN_MAX_LENGTH) {
        const found = whole.exec(input);
        return found === null ? undefined : found[endGroup] === undefined;
      }
      const reach = 2 ** Math.floor(Math.log2(Math.max(1, STEP_BUDGET / input.length)));
      const found = fromStart(reach).exec(input);
      return found !== null && found[endGroup] === undefined ? true : undefined;
    },
  };
}

/** Whether `pattern` starts with `^` and has no alternative outside a group (or a class). */
export function anchoredAtStart(pattern: string): boolean {
  if (!pattern.startsWith('^')) return false;
  let depth = 0;
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '\\') i++;
    else if (inClass) inClass = ch !== ']';
    else if (ch === '[') inClass = true;
    else if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (ch === '|' && depth === 0) return false;
  }
  return true;
}

function loadFactory(): LimitedRegExpFactory | undefined {
  try {
    setFlagsFromString('--allow-natives-syntax');
    const create = new Function(
      'pattern',
      'flags',
      'limit',
      'return %NewRegExpWithBacktrackLimit(pattern, flags, limit);',
    ) as LimitedRegExpFactory;
    // Unbounded, the lookahead fails at each of the first 20 positions after 2^20 steps or so
    // and matches at the last `a` (~10 ms); bounded, the match gives up at the first position.
    const gaveUp = !create('(?=(a+)+$)', 'u', 1000).test(`${'a'.repeat(20)}!a`);
    const backReference = create('(\\w)\\1', 'u', 1000).test('xaay');
    return gaveUp && backReference ? create : undefined;
  } catch {
    return undefined;
  }
}

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
 * A backtrack limit alone does not bound the time: V8 does work it does not count between two
 * backtracks (a back-reference compares up to the whole input; a loop around a lookaround scans
 * the rest of the input at every iteration), so each search's limit is set from the pattern's
 * shape and the input's length (regex-cost.ts): (backtracks allowed + 1) × the cost of one
 * attempt, plus the attempts at the other start positions, stays within SEARCH_STEP_BUDGET, and
 * an input on which that cannot hold is not searched at all (the search gives up). The time an
 * evaluation spends in such searches is capped as well (regex-allowance.ts).
 *
 * The factory is checked when loaded: a pattern that needs about a million backtracks to match
 * must give up under a limit of 1,000, and a back-reference must still match. Where either fails
 * (a V8 without the function), no factory is returned and such patterns are refused as
 * unsupported, as invalid ones are, rather than run without a bound.
 */
import { setFlagsFromString } from 'node:v8';
import type { FlagRegex } from './flag-regex.js';
import { checkCompileAllowance, checkRegexAllowance, spendRegexCompileTime, spendRegexTime } from './regex-allowance.js';
import { anchoredAtStart, regexAttemptCost } from './regex-cost.js';

/**
 * The backtrack limit on short inputs. V8 counts every backtrack of the pattern (and often
 * each start position of a search as one), where `fancy_regex` counts only those of its own
 * backtracking parts (it hands the rest to a linear engine), so the same limit would give up on
 * patterns the Rust service matches. 100,000 backtracks take V8 about 0.5 ms on this machine (measured: ~0.05
 * ms for 10,000, ~4.7 ms for 1,000,000), about the time the Rust service bounds its own at ("10k
 * steps completes in ~1ms worst case", rust/feature-flags/src/properties/property_matching.rs).
 */
export const MAX_REGEX_BACKTRACKS = 100_000;

/**
 * The steps one search may take: (backtracks allowed + 1) × one attempt's cost (regex-cost.ts),
 * plus an attempt at every other start position where the pattern is not anchored (V8 does not
 * always count those). Over crafted patterns and inputs (`^(?=a*a*b)`, `(\w+)\s+\1`,
 * `^(?:(?=a*$)a)*$`, `(?=(a*))\1b`, … against runs of `a` of 16 to 60,000 characters, and a
 * million random patterns over a small alphabet), no search took more than 0.6 ms on this
 * machine at load 4, 1.3 ms at load 6.6 (`a+?$` against 1,024 `a`s); twice the budget, 1.5 ms
 * at load 4.
 */
export const SEARCH_STEP_BUDGET = 2 ** 21;

type LimitedRegExpFactory = (pattern: string, flags: string, limit: number) => RegExp;

/** Loaded on first use: a process whose flags never need it never sets the V8 flag. */
let factory: LimitedRegExpFactory | undefined | null = null;

/**
 * The backtrack limit for a search that may take `backtracks`: the largest of 1, 2, 3, 4, 6, 8,
 * 12, … (2^k and 3·2^k, so that each limit, a RegExp of its own compiled when first needed, is
 * one of a few dozen) not above it, at most MAX_REGEX_BACKTRACKS; undefined below 1 (V8 reads a
 * limit of 0 as none).
 */
export function backtrackLimit(backtracks: number): number | undefined {
  if (!(backtracks >= 1)) return undefined;
  if (backtracks >= MAX_REGEX_BACKTRACKS) return MAX_REGEX_BACKTRACKS;
  const power = 2 ** Math.floor(Math.log2(backtracks));
  return backtracks >= 1.5 * power && power >= 2 ? 1.5 * power : power;
}

/**
 * The backtrack limit of a search of an input of `length` characters, from one attempt's cost;
 * undefined when not even that fits: the search gives up without running, as it would have at
 * the limit. Long inputs get there first, sooner the dearer the pattern: `(?=a*b)` is searched
 * up to ~1,400 characters, `^(?!.*internal)` up to ~400,000, `^(a+)\1+b$` up to ~100 (1,024 with
 * the floor: ALWAYS_SEARCHED_LENGTH).
 */
export function searchLimit(length: number, attemptCost: number, anchored: boolean): number | undefined {
  const positions = (length + 1) * (anchored ? 3 : attemptCost);
  return backtrackLimit((SEARCH_STEP_BUDGET - positions) / attemptCost - 1);
}

/**
 * Values up to this long are always searched, with a backtrack limit of at least
 * FLOOR_STEPS / length however dear the pattern's estimate: regex-cost.ts estimates every
 * construct at its worst, and would otherwise give up on ordinary values that take microseconds
 * and match (`\b(\w+)\b.*\b\1\b` on a 43-character sentence). The dearest patterns of the
 * estimate's tests (`(?=a*a*b)`, whose steps back V8 does not count, `(?=.*a)(?=.*b)(?=.*c)z`,
 * `(\w+)\s+\1`, …), on runs of `a` and of `ab c ` of 16 to 1,024 characters, took at most 0.72 ms
 * a search at these limits on the 2-core development machine; the evaluation's allowance
 * (regex-allowance.ts) bounds their sum.
 */
const ALWAYS_SEARCHED_LENGTH = 1024;
const FLOOR_STEPS = 2 ** 20;

/** Input lengths at which a pattern's limits are worked out: ⌈2^(k/4)⌉, k = 0, 1, …, 100. */
const LENGTHS = Array.from({ length: 101 }, (_, k) => Math.ceil(2 ** (k / 4)));

/** The index of the first of LENGTHS not below `n`. */
function lengthIndex(n: number): number {
  let k = Math.max(0, Math.floor(4 * Math.log2(Math.max(n, 1))) - 1);
  while (k < LENGTHS.length && (LENGTHS[k] as number) < n) k++;
  return k;
}

/**
 * Each search's limit by lengthIndex, worked out once from the pattern (so that a search is a
 * lookup): that of the next length up, which never allows more (costs grow with the length).
 * It ends at the first length not searched at all, as do all longer ones.
 */
function limitsByLength(pattern: string): (number | undefined)[] {
  const attemptCost = regexAttemptCost(pattern);
  const anchored = anchoredAtStart(pattern);
  const limits: (number | undefined)[] = [];
  for (const n of LENGTHS) {
    let limit = searchLimit(n, attemptCost(n) + 2, anchored); // + the `|($)` alternative
    if (n <= ALWAYS_SEARCHED_LENGTH) limit = Math.max(limit ?? 0, backtrackLimit(FLOOR_STEPS / n) as number);
    limits.push(limit);
    if (limit === undefined) break;
  }
  return limits;
}

/**
 * `pattern` (flag dialect: `u`) as a search with a bounded cost; undefined where this V8 cannot
 * bound it. Throws on an invalid pattern (and on one too large to work its cost out).
 *
 * A RegExp that gives up answers as if nothing matched, and the Rust service tells the two
 * apart: giving up is an error there, which its condition matching reads as no match, for
 * `regex` and `not_regex` alike. So the pattern runs as `(?:pattern)|($)`: where the pattern is
 * found nowhere, the empty alternative still matches at the end of the input, its group set, so
 * only a search that gave up finds nothing at all. The added group comes after the pattern's
 * own, whose numbers stay as written.
 */
export function boundedBacktrackingSearch(pattern: string): FlagRegex | undefined {
  if (factory === null) factory = loadFactory();
  if (factory === undefined) return undefined;
  const create = factory;
  const endGroup = new RegExp(`${pattern}|`, 'u').exec('')?.length ?? 1; // the pattern's groups + 1
  const limits = limitsByLength(pattern);
  const byLimit = new Map<number, RegExp>();
  return {
    search(input) {
      const limit = limits[lengthIndex(input.length)];
      if (limit === undefined) return undefined;
      checkRegexAllowance();
      let re = byLimit.get(limit);
      if (re === undefined) {
        // A pattern's first compile in this thread is free: a project's first requests after a
        // start (or a flag change) compile each of its patterns once, which no caller chose. Only
        // compiles for further limits, which the length of a caller's value chooses, are charged.
        const charged = byLimit.size > 0;
        if (charged) checkCompileAllowance();
        const compiling = performance.now();
        re = create(`(?:${pattern})|($)`, 'u', limit);
        // V8 compiles a RegExp at its first run and again, to machine code, at its second: done
        // here, that is timed apart from the search (regex-allowance.ts).
        re.exec('');
        re.exec('');
        byLimit.set(limit, re);
        if (charged) spendRegexCompileTime(performance.now() - compiling);
      }
      const started = performance.now();
      const found = re.exec(input);
      spendRegexTime(performance.now() - started);
      return found === null ? undefined : found[endGroup] === undefined;
    },
  };
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

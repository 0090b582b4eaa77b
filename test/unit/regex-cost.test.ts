import { describe, expect, it } from 'vitest';
import { backtrackLimit, MAX_REGEX_BACKTRACKS, SEARCH_STEP_BUDGET, searchLimit } from '../../src/flags/bounded-backtracking.js';
import { compileFlagRegex } from '../../src/flags/flag-regex.js';
import {
  checkCompileAllowance,
  checkRegexAllowance,
  COMPILE_ALLOWANCE_MS,
  MAX_CHARGE_MS,
  REGEX_ALLOWANCE_SPENT,
  RegexAllowanceSpent,
  spendRegexCompileTime,
  spendRegexTime,
  withRegexAllowance,
} from '../../src/flags/regex-allowance.js';
import { anchoredAtStart, regexAttemptCost } from '../../src/flags/regex-cost.js';

const cost = (pattern: string, n: number): number => regexAttemptCost(pattern)(n);

describe('regexAttemptCost', () => {
  it('counts a step per character, class or assertion, and n per back-reference', () => {
    expect(cost('abc', 1000)).toBe(3);
    expect(cost('[a-z]\\d.\\b^$', 1000)).toBe(6);
    expect(cost('(a)\\1', 1000)).toBe(2 + 1001);
    expect(cost('(?<x>a)\\k<x>', 10)).toBe(2 + 11);
    expect(cost('\\u{1F600}\\u0041\\x41\\cJ\\p{L}', 5)).toBe(5);
    expect(cost('😀?', 5)).toBe(1); // one code point, as with `u`
  });

  it('takes the dearest alternative, and a lookaround on its own', () => {
    expect(cost('a|bcd|ef', 100)).toBe(3);
    expect(cost('(?=abc)d', 100)).toBe(1 + 3 + 1);
    expect(cost('(?<!a|bc)(?:de|f)', 100)).toBe(1 + 2 + 1 + 2);
  });

  it('repeats a quantified part at most n + 1 times and at most its maximum', () => {
    expect(cost('a*', 100)).toBe(101);
    expect(cost('a{2,5}', 100)).toBe(5);
    expect(cost('a{3}', 1)).toBe(2);
    expect(cost('(?:ab)+', 100)).toBe(101 * 3);
    expect(cost('a?', 100)).toBe(1);
  });

  it('multiplies a loop whose body scans the input: a lookaround or a back-reference', () => {
    const n = 1000;
    expect(cost('^(?:(?=a*$)a)*$', n)).toBeGreaterThanOrEqual(n * n);
    expect(cost('^(?:(?=(?:(?=a*$)a)*$)a)*$', n)).toBeGreaterThanOrEqual(n * n * n);
    expect(cost('^(a+)\\1+b$', n)).toBeGreaterThanOrEqual(n * n);
  });

  it('multiplies a loop of single characters by what follows it, unless that cannot start with one of them', () => {
    const n = 1000;
    // Every step back runs `a*b` again.
    expect(cost('^(?=a*a*b)', n)).toBeGreaterThanOrEqual(n * n);
    expect(cost('^a*(?=(a*))\\1b', n)).toBeGreaterThanOrEqual(n * n);
    // `\s` cannot be a character `\w+` gave back, nor `\w` (the group's) one `\s+` gave back.
    expect(cost('(\\w+)\\s+\\1', n)).toBeLessThan(4 * n);
    expect(cost('^[^@]+@.*\\.com$', n)).toBeLessThan(3 * n);
    // What follows is constant: only the loop's own steps.
    expect(cost('^(?!.*internal)', n)).toBeLessThan(2 * n);
  });
});

describe('regexAttemptCost of large patterns', () => {
  it('works a long pattern out at once (alternatives share what follows them)', () => {
    const pattern = `${'(?:a|b)'.repeat(40)}a*(?=x)`;
    const started = performance.now();
    expect(cost(pattern, 1000)).toBeGreaterThan(1000);
    expect(performance.now() - started).toBeLessThan(500); // walked 2^40 times before
    expect(compileFlagRegex(pattern)?.search('ab'.repeat(30))).toBe(false);
  });
});

describe('anchoredAtStart', () => {
  it('tells a pattern anchored at the start from one that is not', () => {
    expect(anchoredAtStart('^(?=a)')).toBe(true);
    expect(anchoredAtStart('^a(b|c)')).toBe(true);
    expect(anchoredAtStart('^[|]\\|')).toBe(true);
    expect(anchoredAtStart('^a|b')).toBe(false);
    expect(anchoredAtStart('a^')).toBe(false);
    expect(anchoredAtStart('(?<=x)^')).toBe(false);
  });
});

describe('the limits of a V8-engine search', () => {
  it('rounds the backtracks a search may take down to one of a few dozen limits, never 0', () => {
    expect([0, 0.9, 1, 2, 2.9, 3, 5, 6, 7, 11, 12, 1000].map(backtrackLimit)).toEqual([
      undefined,
      undefined,
      1,
      2,
      2,
      3,
      4,
      6,
      6,
      8,
      12,
      768,
    ]);
    expect(backtrackLimit(1e9)).toBe(MAX_REGEX_BACKTRACKS);
    expect(backtrackLimit(NaN)).toBeUndefined();
  });

  it('keeps (backtracks + 1) × one attempt, plus the other start positions, within the step budget', () => {
    for (const [n, attempt, anchored] of [
      [10, 12, false],
      [500, 1500, false],
      [60_000, 60_003, true],
      [1000, 20, true],
    ] as const) {
      const limit = searchLimit(n, attempt, anchored) as number;
      const positions = (n + 1) * (anchored ? 3 : attempt);
      expect((limit + 1) * attempt + positions, `${n} ${attempt}`).toBeLessThanOrEqual(SEARCH_STEP_BUDGET);
      expect(limit).toBeGreaterThanOrEqual(1);
    }
    expect(searchLimit(10, 12, false)).toBe(MAX_REGEX_BACKTRACKS);
    // Not even the start positions fit, or not two attempts: not searched.
    expect(searchLimit(2000, 2000, false)).toBeUndefined();
    expect(searchLimit(10, SEARCH_STEP_BUDGET / 2, true)).toBeUndefined();
  });
});

describe('the regex allowance of an evaluation', () => {
  it('lets searches run until it is spent, then refuses them, and is unlimited outside', () => {
    const re = compileFlagRegex('(?<=@)example\\.com$');
    expect(withRegexAllowance(5, () => re?.search('max@example.com'))).toBe(true);
    expect(() => withRegexAllowance(0, () => re?.search('max@example.com'))).toThrow(RegexAllowanceSpent);
    // RE2 patterns are not V8's: they spend nothing and are never refused.
    expect(withRegexAllowance(0, () => compileFlagRegex('@example\\.com$')?.search('max@example.com'))).toBe(true);
    expect(re?.search('max@example.org')).toBe(false);
  });

  it('gives compiles an allowance of their own, and charges a search at most MAX_CHARGE_MS', () => {
    withRegexAllowance(1.5, () => {
      spendRegexCompileTime(COMPILE_ALLOWANCE_MS - 0.1);
      expect(() => checkCompileAllowance()).not.toThrow();
      expect(() => checkRegexAllowance()).not.toThrow();
      spendRegexCompileTime(0.1);
      expect(() => checkCompileAllowance()).toThrow(RegexAllowanceSpent);
      expect(() => checkRegexAllowance()).not.toThrow(); // searches of compiled patterns go on
      spendRegexTime(50); // a garbage collection during a search: MAX_CHARGE_MS
      expect(() => checkRegexAllowance()).not.toThrow();
      spendRegexTime(0.5);
      expect(() => checkRegexAllowance()).toThrow(RegexAllowanceSpent);
    });
    // Each evaluation has its own.
    withRegexAllowance(1, () => {
      expect(() => checkCompileAllowance()).not.toThrow();
      expect(() => checkRegexAllowance()).not.toThrow();
    });
    expect(MAX_CHARGE_MS).toBe(1);
  });

  it('is spent by the time searches take', () => {
    const re = compileFlagRegex('(?=a*b)');
    const searched = withRegexAllowance(0.5, () => {
      let count = 0;
      try {
        for (; count < 10_000; count++) re?.search('a'.repeat(500));
      } catch (e) {
        if (e !== REGEX_ALLOWANCE_SPENT) throw e;
      }
      return count;
    });
    expect(searched).toBeGreaterThan(0);
    expect(searched).toBeLessThan(10_000);
  });
});

describe('regexAttemptCost over the whole dialect', () => {
  it('reads every construct of the flag dialect to its end, with a finite cost', () => {
    const patterns = [
      '(?<year>\\d{4})-\\k<year>',
      '\\p{Lu}+\\P{L}*[\\p{N}\\-x]',
      '[\\b\\]\\\\]+\\u{1F600}\\u0041\\x7f\\cA\\0\\t\\n\\v\\f\\r',
      '[^]*?[]|a{2}?b{3,}?c{0,1}',
      '(?:(?<=a)(?<!b)(?=c)(?!d))+',
      '\\uD83D\\uDE00+', // a surrogate pair written as two escapes
      '((((a))))\\4\\3\\2\\1',
      '\\/\\.\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|\\^\\$',
    ];
    for (const pattern of patterns) {
      expect(() => new RegExp(pattern, 'u'), pattern).not.toThrow();
      for (const n of [0, 10, 1000]) {
        const c = cost(pattern, n);
        expect(Number.isFinite(c) && c >= 1, `${pattern} at ${n}: ${c}`).toBe(true);
      }
    }
  });
});

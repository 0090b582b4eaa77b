/**
 * How much work one attempt of a flag pattern may cost V8's backtracking engine on an input of n
 * characters, between two of the backtracks its limit counts, read from the pattern's shape
 * (bounded-backtracking.ts turns it into each search's limit).
 *
 * V8 counts backtracks, not steps, and between two backtracks it can do a lot: a loop whose body
 * holds a lookaround or a back-reference moves forward one character per iteration yet scans the
 * rest of the input at each one (`^(?:(?=a*$)a)*$` against 16,000 `a`s: 110 ms without a single
 * backtrack; nested once more, n³), and a loop over single characters steps back without
 * counting, running what follows it again at each step (`^a*(?=((?:(?=a*$)a)*))\1b`: n³).
 * Measured on V8 12 (Node 20), the estimate is:
 *
 * * a character, a class, `.`, an assertion: 1;
 * * a back-reference: n + 1 (it compares up to the captured text);
 * * a sequence: the sum of its parts; an alternation: its dearest alternative (the others are
 *   tried after a counted backtrack);
 * * a group: its body, followed by what follows the group; a lookaround: its body, on its own
 *   (it is atomic), then what follows it;
 * * a quantified group: its body times the iterations, at most n + 1 (V8 ends an iteration that
 *   matches nothing) and at most the quantifier's maximum;
 * * a quantified single character: the iterations; and when what follows it (to the end of the
 *   enclosing lookaround, or of the pattern) does not cost a constant, that again at every
 *   iteration, unless what follows can only start with characters the loop does not take (then
 *   each step back fails at its first character: `(\w+)\s+\1` stays linear, `^(?=a*a*b)` is n²).
 *
 * The characters a piece can start with are worked out for literal characters, classes, `.`,
 * `\d`, `\w`, `\s` and their negations; a lookaround that scans, or anything else, may start
 * with any.
 */

import { complement, DIGIT, DOT, EMPTY, overlaps, range, single, SPACE, union, WORD, type CharSet } from './regex-char-set.js';

/** Steps of one attempt, given the input's length. */
export type RegexCost = (n: number) => number;

/**
 * The cost of a piece of pattern followed by the rest of it: the steps as a function of n, their
 * degree in n (0 constant, 1 linear, …), and the characters its first consumed character can be
 * (EMPTY when it consumes none before it ends or fails: the end, `^`, `$`; null: not worked out).
 */
interface Cost {
  at: RegexCost;
  degree: number;
  first: CharSet | null;
}

const NOTHING: Cost = { at: () => 0, degree: 0, first: EMPTY };

/**
 * `cost`, remembering its last answer: what follows an alternation is shared by each of its
 * alternatives, so without it a sequence of k alternations is evaluated 2^k times.
 */
function remembered(cost: RegexCost): RegexCost {
  let lastN = NaN;
  let last = 0;
  return (n) => {
    if (n !== lastN) {
      last = cost(n);
      lastN = n;
    }
    return last;
  };
}

/** `steps` more than `rest`, starting with `first`. */
function before(steps: number | Cost, rest: Cost, first: CharSet | null): Cost {
  if (typeof steps === 'number') {
    if (rest.degree === 0) {
      const total = steps + rest.at(0);
      return { at: () => total, degree: 0, first };
    }
    return { at: remembered((n) => steps + rest.at(n)), degree: rest.degree, first };
  }
  return { at: remembered((n) => steps.at(n) + rest.at(n)), degree: Math.max(steps.degree, rest.degree), first };
}

/** `body`, at most `max` and at most n + 1 times. */
function times(max: number, body: Cost, first: CharSet | null): Cost {
  return { at: remembered((n) => Math.min(max, n + 1) * body.at(n)), degree: body.degree + 1, first };
}

const LINEAR: Cost = { at: (n) => n + 1, degree: 1, first: null };

type Term =
  /** One character of `set`. */
  | { kind: 'char'; set: CharSet | null }
  /** `^` or `$`: after a step back of a loop before it, it fails at once. */
  | { kind: 'edge' }
  /** `\b` or `\B`. */
  | { kind: 'boundary' }
  | { kind: 'backReference'; group: number | string }
  | { kind: 'group'; body: Term[][] }
  | { kind: 'lookaround'; body: Term[][] }
  | { kind: 'repeat'; atom: Term; min: number; max: number };

class CostModel {
  /** Each capturing group's own first characters, by number and by name. */
  readonly groupFirst = new Map<number | string, CharSet | null>();

  term(term: Term, next: Cost): Cost {
    switch (term.kind) {
      case 'char':
        return before(1, next, term.set);
      case 'edge':
        return before(1, next, EMPTY);
      case 'boundary':
        return before(1, next, next.first);
      case 'backReference': {
        const own = this.groupFirst.get(term.group);
        return before(LINEAR, next, own === undefined ? null : union(own, next.first));
      }
      case 'group': {
        const body = this.alternation(term.body, next);
        return before(1, body, body.first);
      }
      case 'lookaround': {
        const body = this.alternation(term.body, NOTHING);
        // A lookaround of constant cost adds a step before the next character; one that scans
        // is work before any character is looked at.
        return before(before(1, body, null), next, body.degree === 0 ? next.first : null);
      }
      case 'repeat':
        return this.repeat(term, next);
    }
  }

  private repeat(term: Extract<Term, { kind: 'repeat' }>, next: Cost): Cost {
    const { atom, min, max } = term;
    if (max <= 1) {
      const once = this.term(atom, next);
      return min === 0 ? { ...once, first: union(once.first, next.first) } : once;
    }
    if (atom.kind === 'char') {
      const first = min === 0 ? union(atom.set, next.first) : atom.set;
      // Each step back runs what follows again, unless its first character cannot be one the
      // loop gave back (then it fails at once).
      if (next.degree >= 1 && overlaps(atom.set, next.first)) return times(max, before(1, next, null), first);
      return before(times(max, { at: () => 1, degree: 0, first: null }, null), next, first);
    }
    const body = this.term(atom, NOTHING);
    return before(times(max, body, null), next, union(body.first, next.first));
  }

  sequence(terms: Term[], next: Cost): Cost {
    let cost = next;
    for (let i = terms.length - 1; i >= 0; i--) cost = this.term(terms[i] as Term, cost);
    return cost;
  }

  /** The dearest alternative (the others are tried after a counted backtrack). */
  alternation(alternatives: Term[][], next: Cost): Cost {
    const costs = alternatives.map((terms) => this.sequence(terms, next));
    if (costs.length === 1) return costs[0] as Cost;
    let first: CharSet | null = EMPTY;
    for (const c of costs) first = union(first, c.first);
    return {
      at: remembered((n) => {
        let most = 0;
        for (const c of costs) most = Math.max(most, c.at(n));
        return most;
      }),
      degree: Math.max(...costs.map((c) => c.degree)),
      first,
    };
  }
}

const HEX = /^[0-9a-fA-F]+$/;

/** A recursive-descent reader of a pattern already accepted by `new RegExp(pattern, 'u')`. */
class PatternReader {
  private i = 0;
  private groups = 0;
  /** Capturing groups' bodies, for back-references' first characters. */
  readonly captures: { keys: (number | string)[]; body: Term[][] }[] = [];

  constructor(private readonly src: string) {}

  /**
   * Where `ch` next occurs from the reader's position (the end when it does not: the pattern is
   * valid, but a reader that went back to the start would never end).
   */
  private find(ch: string): number {
    const at = this.src.indexOf(ch, this.i);
    return at === -1 ? this.src.length : at;
  }

  /** The alternatives at the reader's position, up to a `)` or the end. */
  alternation(): Term[][] {
    const alternatives = [this.sequence()];
    while (this.src[this.i] === '|') {
      this.i++;
      alternatives.push(this.sequence());
    }
    return alternatives;
  }

  private sequence(): Term[] {
    const terms: Term[] = [];
    while (this.i < this.src.length && this.src[this.i] !== '|' && this.src[this.i] !== ')') {
      const atom = this.atom();
      const quantifier = this.quantifier();
      terms.push(quantifier === undefined ? atom : { kind: 'repeat', atom, ...quantifier });
    }
    return terms;
  }

  private atom(): Term {
    const ch = this.src[this.i];
    if (ch === '(') {
      this.i++;
      return this.group();
    }
    if (ch === '[') {
      this.i++;
      return { kind: 'char', set: this.classBody() };
    }
    if (ch === '\\') {
      this.i++;
      return this.escape();
    }
    if (ch === '^' || ch === '$') {
      this.i++;
      return { kind: 'edge' };
    }
    if (ch === '.') {
      this.i++;
      return { kind: 'char', set: DOT };
    }
    return { kind: 'char', set: single(this.literal()) };
  }

  private group(): Term {
    let name: string | undefined;
    let lookaround = false;
    let capturing = true;
    if (this.src[this.i] === '?') {
      const next = this.src[this.i + 1];
      const after = this.src[this.i + 2];
      if (next === '<' && after !== '=' && after !== '!') {
        const close = this.find('>');
        name = this.src.slice(this.i + 2, close);
        this.i = close + 1;
      } else {
        capturing = false;
        lookaround = next !== ':';
        this.i += next === '<' ? 3 : 2;
      }
    }
    const keys: (number | string)[] = [];
    if (capturing) keys.push(++this.groups);
    if (name !== undefined) keys.push(name);
    const body = this.alternation();
    this.i++; // ')'
    if (keys.length > 0) this.captures.push({ keys, body });
    return { kind: lookaround ? 'lookaround' : 'group', body };
  }

  /** A class's characters, up to and past its `]` (a `]` right after `[` closes it in JavaScript). */
  private classBody(): CharSet | null {
    const negated = this.src[this.i] === '^';
    if (negated) this.i++;
    let set: CharSet | null = EMPTY;
    while (this.i < this.src.length && this.src[this.i] !== ']') {
      const from = this.classAtom();
      if (typeof from === 'number' && this.src[this.i] === '-' && this.src[this.i + 1] !== ']') {
        this.i++;
        const to = this.classAtom();
        set = union(set, typeof to === 'number' ? range(from, to) : null);
      } else {
        set = union(set, typeof from === 'number' ? single(from) : from);
      }
    }
    this.i++; // ']'
    return set === null ? null : negated ? complement(set) : set;
  }

  /** One code point of a class, or the set of a class escape (`\d`, `\w`, `\s`, …). */
  private classAtom(): number | CharSet | null {
    if (this.src[this.i] !== '\\') return this.literal();
    this.i++;
    if (this.src[this.i] === 'b') {
      this.i++;
      return 0x08;
    }
    if (this.src[this.i] === '-') {
      this.i++;
      return 0x2d;
    }
    const escaped = this.escape();
    if (escaped.kind !== 'char' || escaped.set === null) return null;
    const only = escaped.set.length === 1 ? escaped.set[0] : undefined;
    return only !== undefined && only[0] === only[1] ? only[0] : escaped.set;
  }

  /** The code point at the reader's position (a surrogate pair is one, as with `u`). */
  private literal(): number {
    const code = this.src.codePointAt(this.i) as number;
    this.i += code > 0xffff ? 2 : 1;
    return code;
  }

  /** After a `\`. */
  private escape(): Term {
    const ch = this.src[this.i++] ?? '';
    if (ch >= '1' && ch <= '9') {
      let digits = ch;
      while (/[0-9]/.test(this.src[this.i] ?? '')) digits += this.src[this.i++];
      return { kind: 'backReference', group: Number(digits) };
    }
    switch (ch) {
      case 'k': {
        const close = this.find('>');
        const name = this.src.slice(this.i + 1, close);
        this.i = close + 1;
        return { kind: 'backReference', group: name };
      }
      case 'b':
      case 'B':
        return { kind: 'boundary' };
      case 'd':
        return { kind: 'char', set: DIGIT };
      case 'D':
        return { kind: 'char', set: complement(DIGIT) };
      case 'w':
        return { kind: 'char', set: WORD };
      case 'W':
        return { kind: 'char', set: complement(WORD) };
      case 's':
        return { kind: 'char', set: SPACE };
      case 'S':
        return { kind: 'char', set: complement(SPACE) };
      case 'p':
      case 'P':
        this.i = this.find('}') + 1;
        return { kind: 'char', set: null };
      case 't':
        return { kind: 'char', set: single(0x09) };
      case 'n':
        return { kind: 'char', set: single(0x0a) };
      case 'v':
        return { kind: 'char', set: single(0x0b) };
      case 'f':
        return { kind: 'char', set: single(0x0c) };
      case 'r':
        return { kind: 'char', set: single(0x0d) };
      case '0':
        return { kind: 'char', set: single(0) };
      case 'c':
        return { kind: 'char', set: single((this.src.charCodeAt(this.i++) as number) % 32) };
      case 'x':
        return this.hex(2);
      case 'u':
        if (this.src[this.i] === '{') {
          const close = this.find('}');
          const code = parseInt(this.src.slice(this.i + 1, close), 16);
          this.i = close + 1;
          return { kind: 'char', set: single(code) };
        }
        return this.hex(4);
      default:
        this.i--;
        return { kind: 'char', set: single(this.literal()) };
    }
  }

  /** `\xHH` or `\uHHHH`; a surrogate (half of a pair, which `u` reads as one code point): not worked out. */
  private hex(digits: number): Term {
    const text = this.src.slice(this.i, this.i + digits);
    this.i += digits;
    const code = HEX.test(text) ? parseInt(text, 16) : NaN;
    const known = !Number.isNaN(code) && (code < 0xd800 || code > 0xdfff);
    return { kind: 'char', set: known ? single(code) : null };
  }

  /** The quantifier at the reader's position (consumed, a lazy `?` too); undefined when none. */
  private quantifier(): { min: number; max: number } | undefined {
    const ch = this.src[this.i];
    let min: number;
    let max: number;
    if (ch === '*' || ch === '+' || ch === '?') {
      this.i++;
      min = ch === '+' ? 1 : 0;
      max = ch === '?' ? 1 : Infinity;
    } else if (ch === '{') {
      const close = this.find('}');
      const [low, high] = this.src.slice(this.i + 1, close).split(',');
      min = Number(low);
      max = high === undefined ? min : high === '' ? Infinity : Number(high);
      this.i = close + 1;
    } else {
      return undefined;
    }
    if (this.src[this.i] === '?') this.i++;
    return { min, max };
  }
}

/** The cost of one attempt of `pattern` (valid in the flag dialect) as a function of the input's length. */
export function regexAttemptCost(pattern: string): RegexCost {
  const reader = new PatternReader(pattern);
  const alternatives = reader.alternation();
  const model = new CostModel();
  for (const { keys, body } of reader.captures) {
    const first = model.alternation(body, NOTHING).first;
    for (const key of keys) model.groupFirst.set(key, first);
  }
  return model.alternation(alternatives, NOTHING).at;
}

/**
 * Whether `pattern` starts with `^` and has no alternative outside a group (or a class): it can
 * only match at the start, so a search's other start positions cost a step each.
 */
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

/**
 * Python's `csv.reader` (the default `excel` dialect, non-strict) fed `str.splitlines()`, which is
 * how PostHog reads an uploaded cohort CSV. Reproduced rather than taken from a CSV library because
 * the two steps together have quirks a general parser does not share: `splitlines()` also breaks on
 * `\v`, `\f`, `\x1c`-`\x1e`, `\x85`, U+2028 and U+2029, and a line break inside a quoted field is
 * dropped (the reader never sees it); a stray quote in an unquoted field is kept as text; an
 * unterminated quoted field runs to the end of the file; a blank line is an empty row.
 * Checked against CPython 3.11 on random inputs of these characters.
 */

import { HedgerowError } from '../errors.js';

/** `csv.field_size_limit()`'s default: a longer field makes the reader raise `csv.Error`. */
export const PYTHON_CSV_FIELD_LIMIT = 131_072;

/** Python's `str.splitlines()`, lazily: no empty last line for a trailing break. */
export function* pythonSplitLines(text: string): Generator<string> {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: \x1c-\x1e and \x85 are line breaks to Python
  const lineBreak = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/g;
  let start = 0;
  for (let m = lineBreak.exec(text); m !== null; m = lineBreak.exec(text)) {
    yield text.slice(start, m.index);
    start = m.index + m[0].length;
  }
  if (start < text.length) yield text.slice(start);
}

const enum State {
  StartField,
  InField,
  InQuotedField,
  QuoteInQuotedField,
}

const HIGH_SURROGATES = /[\uD800-\uDBFF]/g;

/**
 * The rows `csv.reader(lines)` yields. Throws `HR_COHORT_CSV_FORMAT` where Python raises
 * `csv.Error`, which with these settings is only a field longer than `PYTHON_CSV_FIELD_LIMIT`
 * code points. Text from a UTF-8 decoder has no lone surrogates, so a field's code points are its
 * UTF-16 units less its high surrogates.
 */
export function* pythonCsvRows(lines: Iterable<string>): Generator<string[]> {
  let fields: string[] = [];
  let field = '';
  let length = 0;
  let state = State.StartField;

  const save = () => {
    fields.push(field);
    field = '';
    length = 0;
  };
  const add = (text: string) => {
    field += text;
    length += text.length - (text.match(HIGH_SURROGATES)?.length ?? 0);
    if (length > PYTHON_CSV_FIELD_LIMIT) throw new HedgerowError('HR_COHORT_CSV_FORMAT');
  };
  /** Adds the text up to the next `stop` character; returns its index, or -1 at the end of the line. */
  const addUntil = (line: string, from: number, stop: string): number => {
    const at = line.indexOf(stop, from);
    add(line.slice(from, at === -1 ? line.length : at));
    return at;
  };

  for (const line of lines) {
    let i = 0;
    while (i < line.length) {
      switch (state) {
        case State.StartField: {
          const c = line[i];
          if (c === '"') {
            state = State.InQuotedField;
            i++;
          } else if (c === ',') {
            save();
            i++;
          } else state = State.InField;
          break;
        }
        case State.InField: {
          // Quotes inside an unquoted field are plain text.
          const at = addUntil(line, i, ',');
          if (at === -1) i = line.length;
          else {
            save();
            state = State.StartField;
            i = at + 1;
          }
          break;
        }
        case State.InQuotedField: {
          const at = addUntil(line, i, '"');
          if (at === -1) i = line.length;
          else {
            state = State.QuoteInQuotedField;
            i = at + 1;
          }
          break;
        }
        case State.QuoteInQuotedField: {
          const c = line[i];
          if (c === '"') {
            add('"');
            state = State.InQuotedField;
            i++;
          } else if (c === ',') {
            save();
            state = State.StartField;
            i++;
          } else state = State.InField; // `"ab"cd` is `abcd`
          break;
        }
      }
    }
    // End of the line: a quoted field goes on with the next line, without the break; a blank
    // line is an empty row.
    if (state === State.InQuotedField) continue;
    if (line !== '' || fields.length > 0 || state !== State.StartField) save();
    yield fields;
    fields = [];
    state = State.StartField;
  }
  if (state === State.InQuotedField) {
    save();
    yield fields;
  }
}

/**
 * How the Rust flags service turns JSON property values into the strings and numbers its
 * operators compare (docs/compatibility.md#property-matching).
 *
 * * A string is used as it is; every other value is printed as compact JSON the way serde_json
 *   prints it: `null`, `true`, `123`, `1.5`, `1e-7`, `["a",1]`. So a null property is the
 *   string `"null"` (`icontains "nu"` matches it) and `323` contains `"3"`.
 * * Numbers: the Rust side parses `f64` with Rust's grammar (`"1e3"`, `"+5"`, `".5"`, `"inf"`,
 *   `"NaN"` are numbers; `" 5"`, `"0x10"`, `"5px"` are not).
 *
 * JSON numbers reach JavaScript without their int/float distinction, so `1.0` in a request
 * prints as `1` here where serde_json prints `1.0`; integer-valued numbers are printed as
 * integers (what they almost always were on the wire).
 */
import { isUnicodeWhiteSpace, trimWhere } from '../../util/trim-where.js';

const TWO_POW_64 = 18446744073709551616;
const TWO_POW_63 = 9223372036854775808;

/** A finite non-integer (or out-of-integer-range) float printed like serde_json (ryu). */
function ryuFloat(n: number): string {
  if (!Number.isFinite(n)) return 'null'; // serde_json cannot hold NaN/inf; it prints null
  const sign = n < 0 ? '-' : '';
  // toExponential() without an argument gives the shortest round-trip digits, as ryu does.
  const exp = Math.abs(n).toExponential();
  const eAt = exp.indexOf('e');
  const digits = exp.slice(0, eAt).replace('.', '');
  const e = Number(exp.slice(eAt + 1));
  const length = digits.length;
  const k = e - (length - 1); // value = digits × 10^k
  const kk = length + k; // position of the decimal point
  let out: string;
  if (k >= 0 && kk <= 16) out = `${digits}${'0'.repeat(k)}.0`;
  else if (kk > 0 && kk <= 16) out = `${digits.slice(0, kk)}.${digits.slice(kk)}`;
  else if (kk > -5 && kk <= 0) out = `0.${'0'.repeat(-kk)}${digits}`;
  else if (length === 1) out = `${digits}e${kk - 1}`;
  else out = `${digits[0] as string}.${digits.slice(1)}e${kk - 1}`;
  return sign + out;
}

/** A JSON number as serde_json prints it. */
export function rustNumberString(n: number): string {
  if (Number.isInteger(n) && n < TWO_POW_64 && n >= -TWO_POW_63) {
    return Number.isSafeInteger(n) ? String(n) : BigInt(n).toString();
  }
  return ryuFloat(n);
}

function rustJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (value === true) return 'true';
  if (value === false) return 'false';
  if (typeof value === 'number') return rustNumberString(value);
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(rustJson).join(',')}]`;
  if (typeof value === 'object') {
    // serde_json's default map is a BTreeMap: keys in byte order.
    const keys = Object.keys(value).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const record = value as Record<string, unknown>;
    return `{${keys.map((k) => `${JSON.stringify(k)}:${rustJson(record[k])}`).join(',')}}`;
  }
  return 'null';
}

/** Rust `to_string_representation`: a string as it is, anything else as compact JSON. */
export function rustValueString(value: unknown): string {
  return typeof value === 'string' ? value : rustJson(value);
}

/** What Rust's f64 parser takes: no two adjacent quantifiers over digits, so it is linear on any text. */
const RUST_FLOAT = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;
const RUST_FLOAT_SPECIAL = /^([+-]?)(inf|infinity|nan)$/i;

/** Rust `str::parse::<f64>()`: the number, or `undefined` when the text is not one. */
export function rustParseF64(s: string): number | undefined {
  if (RUST_FLOAT.test(s)) return Number(s);
  const special = RUST_FLOAT_SPECIAL.exec(s);
  if (special === null) return undefined;
  if ((special[2] as string).toLowerCase() === 'nan') return NaN;
  return special[1] === '-' ? -Infinity : Infinity;
}

/** Rust `to_f64_representation`: a JSON number, or the parsed string form of anything else. */
export function rustAsF64(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  return rustParseF64(rustValueString(value));
}

const ASCII_UPPER = /[A-Z]/;

/** Rust `to_ascii_lowercase`: only A-Z change (the `icontains` family). */
export function asciiLower(s: string): string {
  if (!ASCII_UPPER.test(s)) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    out += c >= 65 && c <= 90 ? String.fromCharCode(c + 32) : s[i];
  }
  return out;
}

/** Rust `str::trim`. */
export function rustTrim(s: string): string {
  return trimWhere(s, isUnicodeWhiteSpace);
}

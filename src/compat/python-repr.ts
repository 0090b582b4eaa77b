/**
 * How Python prints (and strips) JSON values, for the error details PostHog builds with f-strings
 * ("Invalid value for operator icontains: ['@posthog.com']") and for the JSON strings it stores
 * with `json.dumps` (payload values; docs/compatibility.md#flag-validation); and how it tests
 * values for truth.
 *
 * JSON numbers arrive in JavaScript without their int/float distinction; an integer-valued number
 * is printed as a Python int.
 */
import { isUnicodeWhiteSpace, trimWhere } from '../util/trim-where.js';

/** Python `isprintable()` is false for these categories (the ASCII space aside). */
const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

function escapeCodePoint(cp: number): string {
  if (cp < 0x100) return `\\x${hex(cp, 2)}`;
  if (cp < 0x10000) return `\\u${hex(cp, 4)}`;
  return `\\U${hex(cp, 8)}`;
}

function pythonStringRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0) as number;
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch !== ' ' && NON_PRINTABLE.test(ch)) out += escapeCodePoint(cp);
    else out += ch;
  }
  return out + quote;
}

/** Python's `repr()` of a float or int that came from JSON. */
export function pythonNumber(n: number): string {
  if (Number.isInteger(n)) return Number.isSafeInteger(n) ? String(n) : BigInt(n).toString();
  if (Number.isNaN(n)) return 'nan';
  if (!Number.isFinite(n)) return n > 0 ? 'inf' : '-inf';
  const abs = Math.abs(n);
  if (abs < 1e-4) {
    // Python switches to exponent notation below 1e-4 and pads the exponent to two digits.
    return n.toExponential().replace(/e([+-])(\d)$/, 'e$10$2');
  }
  return String(n);
}

/** Python's `repr()` of a JSON value (`None`, `True`, `'text'`, `[1, 'a']`, `{'k': 1}`). */
export function pythonRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') return pythonNumber(value);
  if (typeof value === 'string') return pythonStringRepr(value);
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(', ')}]`;
  if (typeof value === 'object') {
    const parts = Object.entries(value).map(([k, v]) => `${pythonStringRepr(k)}: ${pythonRepr(v)}`);
    return `{${parts.join(', ')}}`;
  }
  return String(value);
}

/** Python's `str()`: strings as they are, anything else as `repr()`. */
export function pythonStr(value: unknown): string {
  return typeof value === 'string' ? value : pythonRepr(value);
}

/** `type(value).__name__` for a JSON value, as DRF puts it in "got type "str"" messages. */
export function pythonTypeName(value: unknown): string {
  if (value === null || value === undefined) return 'NoneType';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (typeof value === 'string') return 'str';
  if (Array.isArray(value)) return 'list';
  return 'dict';
}

function jsonDumpsString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += '\\\\';
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0d) out += '\\r';
    else if (c === 0x09) out += '\\t';
    else if (c === 0x08) out += '\\b';
    else if (c === 0x0c) out += '\\f';
    else if (c < 0x20 || c > 0x7e)
      out += `\\u${hex(c, 4)}`; // ensure_ascii: UTF-16 units
    else out += s[i];
  }
  return out + '"';
}

/** Python's `json.dumps(value)` with its defaults: `", "`/`": "` separators, ASCII only. */
export function pythonJsonDumps(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (value === true) return 'true';
  if (value === false) return 'false';
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 'NaN';
    if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
    return pythonNumber(value);
  }
  if (typeof value === 'string') return jsonDumpsString(value);
  if (Array.isArray(value)) return `[${value.map(pythonJsonDumps).join(', ')}]`;
  const parts = Object.entries(value as Record<string, unknown>).map(([k, v]) => `${jsonDumpsString(k)}: ${pythonJsonDumps(v)}`);
  return `{${parts.join(', ')}}`;
}

/** Python's whitespace for `str.strip()`: Unicode's, and the separators U+001C–U+001F. */
function isPythonSpace(c: number): boolean {
  return (c >= 0x1c && c <= 0x1f) || isUnicodeWhiteSpace(c);
}

/** Python's truthiness of a JSON value: null, false, 0, '', [] and {} are false. */
export function pythonTruthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object' && value !== null) return Object.keys(value).length > 0;
  return value !== null && value !== undefined && value !== false && value !== 0 && value !== '';
}

/** Python's `str.strip()` with no argument. */
export function pythonStrip(s: string): string {
  return trimWhere(s, isPythonSpace);
}

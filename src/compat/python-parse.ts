/** How Python reads a string as an integer (`int()`) or a UUID (`uuid.UUID()`), as PostHog's API reads ids and cursors. */
import { trimWhere } from '../util/trim-where.js';

/**
 * Python's `int()` of a string: optional sign, digits with single underscores, surrounding spaces;
 * `undefined` when Python would raise. The sign is applied as JavaScript does (`-0` is -0), and
 * digits past 2^53 lose precision: callers that need an exact id check `Number.isSafeInteger`.
 */
export function pythonInt(raw: string): number | undefined {
  const m = /^\s*([+-]?)(\d+(?:_\d+)*)\s*$/.exec(raw);
  if (!m) return undefined;
  const n = Number(m[2]!.replaceAll('_', ''));
  return m[1] === '-' ? -n : n;
}

/**
 * The canonical (lower-case, hyphenated) form of a UUID in any form Python's `UUID()` takes:
 * 32 hex digits, hyphens anywhere, optional braces and `urn:uuid:` prefix. Else undefined.
 */
export function canonicalUuid(raw: string): string | undefined {
  const unprefixed = raw
    .trim()
    .replace(/^urn:/i, '')
    .replace(/^uuid:/i, '');
  // Braces stripped by index: `/^\{+|\}+$/g` is quadratic on a run of `}` not at the end.
  const hex = trimWhere(unprefixed, (c) => c === 0x7b /* { */ || c === 0x7d /* } */).replaceAll('-', '');
  if (!/^[0-9a-f]{32}$/i.test(hex)) return undefined;
  const h = hex.toLowerCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

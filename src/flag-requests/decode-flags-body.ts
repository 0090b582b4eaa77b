/**
 * The body of a `/flags` or `/decide` POST, from bytes to a parsed JSON value
 * (docs/compatibility.md#flags-requests; PostHog/posthog
 * `rust/feature-flags/src/handler/decoding.rs`, `rust/feature-flags/src/flags/flag_request.rs`
 * `from_bytes`). Pure, no I/O.
 *
 * A plain JSON object body (the SDKs' usual request) goes straight to `JSON.parse`. Everything else
 * goes through the extraction capture uses too (src/wire/: form `data=` with the `+`/space repair, whole-body base64,
 * compression hints from the query, form or `Content-Encoding`), then gunzip (by magic bytes) or
 * lz64, then JSON, then the Rust fallback of decoding the text as lenient base64 and trying again.
 *
 * Deliberately more lenient than Rust, which answers 400 to these: an unknown content type (read
 * as JSON), a gzip hint on a body that is not gzip (read as is), and lz64 (capture accepts it).
 * Like Rust, invalid UTF-8 is replaced with U+FFFD rather than refused, and bare `NaN`,
 * `Infinity` and `-Infinity` outside strings are read as `null`.
 */

import { catalogueError, HedgerowError, isHedgerowError } from '../errors.js';
import { asBuffer, decodeBase64Strict } from '../wire/base64.js';
import { queryCompressionHint } from '../wire/compression-hint.js';
import { checkDecodedSize, decodeWithinLimit, gunzipCapped, hasGzipMagic, isUndecodable } from '../wire/decompress-payload.js';
import { extractPayloadBytes, isFormContentType, type ExtractedPayload, type PayloadQuery } from '../wire/extract-payload.js';
import { lzDecompressFromBase64 } from '../wire/lz-string-capped.js';

export interface FlagsHttpInput {
  /** Raw query string without the leading `?` ('' when absent). */
  query: string;
  /** Header values, '' when absent. */
  contentType: string;
  contentEncoding: string;
  body: Uint8Array;
}

const OPEN_BRACE = 0x7b;
/** Lossy, as Rust's `String::from_utf8_lossy`; also drops a leading BOM. */
const utf8Lossy = new TextDecoder('utf-8');

/**
 * Returns the parsed JSON value, or throws a 400 `malformed_data` (empty, undecodable or not
 * JSON) or a 413 (more than `maxDecompressedBytes` once decoded: `isOverDecodedLimit`).
 */
export function decodeFlagsBody(input: FlagsHttpInput, maxDecompressedBytes: number): unknown {
  const body = input.body;
  if (body.length === 0) throw new HedgerowError('HR_FLAGS_EMPTY_BODY');

  // Fast path: a JSON object is neither gzip, base64, lz64 nor a form, whatever the headers say.
  if (body[0] === OPEN_BRACE) {
    checkDecodedSize(body.length, maxDecompressedBytes);
    const value = parseJsonTolerant(asBuffer(body).toString('utf8'));
    if (value === undefined) throw new HedgerowError('HR_FLAGS_INVALID_JSON');
    return value;
  }

  let text: string;
  try {
    text = payloadText(extractPayloadBytes(input, queryFor(input.query)), maxDecompressedBytes);
  } catch (err) {
    if (isHedgerowError(err) && (isUndecodable(err.hedgerowCode) || err.hedgerowCode === 'HR_EMPTY_PAYLOAD')) {
      throw catalogueError('HR_FLAGS_MALFORMED', { reason: err.message });
    }
    throw err;
  }

  const value = parseJsonTolerant(text) ?? parseBase64Fallback(text, isFormContentType(input.contentType));
  if (value === undefined) throw new HedgerowError('HR_FLAGS_INVALID_JSON');
  return value;
}

/** The query as the extraction reads it: its compression hint, without a legacy `?data=` payload (the flags service never reads one). */
function queryFor(query: string): PayloadQuery {
  return { data: '', compression: queryCompressionHint(query) };
}

/**
 * The extracted payload as text: gunzip when it starts with the gzip magic, lz64 when hinted,
 * else the bytes as UTF-8. A base64 hint is left to the fallback (Rust tries JSON first).
 */
function payloadText(payload: ExtractedPayload, maxBytes: number): string {
  const bytes = payload.bytes;
  if (hasGzipMagic(bytes)) {
    return utf8Lossy.decode(decodeWithinLimit(bytes.length, maxBytes, (limit) => gunzipCapped(bytes, limit)));
  }
  if (payload.hint === 'lz64') {
    // Every UTF-16 unit is at least one UTF-8 byte, so a unit cap of the byte limit is never too tight.
    const input = bytes.toString('latin1');
    const text = decodeWithinLimit(bytes.length, maxBytes, (limit) => lzDecompressFromBase64(input, limit));
    if (text === null || text === '') throw new HedgerowError('HR_FLAGS_INVALID_LZ64');
    return text;
  }
  checkDecodedSize(bytes.length, maxBytes);
  return utf8Lossy.decode(bytes);
}

/** `JSON.parse`, retried once with bare non-finite literals turned into `null`; `undefined` = not JSON. */
function parseJsonTolerant(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    const cleaned = replaceNonFiniteLiterals(text);
    if (cleaned === undefined) return undefined;
    try {
      return JSON.parse(cleaned) as unknown;
    } catch {
      return undefined;
    }
  }
}

/**
 * Rust `decode_base64` then JSON: percent-decode, drop spaces (or, for a form value, where
 * urldecoding turned `+` into spaces, put the `+` back), pad to a multiple of 4, decode.
 */
function parseBase64Fallback(text: string, fromForm: boolean): unknown {
  let s = text.trim();
  if (s.includes('%')) {
    try {
      s = decodeURIComponent(s);
    } catch {
      return undefined;
    }
  }
  if (s.includes(' ')) s = s.replaceAll(' ', fromForm ? '+' : '');
  const rem = s.length % 4;
  if (rem !== 0) s += '='.repeat(4 - rem);
  const decoded = decodeBase64Strict(s);
  return decoded === undefined ? undefined : parseJsonTolerant(utf8Lossy.decode(decoded));
}

const NON_FINITE: readonly string[] = ['NaN', 'Infinity', '-Infinity'];

/**
 * Replaces `NaN`, `Infinity` and `-Infinity` outside strings with `null` (Python's `json.dumps`
 * writes them; Rust parses with json5 and nulls them). `undefined` when there was none.
 */
export function replaceNonFiniteLiterals(text: string): string | undefined {
  let out = '';
  let copiedTo = 0;
  let replaced = false;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) {
      inString = true;
      continue;
    }
    if (c !== 0x4e && c !== 0x49 && c !== 0x2d) continue; // N, I, -
    const literal = NON_FINITE.find((l) => text.startsWith(l, i));
    if (literal === undefined) continue;
    out += text.slice(copiedTo, i) + 'null';
    i += literal.length - 1;
    copiedTo = i + 1;
    replaced = true;
  }
  return replaced ? out + text.slice(copiedTo) : undefined;
}

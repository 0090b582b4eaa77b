/**
 * Decompression (docs/compatibility.md#request-decoding; PostHog/posthog
 * `rust/capture/src/payload/decompression.rs` `decompress_payload`): turn the extracted payload
 * into UTF-8 text, never producing more than the decompressed-size budget.
 */

import { constants as bufferConstants } from 'node:buffer';
import { gunzipSync } from 'node:zlib';
import { catalogueError, type ErrorCode, HedgerowError, isHedgerowError } from '../errors.js';
import { DECODED_FLOOR_BYTES, MAX_DECODED_RATIO } from '../limits.js';
import { asBuffer, decodeBase64Strict, decodeBase64StrictBytes, looksLikeBase64 } from './base64.js';
import type { ExtractedPayload } from './extract-payload.js';
import { gzipOutputLength, INVALID_GZIP, OVER_LIMIT } from './gzip-output-length.js';
import { lzDecompressFromBase64 } from './lz-string-capped.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The 413s of a payload over its decoded-size budget. */
const OVER_DECODED_LIMIT: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'HR_DECOMPRESSED_TOO_LARGE',
  'HR_DECOMPRESSED_RATIO',
  'HR_PAYLOAD_OVER_BUDGET',
  'HR_LZ64_TOO_LARGE',
]);

/** The 400s of a payload that does not decode: not gzip, lz64, UTF-8 or UTF-16. */
const UNDECODABLE: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'HR_GZIP_INVALID',
  'HR_GZIP_NOT_UTF8',
  'HR_PAYLOAD_NOT_UTF8',
  'HR_LZ64_INVALID',
  'HR_LZ64_NOT_UTF16',
]);

/** Whether `code` refuses a payload for decoding to more than its budget (413). */
export function isOverDecodedLimit(code: ErrorCode): boolean {
  return OVER_DECODED_LIMIT.has(code);
}

/** Whether `code` refuses a payload that does not decode (400). */
export function isUndecodable(code: ErrorCode): boolean {
  return UNDECODABLE.has(code);
}

/**
 * The most a compressed payload of `compressedBytes` may decode to: the daemon's decompressed
 * budget, and past `DECODED_FLOOR_BYTES` no more than `MAX_DECODED_RATIO` times its own size.
 */
export function decodedLimit(compressedBytes: number, maxBytes: number): number {
  return Math.min(maxBytes, Math.max(DECODED_FLOOR_BYTES, MAX_DECODED_RATIO * compressedBytes));
}

/**
 * Runs `decode` with the `decodedLimit` of a payload of `compressedBytes`; when the ratio is what
 * refused it, the 413 says so (a client can then send it in smaller batches, or uncompressed).
 */
export function decodeWithinLimit<T>(compressedBytes: number, maxBytes: number, decode: (limit: number) => T): T {
  const limit = decodedLimit(compressedBytes, maxBytes);
  if (limit === maxBytes) return decode(limit);
  try {
    return decode(limit);
  } catch (err) {
    if (!isHedgerowError(err) || !isOverDecodedLimit(err.hedgerowCode)) throw err;
    throw catalogueError('HR_DECOMPRESSED_RATIO', {
      limit,
      floor: DECODED_FLOOR_BYTES,
      ratio: MAX_DECODED_RATIO,
      compressed: compressedBytes,
    });
  }
}

export function hasGzipMagic(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/**
 * A body whose gzip trailer claims at most this many bytes is inflated at once, into one buffer
 * of the claimed size, and no further: SDK batches are far smaller, and a trailer that claims less
 * than the body holds costs no more than its claim before the body is measured
 * (gzip-output-length.ts) instead.
 */
export const INFLATE_UNMEASURED_MAX_BYTES = 2 * 1024 * 1024;
/** zlib's default output chunk, the smallest used: a claim of a few bytes must not make tiny chunks. */
const MIN_CHUNK_BYTES = 16 * 1024;
/** gzip's trailer: CRC-32, then ISIZE (the last member's length modulo 2^32). */
const GZIP_MIN_BYTES = 18;

/**
 * Gunzips with an output cap, never building more than its trailer claims of a body over it. Over
 * the cap -> `HR_DECOMPRESSED_TOO_LARGE` (413); not gzip, truncated or corrupt ->
 * `HR_GZIP_INVALID` (400).
 *
 * When the trailer's ISIZE (what the last member holds, modulo 2^32) claims at most
 * `INFLATE_UNMEASURED_MAX_BYTES` (and the cap), the body is inflated at once into one buffer of
 * that size (no chunks to join), stopping past it. Anything else (a larger claim, or a body that
 * holds more than it claimed: several members, or a lie) is first measured from its Huffman
 * codes, and inflated only once it is known to fit. The claim alone never refuses a body: a
 * truncated one ends in any 4 bytes.
 */
export function gunzipCapped(bytes: Uint8Array, maxBytes: number): Buffer {
  const cap = Math.max(1, Math.min(maxBytes, bufferConstants.MAX_LENGTH));
  const claimed = bytes.length >= GZIP_MIN_BYTES ? asBuffer(bytes).readUInt32LE(bytes.length - 4) : 0;
  if (claimed <= Math.min(cap, INFLATE_UNMEASURED_MAX_BYTES)) {
    const out = inflateUpTo(bytes, claimed);
    if (out !== undefined) return out;
  }
  const length = gzipOutputLength(bytes, cap);
  if (length === OVER_LIMIT) throw gzipTooLarge(maxBytes);
  if (length === INVALID_GZIP) throw invalidGzip();
  const out = inflateUpTo(bytes, length);
  if (out === undefined) throw invalidGzip(); // zlib disagrees with the measure: not gzip it accepts
  return out;
}

/** Gunzips into one buffer when the body holds at most `length` bytes; `undefined` when it holds more. */
function inflateUpTo(bytes: Uint8Array, length: number): Buffer | undefined {
  try {
    return gunzipSync(bytes, { maxOutputLength: Math.max(1, length), chunkSize: Math.max(length + 1, MIN_CHUNK_BYTES) });
  } catch (err) {
    if (err instanceof RangeError || (err as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') return undefined;
    throw invalidGzip();
  }
}

function gzipTooLarge(maxBytes: number): HedgerowError {
  return catalogueError('HR_DECOMPRESSED_TOO_LARGE', { max_bytes: maxBytes });
}

function invalidGzip(): HedgerowError {
  return new HedgerowError('HR_GZIP_INVALID');
}

/** `bytes` as UTF-8 text, or `invalid` (what they were: gunzipped or as sent). */
function decodeUtf8(bytes: Uint8Array, invalid: 'HR_GZIP_NOT_UTF8' | 'HR_PAYLOAD_NOT_UTF8'): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new HedgerowError(invalid);
  }
}

/** Refuses a payload of more than `maxBytes` decoded bytes. */
export function checkDecodedSize(bytes: number, maxBytes: number): void {
  if (bytes > maxBytes) throw catalogueError('HR_PAYLOAD_OVER_BUDGET', { bytes, max_bytes: maxBytes });
}

interface WellFormedString {
  isWellFormed(): boolean;
}

function lz64ToText(bytes: Buffer, maxBytes: number): string {
  // Every UTF-16 unit is at least one UTF-8 byte, so a unit cap of maxBytes is never too tight.
  const text = lzDecompressFromBase64(bytes.toString('latin1'), maxBytes);
  if (text === null || text === '') throw new HedgerowError('HR_LZ64_INVALID');
  if (!(text as unknown as WellFormedString).isWellFormed()) throw new HedgerowError('HR_LZ64_NOT_UTF16');
  checkDecodedSize(Buffer.byteLength(text, 'utf8'), maxBytes);
  return text;
}

/**
 * Decodes an extracted payload to text, gzip and lz64 within their `decodedLimit`. Order: an explicit base64 hint (used when the bytes are
 * strict base64, else ignored), gzip when the bytes start with `1f 8b` (a gzip hint without the
 * magic falls back to plain text: docs/compatibility.md#request-decoding), lz64 when hinted, else
 * plain UTF-8. A result that still looks like base64 is decoded once more when that yields UTF-8: this
 * is how a form's `data=<base64>` without a hint is read, on every capture path. capture-rs does
 * it on its legacy paths only (`/e`, `/capture`, `/engage`, `/track`; payload/decompression.rs,
 * with a TODO to try it on `/i/v0/e` and `/batch` too), Django's capture on every path
 * (posthog/utils.py `load_data_from_request`). Text that is still base64 cannot be an event or a
 * batch, so decoding it on every path refuses nothing PostHog accepts, and the same body means
 * the same on every path.
 */
export function decompressPayload(payload: ExtractedPayload, maxBytes: number): string {
  let bytes = payload.bytes;
  if (payload.hint === 'base64' && !payload.base64Decoded) {
    // A wrong hint falls back to the bytes as sent: capture-rs never applies this hint after its
    // sniff, Django uses base64 only when it decodes (posthog/utils.py `load_data_from_request`).
    bytes = decodeBase64StrictBytes(bytes) ?? bytes;
  }

  let text: string;
  if (hasGzipMagic(bytes)) {
    const gunzipped = decodeWithinLimit(bytes.length, maxBytes, (limit) => gunzipCapped(bytes, limit));
    text = decodeUtf8(gunzipped, 'HR_GZIP_NOT_UTF8');
  } else if (payload.hint === 'lz64') {
    text = decodeWithinLimit(bytes.length, maxBytes, (limit) => lz64ToText(bytes, limit));
  } else {
    checkDecodedSize(bytes.length, maxBytes);
    text = decodeUtf8(bytes, 'HR_PAYLOAD_NOT_UTF8');
  }

  if (looksLikeBase64(text, false)) {
    const decoded = decodeBase64Strict(text);
    if (decoded !== undefined) {
      // `decoded` is shorter than `text`, which is already within the budget.
      try {
        text = utf8.decode(decoded);
      } catch {
        // not text after all: keep the payload as it was (capture-rs does the same)
      }
    }
  }
  return text;
}

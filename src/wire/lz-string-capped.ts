/**
 * lz-string's `decompressFromBase64` (lz-string 1.5.0, MIT, by pieroxy) with an output cap.
 *
 * The library has no way to stop early, and its LZ78-style dictionary makes a bomb easy: n input
 * tokens can expand to ~n²/2 characters, and the library keeps every dictionary entry as a string
 * of its own, so its memory grows like the output. This port gives the same results (checked
 * against the library in the unit tests) in two passes over the input:
 *
 * 1. `measure` follows the dictionary by entry lengths only and adds up the output length, without
 *    producing a character: an input that would pass the cap costs O(input) time and a few bytes
 *    per token of memory, however far it would expand.
 * 2. `build` writes exactly that many UTF-16 code units into one typed array. Each dictionary
 *    entry is a slice of the output already written (an entry is the previous output entry plus
 *    the next one's first character, which follows it in the output), so it is kept as
 *    (offset, length): no strings, no quadratic dictionary.
 */

import { endianness } from 'node:os';
import { HedgerowError } from '../errors.js';

const BIG_ENDIAN = endianness() === 'BE';

const KEY_BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=';
/**
 * Character code -> its 6-bit value with the bits in reverse order (characters outside the
 * alphabet read as 0, as in the library). The library reads each character's bits from the most
 * significant one and puts the first bit read in a value's lowest bit; reversed, the input is a
 * plain least-significant-bit-first stream, read a whole value at a time.
 */
const REVERSED = new Uint8Array(128);
for (let i = 0; i < KEY_BASE64.length; i++) {
  let r = 0;
  for (let bit = 0; bit < 6; bit++) if (i & (1 << bit)) r |= 1 << (5 - bit);
  REVERSED[KEY_BASE64.charCodeAt(i)] = r;
}

/** Beyond this the library's `power <<= 1` overflows; no input the body cap allows gets near it. */
const MAX_NUM_BITS = 30;
/** Entries shorter than this are copied unit by unit: cheaper than a `copyWithin` call. */
const SHORT_COPY = 16;

/** `measure`'s answer when the input ends before its end marker (the library returns ''). */
const TRUNCATED = -1;
/** `measure`'s answer for an invalid input (the library returns null). */
const INVALID = -2;

/** The library's bit reader, a value at a time; past the input it reads zeros, as the library does. */
class BitReader {
  private buffer = 0;
  private buffered = 0;
  private next = 0;
  private consumed = 0;
  private readonly endBit: number;

  constructor(private readonly input: string) {
    this.endBit = input.length * 6;
  }

  read(count: number): number {
    // `buffer` holds at most count + 5 bits: keep that within 31.
    if (count > 24) return this.read(12) + this.read(count - 12) * 4096;
    while (this.buffered < count) {
      const c = this.next < this.input.length ? this.input.charCodeAt(this.next) : 0;
      this.next++;
      this.buffer |= (c < 128 ? (REVERSED[c] as number) : 0) << this.buffered;
      this.buffered += 6;
    }
    const value = this.buffer & ((1 << count) - 1);
    this.buffer >>>= count;
    this.buffered -= count;
    this.consumed += count;
    return value;
  }

  /** Every bit of the input was read (the library's `data.index > length`). */
  exhausted(): boolean {
    return this.consumed >= this.endBit;
  }
}

/**
 * Returns the decompressed string, `''` when the input ends early, `null` when it is invalid
 * (both mean failure to a caller, as in Django's `decompress`). Throws `HR_LZ64_TOO_LARGE`
 * when the output would pass `maxUnits` UTF-16 code units, before producing any of it.
 */
export function lzDecompressFromBase64(input: string, maxUnits: number): string | null {
  const measured = measure(input, maxUnits);
  if (measured === TRUNCATED) return '';
  if (measured === INVALID) return null;
  const units = build(input, measured.units, measured.entries);
  const bytes = Buffer.from(units.buffer, units.byteOffset, units.byteLength);
  // A Uint16Array holds the machine's byte order; 'utf16le' reads little-endian.
  if (BIG_ENDIAN) bytes.swap16();
  return bytes.toString('utf16le');
}

interface Measured {
  /** Output length in UTF-16 code units. */
  units: number;
  /** Dictionary size at the end (how many entries `build` will make). */
  entries: number;
}

/** Pass 1: the output length, following the dictionary by entry lengths only. */
function measure(input: string, maxUnits: number): Measured | typeof TRUNCATED | typeof INVALID {
  const length = input.length;
  if (length === 0) return INVALID;
  const bits = new BitReader(input);
  switch (bits.read(2)) {
    case 0:
      bits.read(8);
      break;
    case 1:
      bits.read(16);
      break;
    case 2:
      return TRUNCATED;
    default:
      return INVALID;
  }

  let entryLengths = new Int32Array(64);
  entryLengths[3] = 1;
  let dictSize = 4;
  let enlargeIn = 4;
  let numBits = 3;
  let wLen = 1;
  let units = 1;
  if (units > maxUnits) throw tooLarge();

  for (;;) {
    if (bits.exhausted()) return TRUNCATED;
    // Two entries at most are added below.
    if (dictSize + 2 > entryLengths.length) entryLengths = grow(entryLengths);
    let code = bits.read(numBits);
    if (code === 0 || code === 1) {
      bits.read(code === 0 ? 8 : 16);
      entryLengths[dictSize++] = 1;
      code = dictSize - 1;
      enlargeIn--;
    } else if (code === 2) {
      return { units, entries: dictSize };
    }
    if (enlargeIn === 0) {
      enlargeIn = 2 ** numBits;
      numBits++;
    }

    let entryLen: number;
    if (code < dictSize) entryLen = entryLengths[code] as number;
    else if (code === dictSize) entryLen = wLen + 1;
    else return INVALID;
    units += entryLen;
    if (units > maxUnits) throw tooLarge();

    entryLengths[dictSize++] = wLen + 1;
    enlargeIn--;
    wLen = entryLen;
    if (enlargeIn === 0) {
      enlargeIn = 2 ** numBits;
      numBits++;
    }
    if (numBits > MAX_NUM_BITS) return INVALID;
  }
}

/** Pass 2, over an input `measure` accepted: the `units` code units of the output. */
function build(input: string, units: number, entries: number): Uint16Array {
  const out = new Uint16Array(units);
  const entryOffsets = new Int32Array(entries);
  const entryLengths = new Int32Array(entries);
  const bits = new BitReader(input);
  out[0] = bits.read(bits.read(2) === 0 ? 8 : 16);
  entryOffsets[3] = 0;
  entryLengths[3] = 1;
  let dictSize = 4;
  let enlargeIn = 4;
  let numBits = 3;
  /** The previous entry written: where, and how long. */
  let wOff = 0;
  let wLen = 1;
  let pos = 1;

  for (;;) {
    let code = bits.read(numBits);
    let entryLen: number;
    if (code === 0 || code === 1) {
      out[pos] = bits.read(code === 0 ? 8 : 16);
      entryOffsets[dictSize] = pos;
      entryLengths[dictSize] = 1;
      code = dictSize++;
      enlargeIn--;
      entryLen = 1;
    } else if (code === 2) {
      return out;
    } else if (code < dictSize) {
      const from = entryOffsets[code] as number;
      entryLen = entryLengths[code] as number;
      if (entryLen < SHORT_COPY) for (let i = 0; i < entryLen; i++) out[pos + i] = out[from + i] as number;
      else out.copyWithin(pos, from, from + entryLen);
    } else {
      // code === dictSize (measure checked it): the previous entry plus its own first unit.
      if (wLen < SHORT_COPY) for (let i = 0; i < wLen; i++) out[pos + i] = out[wOff + i] as number;
      else out.copyWithin(pos, wOff, wOff + wLen);
      out[pos + wLen] = out[wOff] as number;
      entryLen = wLen + 1;
    }
    if (enlargeIn === 0) {
      enlargeIn = 2 ** numBits;
      numBits++;
    }

    // w + entry[0]: the previous entry and the first unit of this one, which follows it.
    entryOffsets[dictSize] = wOff;
    entryLengths[dictSize] = wLen + 1;
    dictSize++;
    enlargeIn--;
    wOff = pos;
    wLen = entryLen;
    pos += entryLen;
    if (enlargeIn === 0) {
      enlargeIn = 2 ** numBits;
      numBits++;
    }
  }
}

function grow(a: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const bigger = new Int32Array(a.length * 2);
  bigger.set(a);
  return bigger;
}

function tooLarge(): HedgerowError {
  return new HedgerowError('HR_LZ64_TOO_LARGE');
}

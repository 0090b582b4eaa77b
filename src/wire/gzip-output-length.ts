/**
 * How many bytes a gzip body inflates to, found by reading its Huffman codes without producing
 * a byte (RFC 1952 members around RFC 1951 deflate data). A literal counts one byte and a
 * back-reference its length: the window is never needed, so a bomb is measured in time
 * proportional to its own size, with a few KB of tables, and refused before anything is built.
 *
 * It follows what node:zlib's gunzip accepts: members one after another (another member starts
 * wherever the input goes on with a byte other than 0, as Node's gunzip decides; a 0 ends it),
 * and zlib's checks on the deflate data (block types, stored lengths, code sets, symbols and
 * distances). The header CRC and each member's CRC-32 are left to zlib, which checks them when
 * the body is then inflated for real; the trailer's ISIZE is checked here, as zlib does.
 */

/** The body holds more than the limit. */
export const OVER_LIMIT = -1;
/** The body is not gzip that zlib would inflate. */
export const INVALID_GZIP = -2;

/** A gzip member's fixed header: ID1 ID2 CM FLG MTIME(4) XFL OS. */
const HEADER_BYTES = 10;
const FTEXT_FHCRC = 0x02;
const FEXTRA = 0x04;
const FNAME = 0x08;
const FCOMMENT = 0x10;
const RESERVED_FLAGS = 0xe0;
/** CRC-32 and ISIZE. */
const TRAILER_BYTES = 8;

const LENGTH_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const LENGTH_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DIST_BASE = [
  1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385,
  24577,
];
const DIST_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];
/** The order in which a dynamic block lists the code lengths of its code-length code. */
const CODE_LENGTH_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];
const END_OF_BLOCK = 256;

/**
 * A canonical Huffman code as a lookup table over its longest code's bits (read least
 * significant first): each entry is `symbol << 4 | code length`, 0 where no code starts.
 */
interface HuffmanTable {
  entries: Int32Array;
  bits: number;
}

const enum CodeKind {
  /** The code-length code of a dynamic block: it must be complete. */
  CodeLengths,
  /** Literal/length or distance codes: incomplete only as a single one-bit code (zlib's rule). */
  Symbols,
}

/** `undefined` for an over-subscribed code, or an incomplete one zlib refuses. */
function huffmanTable(lengths: ArrayLike<number>, count: number, kind: CodeKind): HuffmanTable | undefined {
  const perLength = new Int32Array(16);
  let maxBits = 0;
  for (let s = 0; s < count; s++) {
    const len = lengths[s] as number;
    perLength[len]!++;
    if (len > maxBits) maxBits = len;
  }
  if (maxBits === 0) {
    // No symbol at all: any code read from it is invalid (zlib builds such a table too).
    return kind === CodeKind.CodeLengths ? undefined : { entries: new Int32Array(2), bits: 1 };
  }
  let left = 1;
  for (let len = 1; len <= 15; len++) {
    left = left * 2 - (perLength[len] as number);
    if (left < 0) return undefined;
  }
  if (left > 0 && (kind === CodeKind.CodeLengths || maxBits !== 1)) return undefined;

  // RFC 1951 3.2.2: the first code of each length.
  const nextCode = new Int32Array(16);
  perLength[0] = 0;
  let code = 0;
  for (let len = 1; len <= 15; len++) {
    code = (code + (perLength[len - 1] as number)) << 1;
    nextCode[len] = code;
  }

  const size = 1 << maxBits;
  const entries = new Int32Array(size);
  for (let s = 0; s < count; s++) {
    const len = lengths[s] as number;
    if (len === 0) continue;
    const c = nextCode[len]!++;
    let reversed = 0;
    for (let i = 0; i < len; i++) reversed |= ((c >> i) & 1) << (len - 1 - i);
    const entry = (s << 4) | len;
    for (let at = reversed; at < size; at += 1 << len) entries[at] = entry;
  }
  return { entries, bits: maxBits };
}

const FIXED_LITERALS = huffmanTable(
  Array.from({ length: 288 }, (_, s) => (s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8)),
  288,
  CodeKind.Symbols,
) as HuffmanTable;
// 32 five-bit codes, of which 30 and 31 are invalid distances (checked where they are read).
const FIXED_DISTANCES = huffmanTable(new Array<number>(32).fill(5), 32, CodeKind.Symbols) as HuffmanTable;

/** Thrown inside the scan; turned into INVALID_GZIP at its edge. */
class Invalid extends Error {}
/** Thrown inside the scan once the limit is passed. */
class OverLimit extends Error {}

/** A least-significant-bit-first reader over the body. */
class Bits {
  private buffer = 0;
  private buffered = 0;

  constructor(
    private readonly bytes: Uint8Array,
    public pos: number,
  ) {}

  /** The next `count` (≤ 24) bits; past the end of the input: invalid. */
  take(count: number): number {
    while (this.buffered < count) {
      if (this.pos >= this.bytes.length) throw new Invalid();
      this.buffer |= (this.bytes[this.pos++] as number) << this.buffered;
      this.buffered += 8;
    }
    const value = this.buffer & ((1 << count) - 1);
    this.buffer >>>= count;
    this.buffered -= count;
    return value;
  }

  /** The next symbol of `table`. */
  decode(table: HuffmanTable): number {
    while (this.buffered < table.bits && this.pos < this.bytes.length) {
      this.buffer |= (this.bytes[this.pos++] as number) << this.buffered;
      this.buffered += 8;
    }
    const entry = table.entries[this.buffer & ((1 << table.bits) - 1)] as number;
    const len = entry & 15;
    if (entry === 0 || len > this.buffered) throw new Invalid();
    this.buffer >>>= len;
    this.buffered -= len;
    return entry >> 4;
  }

  /** Drops the bits left in the current byte and returns the position of the next whole byte. */
  alignToByte(): number {
    this.pos -= this.buffered >> 3;
    this.buffer = 0;
    this.buffered = 0;
    return this.pos;
  }
}

/**
 * The number of bytes `bytes` inflates to with node:zlib's gunzip, when that is at most `limit`;
 * `OVER_LIMIT` as soon as the count passes it; `INVALID_GZIP` for input zlib would refuse
 * (except for a wrong CRC, which only inflating finds).
 */
export function gzipOutputLength(bytes: Uint8Array, limit: number): number {
  try {
    let total = 0;
    let pos = 0;
    do {
      const member = scanMember(bytes, pos, limit - total);
      total += member.length;
      pos = member.end;
    } while (pos < bytes.length && bytes[pos] !== 0);
    return total;
  } catch (err) {
    if (err instanceof OverLimit) return OVER_LIMIT;
    if (err instanceof Invalid) return INVALID_GZIP;
    throw err;
  }
}

/** One member from `start`: its output length (at most `budget`) and where the next begins. */
function scanMember(bytes: Uint8Array, start: number, budget: number): { length: number; end: number } {
  let pos = headerEnd(bytes, start);
  const bits = new Bits(bytes, pos);
  let length = 0;
  for (;;) {
    const last = bits.take(1);
    const type = bits.take(2);
    if (type === 0) {
      pos = bits.alignToByte();
      if (pos + 4 > bytes.length) throw new Invalid();
      const len = (bytes[pos] as number) | ((bytes[pos + 1] as number) << 8);
      const nlen = (bytes[pos + 2] as number) | ((bytes[pos + 3] as number) << 8);
      if (len !== (~nlen & 0xffff)) throw new Invalid();
      pos += 4 + len;
      if (pos > bytes.length) throw new Invalid();
      bits.pos = pos;
      length += len;
      if (length > budget) throw new OverLimit();
    } else if (type === 1) {
      length = scanCodes(bits, FIXED_LITERALS, FIXED_DISTANCES, length, budget);
    } else if (type === 2) {
      const [literals, distances] = dynamicTables(bits);
      length = scanCodes(bits, literals, distances, length, budget);
    } else {
      throw new Invalid();
    }
    if (last === 1) break;
  }
  pos = bits.alignToByte();
  if (pos + TRAILER_BYTES > bytes.length) throw new Invalid();
  const isize =
    ((bytes[pos + 4] as number) |
      ((bytes[pos + 5] as number) << 8) |
      ((bytes[pos + 6] as number) << 16) |
      ((bytes[pos + 7] as number) << 24)) >>>
    0;
  if (isize !== length % 2 ** 32) throw new Invalid();
  return { length, end: pos + TRAILER_BYTES };
}

/** Where a member's deflate data begins, after its header and optional fields. */
function headerEnd(bytes: Uint8Array, start: number): number {
  if (start + HEADER_BYTES > bytes.length) throw new Invalid();
  if (bytes[start] !== 0x1f || bytes[start + 1] !== 0x8b || bytes[start + 2] !== 8) throw new Invalid();
  const flags = bytes[start + 3] as number;
  if ((flags & RESERVED_FLAGS) !== 0) throw new Invalid();
  let pos = start + HEADER_BYTES;
  if (flags & FEXTRA) {
    if (pos + 2 > bytes.length) throw new Invalid();
    pos += 2 + ((bytes[pos] as number) | ((bytes[pos + 1] as number) << 8));
  }
  if (flags & FNAME) pos = afterZero(bytes, pos);
  if (flags & FCOMMENT) pos = afterZero(bytes, pos);
  if (flags & FTEXT_FHCRC) pos += 2;
  if (pos > bytes.length) throw new Invalid();
  return pos;
}

function afterZero(bytes: Uint8Array, pos: number): number {
  const zero = bytes.indexOf(0, pos);
  if (zero === -1) throw new Invalid();
  return zero + 1;
}

/** A dynamic block's literal/length and distance codes (RFC 1951 3.2.7). */
function dynamicTables(bits: Bits): [HuffmanTable, HuffmanTable] {
  const literalCount = bits.take(5) + 257;
  const distanceCount = bits.take(5) + 1;
  const codeLengthCount = bits.take(4) + 4;
  if (literalCount > 286 || distanceCount > 30) throw new Invalid();
  const codeLengthLengths = new Uint8Array(19);
  for (let i = 0; i < codeLengthCount; i++) codeLengthLengths[CODE_LENGTH_ORDER[i] as number] = bits.take(3);
  const codeLengths = huffmanTable(codeLengthLengths, 19, CodeKind.CodeLengths);
  if (codeLengths === undefined) throw new Invalid();

  const total = literalCount + distanceCount;
  const lengths = new Uint8Array(total);
  let n = 0;
  while (n < total) {
    const symbol = bits.decode(codeLengths);
    if (symbol < 16) {
      lengths[n++] = symbol;
      continue;
    }
    let repeat: number;
    let value = 0;
    if (symbol === 16) {
      if (n === 0) throw new Invalid();
      value = lengths[n - 1] as number;
      repeat = 3 + bits.take(2);
    } else if (symbol === 17) {
      repeat = 3 + bits.take(3);
    } else {
      repeat = 11 + bits.take(7);
    }
    if (n + repeat > total) throw new Invalid();
    lengths.fill(value, n, n + repeat);
    n += repeat;
  }
  if (lengths[END_OF_BLOCK] === 0) throw new Invalid();
  const literals = huffmanTable(lengths.subarray(0, literalCount), literalCount, CodeKind.Symbols);
  const distances = huffmanTable(lengths.subarray(literalCount), distanceCount, CodeKind.Symbols);
  if (literals === undefined || distances === undefined) throw new Invalid();
  return [literals, distances];
}

/** One Huffman-coded block: the member's output length after it. */
function scanCodes(bits: Bits, literals: HuffmanTable, distances: HuffmanTable, length: number, budget: number): number {
  for (;;) {
    const symbol = bits.decode(literals);
    if (symbol < END_OF_BLOCK) {
      if (++length > budget) throw new OverLimit();
      continue;
    }
    if (symbol === END_OF_BLOCK) return length;
    const lengthCode = symbol - 257;
    if (lengthCode >= LENGTH_BASE.length) throw new Invalid();
    const matchLength = (LENGTH_BASE[lengthCode] as number) + bits.take(LENGTH_EXTRA[lengthCode] as number);
    const distanceCode = bits.decode(distances);
    if (distanceCode >= DIST_BASE.length) throw new Invalid();
    const distance = (DIST_BASE[distanceCode] as number) + bits.take(DIST_EXTRA[distanceCode] as number);
    if (distance > length) throw new Invalid();
    length += matchLength;
    if (length > budget) throw new OverLimit();
  }
}

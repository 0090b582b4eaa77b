/**
 * SHA-1 specialised for flag bucketing: `sha1Fraction(a, b, c)` equals
 * `parseInt(sha1Hex(utf8(a + b + c)).slice(0, 15), 16) / 0xfffffffffffffff` bit for bit, without
 * a hex string, a Buffer or (for ASCII input) any other per-call allocation. Bucketing strings are short (20–80
 * bytes), so the fixed cost of a call into node:crypto (a native transition, building the hex
 * string, slicing and parsing it) outweighs the hashing itself; here the message is written
 * straight into a reused buffer and the fraction is read off the state words.
 *
 * The parts are taken separately because callers hash "<key>.", an id and a salt: concatenating
 * them built a rope string that V8 then flattened (a copy) on the first charCodeAt, ≈50 ns a
 * call on 45-byte strings. Text is hashed as UTF-8, like `crypto.hash(…, string)`: ASCII code
 * units are copied as bytes; a string with any code unit ≥ 0x80 is UTF-8 encoded instead, lone
 * surrogates becoming U+FFFD (EF BF BD) as in Node's encoder.
 */
import { hash } from 'node:crypto';

/**
 * The message, padded, as bytes and as 32-bit words over one buffer. SHA-1 reads big-endian
 * words, typed arrays use the host's byte order; byte i of the message is stored at index
 * i ^ BYTE_INDEX_MASK (3 on little-endian hosts, 0 on big-endian ones) so that
 * `messageWords[i >> 2]` is the big-endian word with no swapping. Grown (at most to hold
 * `LONG_MESSAGE` code units), never shrunk.
 */
const BYTE_INDEX_MASK = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1 ? 3 : 0;
let messageBytes = new Uint8Array(1024);
let messageWords = new Int32Array(messageBytes.buffer);

/** 2^28: h0 fills the top 32 of the 60 bits that the first 15 hex digits hold. */
const H0_WEIGHT = 268435456;
/** 0xfffffffffffffff, which as a double is 2^60 — so dividing by it is exact. */
const SCALE = 0xfffffffffffffff;

/** Bucketing fraction of `first + second + third`: the first 60 bits of its SHA-1 over 0xfffffffffffffff. */
export function sha1Fraction(first: string, second = '', third = ''): number {
  const codeUnits = first.length + second.length + third.length;
  if (codeUnits > LONG_MESSAGE) return nativeFraction(first + second + third);
  reserveMessage(codeUnits);
  let length = writeAscii(first, 0);
  if (length >= 0) length = writeAscii(second, length);
  if (length >= 0) length = writeAscii(third, length);
  // Not all ASCII: encode the concatenation, as a surrogate pair may straddle two parts.
  if (length < 0) length = writeUtf8(first + second + third);
  return compressToFraction(padMessage(length));
}

/**
 * Longer texts (a client may send a distinct id of megabytes) go to node:crypto, which hashes
 * them ~20x faster than this code, so the message buffer stays small.
 */
const LONG_MESSAGE = 1024;

function nativeFraction(text: string): number {
  return parseInt(hash('sha1', text, 'hex').slice(0, 15), 16) / SCALE;
}

/** Makes the message buffer hold `codeUnits` UTF-16 code units as UTF-8 (≤ 3 bytes each) plus padding. */
function reserveMessage(codeUnits: number): void {
  const needed = codeUnits * 3 + 72;
  if (messageBytes.length >= needed) return;
  messageBytes = new Uint8Array((needed * 2 + 63) & ~63);
  messageWords = new Int32Array(messageBytes.buffer);
}

/**
 * Copies `text` into the message from byte `position` on, one byte per code unit. Returns the
 * position after it, or -1 at the first code unit ≥ 0x80 (the caller then encodes UTF-8).
 */
function writeAscii(text: string, position: number): number {
  const bytes = messageBytes;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) return -1;
    bytes[(position + i) ^ BYTE_INDEX_MASK] = c;
  }
  return position + length;
}

/**
 * UTF-8 encodes `text` into the message from byte 0 on; returns the byte count. (Each byte is
 * stored inline: a `put(byte)` closure measured ≈10% slower on this path.)
 */
function writeUtf8(text: string): number {
  const bytes = messageBytes;
  const mask = BYTE_INDEX_MASK;
  const length = text.length;
  let n = 0;
  for (let i = 0; i < length; i++) {
    let c = text.charCodeAt(i);
    if (c < 0x80) {
      bytes[n++ ^ mask] = c;
      continue;
    }
    if (c < 0x800) {
      bytes[n++ ^ mask] = 0xc0 | (c >>> 6);
      bytes[n++ ^ mask] = 0x80 | (c & 0x3f);
      continue;
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      const next = i + 1 < length ? text.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        // A high + low surrogate pair: one code point above U+FFFF, four bytes.
        const codePoint = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
        bytes[n++ ^ mask] = 0xf0 | (codePoint >>> 18);
        bytes[n++ ^ mask] = 0x80 | ((codePoint >>> 12) & 0x3f);
        bytes[n++ ^ mask] = 0x80 | ((codePoint >>> 6) & 0x3f);
        bytes[n++ ^ mask] = 0x80 | (codePoint & 0x3f);
        i++;
        continue;
      }
      c = 0xfffd; // a lone surrogate
    }
    bytes[n++ ^ mask] = 0xe0 | (c >>> 12);
    bytes[n++ ^ mask] = 0x80 | ((c >>> 6) & 0x3f);
    bytes[n++ ^ mask] = 0x80 | (c & 0x3f);
  }
  return n;
}

/**
 * Pads the `byteLength`-byte message: a 0x80 byte, zeros up to 8 bytes short of a 64-byte
 * boundary, then the length in bits as a 64-bit big-endian integer. Returns the block count.
 */
function padMessage(byteLength: number): number {
  const bytes = messageBytes;
  const words = messageWords;
  const blocks = ((byteLength + 8) >>> 6) + 1;
  const lengthWord = blocks * 16 - 2;
  let position = byteLength;
  bytes[position++ ^ BYTE_INDEX_MASK] = 0x80;
  while ((position & 3) !== 0) bytes[position++ ^ BYTE_INDEX_MASK] = 0;
  for (let w = position >>> 2; w < lengthWord; w++) words[w] = 0;
  // Any JS string's UTF-8 is shorter than 2^53 bits, so the high word is a plain division.
  words[lengthWord] = Math.floor(byteLength / 0x20000000);
  words[lengthWord + 1] = (byteLength << 3) | 0;
  return blocks;
}

/** Round constants of rounds 0–19, 20–39, 40–59 and 60–79, as int32. */
const K0 = 0x5a827999;
const K1 = 0x6ed9eba1;
const K2 = 0x8f1bbcdc | 0;
const K3 = 0xca62c1d6 | 0;

function rotl1(x: number): number {
  return (x << 1) | (x >>> 31);
}
function rotl5(x: number): number {
  return (x << 5) | (x >>> 27);
}
function rotl30(x: number): number {
  return (x << 30) | (x >>> 2);
}

/**
 * Runs the SHA-1 compression over the first `blocks` blocks of `messageWords` and returns
 * (h0 · 2^28 + (h1 >>> 4)) / 0xfffffffffffffff. The sum is exact below 2^60 before its one
 * rounding to a double, the same correctly rounded value `parseInt(hex15, 16)` yields; the
 * division by 2^60 is exact.
 *
 * The 80 rounds are written out, with the 16-word message schedule kept in local variables
 * w0…w15 (a rolling window: w[t] overwrites w[t-16]) and the roles of a…e rotating from line to
 * line instead of being shuffled. Written as loops over an 80-word Int32Array schedule the block
 * took twice as long (≈165 ns against ≈85 ns per block): V8 keeps named locals in registers, not
 * typed-array slots. Only the rotations are helper functions; V8 inlines those, but with Ch/Maj
 * helpers as well the function outgrows V8's inlining budget and slows down by a third.
 */
// biome-ignore format: one SHA-1 round per line, as the algorithm is written
function compressToFraction(blocks: number): number {
  const words = messageWords;
  let h0 = 0x67452301;
  let h1 = 0xefcdab89 | 0;
  let h2 = 0x98badcfe | 0;
  let h3 = 0x10325476;
  let h4 = 0xc3d2e1f0 | 0;
  for (let base = 0; base < blocks * 16; base += 16) {
    let w0 = words[base]!, w1 = words[base + 1]!, w2 = words[base + 2]!, w3 = words[base + 3]!;
    let w4 = words[base + 4]!, w5 = words[base + 5]!, w6 = words[base + 6]!, w7 = words[base + 7]!;
    let w8 = words[base + 8]!, w9 = words[base + 9]!, w10 = words[base + 10]!, w11 = words[base + 11]!;
    let w12 = words[base + 12]!, w13 = words[base + 13]!, w14 = words[base + 14]!, w15 = words[base + 15]!;
    let a = h0;
    let b = h1;
    let c = h2;
    let d = h3;
    let e = h4;
    // One round per line; the variable playing "a" (the one assigned) goes e, d, c, b, a, e, …
    // Rounds 0–19: f = Ch(b, c, d); rounds 0–15 use the message words as they are.
    e = (e + rotl5(a) + ((b & c) | (~b & d)) + K0 + w0) | 0; b = rotl30(b);
    d = (d + rotl5(e) + ((a & b) | (~a & c)) + K0 + w1) | 0; a = rotl30(a);
    c = (c + rotl5(d) + ((e & a) | (~e & b)) + K0 + w2) | 0; e = rotl30(e);
    b = (b + rotl5(c) + ((d & e) | (~d & a)) + K0 + w3) | 0; d = rotl30(d);
    a = (a + rotl5(b) + ((c & d) | (~c & e)) + K0 + w4) | 0; c = rotl30(c);
    e = (e + rotl5(a) + ((b & c) | (~b & d)) + K0 + w5) | 0; b = rotl30(b);
    d = (d + rotl5(e) + ((a & b) | (~a & c)) + K0 + w6) | 0; a = rotl30(a);
    c = (c + rotl5(d) + ((e & a) | (~e & b)) + K0 + w7) | 0; e = rotl30(e);
    b = (b + rotl5(c) + ((d & e) | (~d & a)) + K0 + w8) | 0; d = rotl30(d);
    a = (a + rotl5(b) + ((c & d) | (~c & e)) + K0 + w9) | 0; c = rotl30(c);
    e = (e + rotl5(a) + ((b & c) | (~b & d)) + K0 + w10) | 0; b = rotl30(b);
    d = (d + rotl5(e) + ((a & b) | (~a & c)) + K0 + w11) | 0; a = rotl30(a);
    c = (c + rotl5(d) + ((e & a) | (~e & b)) + K0 + w12) | 0; e = rotl30(e);
    b = (b + rotl5(c) + ((d & e) | (~d & a)) + K0 + w13) | 0; d = rotl30(d);
    a = (a + rotl5(b) + ((c & d) | (~c & e)) + K0 + w14) | 0; c = rotl30(c);
    e = (e + rotl5(a) + ((b & c) | (~b & d)) + K0 + w15) | 0; b = rotl30(b);
    // From round 16 on, w[t] = rotl1(w[t-3] ^ w[t-8] ^ w[t-14] ^ w[t-16]) replaces w[t-16] in place.
    w0 = rotl1(w13 ^ w8 ^ w2 ^ w0); d = (d + rotl5(e) + ((a & b) | (~a & c)) + K0 + w0) | 0; a = rotl30(a);
    w1 = rotl1(w14 ^ w9 ^ w3 ^ w1); c = (c + rotl5(d) + ((e & a) | (~e & b)) + K0 + w1) | 0; e = rotl30(e);
    w2 = rotl1(w15 ^ w10 ^ w4 ^ w2); b = (b + rotl5(c) + ((d & e) | (~d & a)) + K0 + w2) | 0; d = rotl30(d);
    w3 = rotl1(w0 ^ w11 ^ w5 ^ w3); a = (a + rotl5(b) + ((c & d) | (~c & e)) + K0 + w3) | 0; c = rotl30(c);
    // Rounds 20–39: f = Parity(b, c, d).
    w4 = rotl1(w1 ^ w12 ^ w6 ^ w4); e = (e + rotl5(a) + (b ^ c ^ d) + K1 + w4) | 0; b = rotl30(b);
    w5 = rotl1(w2 ^ w13 ^ w7 ^ w5); d = (d + rotl5(e) + (a ^ b ^ c) + K1 + w5) | 0; a = rotl30(a);
    w6 = rotl1(w3 ^ w14 ^ w8 ^ w6); c = (c + rotl5(d) + (e ^ a ^ b) + K1 + w6) | 0; e = rotl30(e);
    w7 = rotl1(w4 ^ w15 ^ w9 ^ w7); b = (b + rotl5(c) + (d ^ e ^ a) + K1 + w7) | 0; d = rotl30(d);
    w8 = rotl1(w5 ^ w0 ^ w10 ^ w8); a = (a + rotl5(b) + (c ^ d ^ e) + K1 + w8) | 0; c = rotl30(c);
    w9 = rotl1(w6 ^ w1 ^ w11 ^ w9); e = (e + rotl5(a) + (b ^ c ^ d) + K1 + w9) | 0; b = rotl30(b);
    w10 = rotl1(w7 ^ w2 ^ w12 ^ w10); d = (d + rotl5(e) + (a ^ b ^ c) + K1 + w10) | 0; a = rotl30(a);
    w11 = rotl1(w8 ^ w3 ^ w13 ^ w11); c = (c + rotl5(d) + (e ^ a ^ b) + K1 + w11) | 0; e = rotl30(e);
    w12 = rotl1(w9 ^ w4 ^ w14 ^ w12); b = (b + rotl5(c) + (d ^ e ^ a) + K1 + w12) | 0; d = rotl30(d);
    w13 = rotl1(w10 ^ w5 ^ w15 ^ w13); a = (a + rotl5(b) + (c ^ d ^ e) + K1 + w13) | 0; c = rotl30(c);
    w14 = rotl1(w11 ^ w6 ^ w0 ^ w14); e = (e + rotl5(a) + (b ^ c ^ d) + K1 + w14) | 0; b = rotl30(b);
    w15 = rotl1(w12 ^ w7 ^ w1 ^ w15); d = (d + rotl5(e) + (a ^ b ^ c) + K1 + w15) | 0; a = rotl30(a);
    w0 = rotl1(w13 ^ w8 ^ w2 ^ w0); c = (c + rotl5(d) + (e ^ a ^ b) + K1 + w0) | 0; e = rotl30(e);
    w1 = rotl1(w14 ^ w9 ^ w3 ^ w1); b = (b + rotl5(c) + (d ^ e ^ a) + K1 + w1) | 0; d = rotl30(d);
    w2 = rotl1(w15 ^ w10 ^ w4 ^ w2); a = (a + rotl5(b) + (c ^ d ^ e) + K1 + w2) | 0; c = rotl30(c);
    w3 = rotl1(w0 ^ w11 ^ w5 ^ w3); e = (e + rotl5(a) + (b ^ c ^ d) + K1 + w3) | 0; b = rotl30(b);
    w4 = rotl1(w1 ^ w12 ^ w6 ^ w4); d = (d + rotl5(e) + (a ^ b ^ c) + K1 + w4) | 0; a = rotl30(a);
    w5 = rotl1(w2 ^ w13 ^ w7 ^ w5); c = (c + rotl5(d) + (e ^ a ^ b) + K1 + w5) | 0; e = rotl30(e);
    w6 = rotl1(w3 ^ w14 ^ w8 ^ w6); b = (b + rotl5(c) + (d ^ e ^ a) + K1 + w6) | 0; d = rotl30(d);
    w7 = rotl1(w4 ^ w15 ^ w9 ^ w7); a = (a + rotl5(b) + (c ^ d ^ e) + K1 + w7) | 0; c = rotl30(c);
    // Rounds 40–59: f = Maj(b, c, d).
    w8 = rotl1(w5 ^ w0 ^ w10 ^ w8); e = (e + rotl5(a) + ((b & c) | (b & d) | (c & d)) + K2 + w8) | 0; b = rotl30(b);
    w9 = rotl1(w6 ^ w1 ^ w11 ^ w9); d = (d + rotl5(e) + ((a & b) | (a & c) | (b & c)) + K2 + w9) | 0; a = rotl30(a);
    w10 = rotl1(w7 ^ w2 ^ w12 ^ w10); c = (c + rotl5(d) + ((e & a) | (e & b) | (a & b)) + K2 + w10) | 0; e = rotl30(e);
    w11 = rotl1(w8 ^ w3 ^ w13 ^ w11); b = (b + rotl5(c) + ((d & e) | (d & a) | (e & a)) + K2 + w11) | 0; d = rotl30(d);
    w12 = rotl1(w9 ^ w4 ^ w14 ^ w12); a = (a + rotl5(b) + ((c & d) | (c & e) | (d & e)) + K2 + w12) | 0; c = rotl30(c);
    w13 = rotl1(w10 ^ w5 ^ w15 ^ w13); e = (e + rotl5(a) + ((b & c) | (b & d) | (c & d)) + K2 + w13) | 0; b = rotl30(b);
    w14 = rotl1(w11 ^ w6 ^ w0 ^ w14); d = (d + rotl5(e) + ((a & b) | (a & c) | (b & c)) + K2 + w14) | 0; a = rotl30(a);
    w15 = rotl1(w12 ^ w7 ^ w1 ^ w15); c = (c + rotl5(d) + ((e & a) | (e & b) | (a & b)) + K2 + w15) | 0; e = rotl30(e);
    w0 = rotl1(w13 ^ w8 ^ w2 ^ w0); b = (b + rotl5(c) + ((d & e) | (d & a) | (e & a)) + K2 + w0) | 0; d = rotl30(d);
    w1 = rotl1(w14 ^ w9 ^ w3 ^ w1); a = (a + rotl5(b) + ((c & d) | (c & e) | (d & e)) + K2 + w1) | 0; c = rotl30(c);
    w2 = rotl1(w15 ^ w10 ^ w4 ^ w2); e = (e + rotl5(a) + ((b & c) | (b & d) | (c & d)) + K2 + w2) | 0; b = rotl30(b);
    w3 = rotl1(w0 ^ w11 ^ w5 ^ w3); d = (d + rotl5(e) + ((a & b) | (a & c) | (b & c)) + K2 + w3) | 0; a = rotl30(a);
    w4 = rotl1(w1 ^ w12 ^ w6 ^ w4); c = (c + rotl5(d) + ((e & a) | (e & b) | (a & b)) + K2 + w4) | 0; e = rotl30(e);
    w5 = rotl1(w2 ^ w13 ^ w7 ^ w5); b = (b + rotl5(c) + ((d & e) | (d & a) | (e & a)) + K2 + w5) | 0; d = rotl30(d);
    w6 = rotl1(w3 ^ w14 ^ w8 ^ w6); a = (a + rotl5(b) + ((c & d) | (c & e) | (d & e)) + K2 + w6) | 0; c = rotl30(c);
    w7 = rotl1(w4 ^ w15 ^ w9 ^ w7); e = (e + rotl5(a) + ((b & c) | (b & d) | (c & d)) + K2 + w7) | 0; b = rotl30(b);
    w8 = rotl1(w5 ^ w0 ^ w10 ^ w8); d = (d + rotl5(e) + ((a & b) | (a & c) | (b & c)) + K2 + w8) | 0; a = rotl30(a);
    w9 = rotl1(w6 ^ w1 ^ w11 ^ w9); c = (c + rotl5(d) + ((e & a) | (e & b) | (a & b)) + K2 + w9) | 0; e = rotl30(e);
    w10 = rotl1(w7 ^ w2 ^ w12 ^ w10); b = (b + rotl5(c) + ((d & e) | (d & a) | (e & a)) + K2 + w10) | 0; d = rotl30(d);
    w11 = rotl1(w8 ^ w3 ^ w13 ^ w11); a = (a + rotl5(b) + ((c & d) | (c & e) | (d & e)) + K2 + w11) | 0; c = rotl30(c);
    // Rounds 60–79: f = Parity(b, c, d).
    w12 = rotl1(w9 ^ w4 ^ w14 ^ w12); e = (e + rotl5(a) + (b ^ c ^ d) + K3 + w12) | 0; b = rotl30(b);
    w13 = rotl1(w10 ^ w5 ^ w15 ^ w13); d = (d + rotl5(e) + (a ^ b ^ c) + K3 + w13) | 0; a = rotl30(a);
    w14 = rotl1(w11 ^ w6 ^ w0 ^ w14); c = (c + rotl5(d) + (e ^ a ^ b) + K3 + w14) | 0; e = rotl30(e);
    w15 = rotl1(w12 ^ w7 ^ w1 ^ w15); b = (b + rotl5(c) + (d ^ e ^ a) + K3 + w15) | 0; d = rotl30(d);
    w0 = rotl1(w13 ^ w8 ^ w2 ^ w0); a = (a + rotl5(b) + (c ^ d ^ e) + K3 + w0) | 0; c = rotl30(c);
    w1 = rotl1(w14 ^ w9 ^ w3 ^ w1); e = (e + rotl5(a) + (b ^ c ^ d) + K3 + w1) | 0; b = rotl30(b);
    w2 = rotl1(w15 ^ w10 ^ w4 ^ w2); d = (d + rotl5(e) + (a ^ b ^ c) + K3 + w2) | 0; a = rotl30(a);
    w3 = rotl1(w0 ^ w11 ^ w5 ^ w3); c = (c + rotl5(d) + (e ^ a ^ b) + K3 + w3) | 0; e = rotl30(e);
    w4 = rotl1(w1 ^ w12 ^ w6 ^ w4); b = (b + rotl5(c) + (d ^ e ^ a) + K3 + w4) | 0; d = rotl30(d);
    w5 = rotl1(w2 ^ w13 ^ w7 ^ w5); a = (a + rotl5(b) + (c ^ d ^ e) + K3 + w5) | 0; c = rotl30(c);
    w6 = rotl1(w3 ^ w14 ^ w8 ^ w6); e = (e + rotl5(a) + (b ^ c ^ d) + K3 + w6) | 0; b = rotl30(b);
    w7 = rotl1(w4 ^ w15 ^ w9 ^ w7); d = (d + rotl5(e) + (a ^ b ^ c) + K3 + w7) | 0; a = rotl30(a);
    w8 = rotl1(w5 ^ w0 ^ w10 ^ w8); c = (c + rotl5(d) + (e ^ a ^ b) + K3 + w8) | 0; e = rotl30(e);
    w9 = rotl1(w6 ^ w1 ^ w11 ^ w9); b = (b + rotl5(c) + (d ^ e ^ a) + K3 + w9) | 0; d = rotl30(d);
    w10 = rotl1(w7 ^ w2 ^ w12 ^ w10); a = (a + rotl5(b) + (c ^ d ^ e) + K3 + w10) | 0; c = rotl30(c);
    w11 = rotl1(w8 ^ w3 ^ w13 ^ w11); e = (e + rotl5(a) + (b ^ c ^ d) + K3 + w11) | 0; b = rotl30(b);
    w12 = rotl1(w9 ^ w4 ^ w14 ^ w12); d = (d + rotl5(e) + (a ^ b ^ c) + K3 + w12) | 0; a = rotl30(a);
    w13 = rotl1(w10 ^ w5 ^ w15 ^ w13); c = (c + rotl5(d) + (e ^ a ^ b) + K3 + w13) | 0; e = rotl30(e);
    w14 = rotl1(w11 ^ w6 ^ w0 ^ w14); b = (b + rotl5(c) + (d ^ e ^ a) + K3 + w14) | 0; d = rotl30(d);
    w15 = rotl1(w12 ^ w7 ^ w1 ^ w15); a = (a + rotl5(b) + (c ^ d ^ e) + K3 + w15) | 0; c = rotl30(c);
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
  }
  return ((h0 >>> 0) * H0_WEIGHT + (h1 >>> 4)) / SCALE;
}

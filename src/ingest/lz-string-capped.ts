/**
 * lz-string's `decompressFromBase64` (lz-string 1.5.0, MIT, by pieroxy) with an output cap.
 *
 * The library has no way to stop early, and LZ78-style dictionaries make a bomb easy: n input
 * tokens can expand to ~n²/2 characters. This port is the same algorithm, with the same results
 * (checked against the library in the unit tests), that gives up as soon as the output would
 * exceed `maxUnits` UTF-16 code units.
 */

import { HedgerowError } from '../errors.js';

const KEY_BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=';
/** Character code -> 6-bit value; characters outside the alphabet read as 0, as in the library. */
const REVERSE = new Uint8Array(128);
for (let i = 0; i < KEY_BASE64.length; i++) REVERSE[KEY_BASE64.charCodeAt(i)] = i;

const RESET_VALUE = 32; // 6 bits per base64 character
/** Beyond this the library's `power <<= 1` overflows; no input the body cap allows gets near it. */
const MAX_NUM_BITS = 30;

/**
 * Returns the decompressed string, `''` when the input ends early, `null` when it is invalid
 * (both mean failure to a caller, as in Django's `decompress`). Throws `HR_DECOMPRESSED_TOO_LARGE`
 * once the output passes `maxUnits`.
 */
export function lzDecompressFromBase64(input: string, maxUnits: number): string | null {
  const length = input.length;
  if (length === 0) return null;

  let val = charValue(input, 0);
  let position = RESET_VALUE;
  let index = 1;
  const readBits = (count: number): number => {
    let bits = 0;
    const maxPower = 2 ** count;
    for (let power = 1; power !== maxPower; power *= 2) {
      const resb = val & position;
      position >>= 1;
      if (position === 0) {
        position = RESET_VALUE;
        val = charValue(input, index++);
      }
      if (resb > 0) bits += power;
    }
    return bits;
  };

  let first: string;
  switch (readBits(2)) {
    case 0:
      first = String.fromCharCode(readBits(8));
      break;
    case 1:
      first = String.fromCharCode(readBits(16));
      break;
    case 2:
      return '';
    default:
      return null;
  }

  const dictionary: string[] = ['', '', '', first];
  let dictSize = 4;
  let enlargeIn = 4;
  let numBits = 3;
  let w = first;
  const result: string[] = [first];
  let outUnits = 1;
  if (outUnits > maxUnits) throw tooLarge();

  for (;;) {
    if (index > length) return '';
    let code = readBits(numBits);
    if (code === 0 || code === 1) {
      dictionary[dictSize++] = String.fromCharCode(readBits(code === 0 ? 8 : 16));
      code = dictSize - 1;
      enlargeIn--;
    } else if (code === 2) {
      return result.join('');
    }
    if (enlargeIn === 0) {
      enlargeIn = 2 ** numBits;
      numBits++;
    }

    let entry: string;
    if (code < dictSize) {
      entry = dictionary[code] as string;
    } else if (code === dictSize) {
      entry = w + w.charAt(0);
    } else {
      return null;
    }
    outUnits += entry.length;
    if (outUnits > maxUnits) throw tooLarge();
    result.push(entry);

    dictionary[dictSize++] = w + entry.charAt(0);
    enlargeIn--;
    w = entry;
    if (enlargeIn === 0) {
      enlargeIn = 2 ** numBits;
      numBits++;
    }
    if (numBits > MAX_NUM_BITS) return null;
  }
}

function charValue(input: string, index: number): number {
  return index < input.length ? (REVERSE[input.charCodeAt(index)] ?? 0) : 0;
}

function tooLarge(): HedgerowError {
  return new HedgerowError('HR_DECOMPRESSED_TOO_LARGE', 'lz64 payload exceeds the decompressed size limit');
}

/**
 * An lz-string `compressToBase64` stream that expands quadratically: after one literal, every token
 * names the entry about to be made (`w + w[0]`), so token n adds n + 1 characters. ~24,000 tokens
 * (~55 KB) decode to ~288 million characters of `char`. Built bit by bit, as lz-string's decoder
 * reads them: each value least significant bit first, six bits per base64 character from the top.
 */
export interface Lz64Bomb {
  /** The base64 text (lz-string's alphabet, padded with `=`). */
  text: string;
  /** UTF-16 code units it decodes to. */
  units: number;
}

const KEY_BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=';

export function lz64Bomb(tokens: number, char = 'a'): Lz64Bomb {
  const bits: number[] = [];
  const put = (value: number, count: number): void => {
    for (let i = 0; i < count; i++) bits.push((value >> i) & 1);
  };
  put(0, 2); // an 8-bit literal first
  put(char.charCodeAt(0), 8);
  let dictSize = 4;
  let enlargeIn = 4;
  let numBits = 3;
  let entryLength = 1;
  let units = 1;
  for (let t = 0; t < tokens; t++) {
    put(dictSize, numBits);
    entryLength += 1;
    units += entryLength;
    dictSize++;
    if (--enlargeIn === 0) {
      enlargeIn = 2 ** numBits;
      numBits++;
    }
  }
  put(2, numBits); // end of stream
  let text = '';
  for (let i = 0; i < bits.length; i += 6) {
    let v = 0;
    for (let j = 0; j < 6; j++) v = (v << 1) | (bits[i + j] ?? 0);
    text += KEY_BASE64[v];
  }
  while (text.length % 4 !== 0) text += '=';
  return { text, units };
}

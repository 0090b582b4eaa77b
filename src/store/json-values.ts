/**
 * Persons and groups are stored as JSON text: their free-form property maps come from JSON
 * bodies, and V8's JSON parser reads them about twice as fast as msgpackr (a person with 25
 * properties: 3.4 → 1.8 µs), which every `/flags` request and every event the person processor
 * applies pays. Writing costs about the same (2.2 → 2.1 µs for `Buffer.from(JSON.stringify())`).
 *
 * Values written by earlier versions as msgpack (plain maps, or msgpackr records before those)
 * still decode: they start with a map header (0x80–0x8f, 0xde, 0xdf) or a record definition
 * (0xd4), never with `{` (0x7b), which in msgpack would be the integer 123, not a record.
 */
import { Unpackr } from 'msgpackr';

const OPEN_BRACE = 0x7b;
/** Decodes the earlier versions' values; `useRecords: false` still reads inline record definitions. */
const legacy = new Unpackr({ useRecords: false });

/** An lmdb-js `encoder` for databases whose values are JSON objects. */
export interface JsonValueEncoder {
  encode(value: unknown): Buffer;
  /** lmdb-js passes the value's size, or get options, after the bytes. */
  decode(bytes: Uint8Array, size?: unknown): unknown;
}

export function jsonValueEncoder(): JsonValueEncoder {
  return {
    encode: (value) => Buffer.from(JSON.stringify(value), 'utf8'),
    decode(bytes, size) {
      // lmdb-js reuses one buffer for reads: `size` (or its own `length`) bounds this value.
      const end = typeof size === 'number' ? size : bytes.length;
      if (bytes[0] === OPEN_BRACE) return JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, end).toString('utf8'));
      return legacy.unpack(bytes, end);
    },
  };
}

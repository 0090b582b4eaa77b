/**
 * The JSON body of a `/flags` or `/decide` answer, in each response shape
 * (docs/compatibility.md#response-shapes; PostHog/posthog `rust/feature-flags/src/api/types.rs`
 * `FlagsResponse`, `LegacyFlagsResponse`, `DecideV1Response`, `DecideV2Response`, `FlagDetails`).
 * Pure, no I/O; on the hot path of every flags request.
 *
 * Keys follow the Rust structs' order, then `errorComputingFlags` on the legacy shapes, then the
 * config fields. Per shape:
 * - flags-v2 (`/flags?v>=2`, `/decide?v>=4`): `errorsWhileComputingFlags, flags, requestId, evaluatedAt`
 * - flags-v1 (`/flags?v=1`, `/decide?v=3`): `errorsWhileComputingFlags, featureFlags` (all),
 *   `featureFlagPayloads` (enabled flags with a payload), `requestId, evaluatedAt, errorComputingFlags`
 * - decide-v2: `featureFlags` (enabled only, key -> true|variant), `requestId, evaluatedAt, errorComputingFlags`
 * - decide-v1: `featureFlags` (enabled keys), `requestId, evaluatedAt, errorComputingFlags`
 * `errorComputingFlags` (the name the /decide API documentation gives the field) mirrors
 * `errorsWhileComputingFlags`. `quotaLimited` and `minimalFlagCalledEvents` are never sent.
 * Payloads are sent as stored: a JSON string, which the SDKs parse.
 */

import type { FlagResult } from '../flags/engine/evaluate-types.js';
import type { FlagsResponseFormat } from './flags-query.js';

export interface FlagMeta {
  id: number;
  version: number;
}

export interface FlagsResponseInput {
  format: FlagsResponseFormat;
  /** evaluated flags in snapshot order; FlagResult objects are frozen and SHARED between requests and between flags */
  results: ReadonlyMap<string, FlagResult>;
  errorsWhileComputingFlags: boolean;
  requestId: string; // uuid
  evaluatedAt: number; // ms epoch
  /** remote-config fields to flatten into the body (only when the query asked for config); opaque to you */
  config?: Readonly<Record<string, unknown>>;
}

/** JSON fragments for one (flag key, result) pair, built on first use. */
interface Fragments {
  /** `"key":true|false|"variant"` */
  entry: string;
  /** `"key":"<payload>"`, or null when the result has no payload. */
  payloadEntry: string | null;
  /** `"key":{FlagDetail}` (v2), built lazily. */
  detail: string | undefined;
  /** The UTF-8 of each, made the first time an answer is written as bytes (encodeInto). */
  entryBytes?: Uint8Array;
  payloadEntryBytes?: Uint8Array;
  detailBytes?: Uint8Array;
  /** `,"key":{FlagDetail}`: the detail as written after another. */
  commaDetailBytes?: Uint8Array;
}

interface KeyCache {
  json: string;
  jsonBytes?: Uint8Array;
  meta: FlagMeta;
  byResult: Map<FlagResult, Fragments>;
}

/**
 * A piece of an answer: text, or cached fragments as UTF-8 when the answer is written as bytes.
 * `encode` asks for text only.
 */
type Piece = string | Uint8Array;

const COMMA = ',';
const COMMA_BYTES = Buffer.from(COMMA);

const utf8 = (text: string): Uint8Array => Buffer.from(text, 'utf8');

/**
 * Results per flag are built once per snapshot, so this bound is never reached in practice;
 * it only keeps a misbehaving caller from growing the cache without limit.
 */
const MAX_CACHED_RESULTS_PER_KEY = 1024;
/** A flag missing from `meta` (a caller bug) is still answered, with id and version 0. */
const UNKNOWN_META: FlagMeta = Object.freeze({ id: 0, version: 0 });

/** Top-level keys each shape writes itself; config fields with these names are skipped. */
const OWN_KEYS: Readonly<Record<FlagsResponseFormat, ReadonlySet<string>>> = {
  'flags-v2': new Set(['errorsWhileComputingFlags', 'flags', 'requestId', 'evaluatedAt']),
  'flags-v1': new Set([
    'errorsWhileComputingFlags',
    'featureFlags',
    'featureFlagPayloads',
    'requestId',
    'evaluatedAt',
    'errorComputingFlags',
  ]),
  'decide-v2': new Set(['featureFlags', 'requestId', 'evaluatedAt', 'errorComputingFlags']),
  'decide-v1': new Set(['featureFlags', 'requestId', 'evaluatedAt', 'errorComputingFlags']),
};

function valueJson(r: FlagResult): string {
  return r.variant !== null ? JSON.stringify(r.variant) : r.enabled ? 'true' : 'false';
}

/**
 * `"key":{FlagDetails}`: Rust `FlagDetails` with `FlagEvaluationReason` and
 * `FlagDetailsMetadata`, in field order. Flat text (see `flat`).
 */
function detailEntry(keyJson: string, meta: FlagMeta, r: FlagResult): string {
  const { code, condition_index: index, description } = r.reason;
  const variant = r.variant === null ? 'null' : JSON.stringify(r.variant);
  const payload = r.payload === undefined ? 'null' : JSON.stringify(r.payload);
  return flat(
    `${keyJson}:{"key":${keyJson},"enabled":${r.enabled ? 'true' : 'false'},"variant":${variant}`,
    r.failed === true ? ',"failed":true' : '',
    `,"reason":{"code":${JSON.stringify(code)},"condition_index":${index === null ? 'null' : numberJson(index)}`,
    `,"description":${JSON.stringify(description)}}`,
    `,"metadata":{"id":${numberJson(meta.id)},"version":${numberJson(meta.version)},"description":null`,
    `,"payload":${payload},"has_experiment":false}}`,
  );
}

function buildFragments(keyJson: string, r: FlagResult): Fragments {
  return {
    entry: flat(keyJson, ':', valueJson(r)),
    payloadEntry: r.payload === undefined ? null : flat(keyJson, ':', JSON.stringify(r.payload)),
    detail: undefined,
  };
}

/**
 * Text joined into one flat string. V8 keeps strings made by `+` and template literals as trees
 * of their pieces, which every later use of the whole (UTF-8 encoding, copying to another
 * thread) walks again: for the benchmark's 50-flag answer, walking its ~1,000 pieces cost ~9 µs,
 * half as much as evaluating the flags. `Array.prototype.join` writes the pieces into one new
 * string.
 */
function flat(...pieces: string[]): string {
  return pieces.join('');
}

/**
 * One encoder per compiled snapshot (per project flag version): it caches serialized JSON
 * fragments per (flag key, result object) so encoding a 50-flag v2 response is mostly string
 * concatenation. `meta` is asked once per key.
 */
export class FlagsResponseEncoder {
  private readonly meta: (key: string) => FlagMeta | undefined;
  private readonly keys = new Map<string, KeyCache>();
  /** The last frozen config object seen and its encodings, per shape. */
  private lastConfig: object | undefined;
  private lastConfigText = new Map<FlagsResponseFormat, string>();

  constructor(meta: (key: string) => FlagMeta | undefined) {
    this.meta = meta;
  }

  /** The response body as flat JSON text, exactly the flags service's shape for the format. */
  encode(input: FlagsResponseInput): string {
    return (this.pieces(input, false) as string[]).join('');
  }

  /**
   * The same body as UTF-8, written into `target` from its start: the byte count, or undefined
   * when it might not fit (then nothing useful is in `target`; `encode` instead). The cached
   * fragments are copied as bytes, so no string of the body's size is made: a front-end thread
   * writes each answer into one reused buffer, and its young generation fills a third as fast.
   */
  encodeInto(input: FlagsResponseInput, target: Buffer): number | undefined {
    let n = 0;
    for (const piece of this.pieces(input, true)) {
      if (typeof piece === 'string') {
        if (n + piece.length * 3 > target.length) return undefined;
        n += target.write(piece, n, 'utf8');
      } else {
        if (n + piece.length > target.length) return undefined;
        target.set(piece, n);
        n += piece.length;
      }
    }
    return n;
  }

  /** The body's pieces in order; with `bytes`, cached fragments come as UTF-8. */
  private pieces(input: FlagsResponseInput, bytes: boolean): Piece[] {
    const head = `"requestId":${JSON.stringify(input.requestId)},"evaluatedAt":${numberJson(input.evaluatedAt)}`;
    const errors = input.errorsWhileComputingFlags ? 'true' : 'false';
    const config = input.config === undefined ? '' : this.configText(input.config, input.format);
    // Every shape is written into one list of pieces, joined (or encoded) once: the body is the
    // only string of its size a request makes (joining each part first doubled the allocation).
    const out: Piece[] = [];
    switch (input.format) {
      case 'flags-v2':
        out.push(`{"errorsWhileComputingFlags":${errors},"flags":{`);
        this.details(input.results, out, bytes);
        out.push(`},${head}`, config, '}');
        break;
      case 'flags-v1':
        out.push(`{"errorsWhileComputingFlags":${errors},"featureFlags":{`);
        this.valuesThenPayloads(input.results, out, bytes);
        out.push(`},${head},"errorComputingFlags":${errors}`, config, '}');
        break;
      case 'decide-v2':
        out.push('{"featureFlags":{');
        this.enabledValues(input.results, out, bytes);
        out.push(`},${head},"errorComputingFlags":${errors}`, config, '}');
        break;
      case 'decide-v1':
        out.push('{"featureFlags":[');
        this.enabledKeys(input.results, out, bytes);
        out.push(`],${head},"errorComputingFlags":${errors}`, config, '}');
        break;
    }
    return out;
  }

  private keyCache(key: string): KeyCache {
    let kc = this.keys.get(key);
    if (kc === undefined) {
      kc = { json: JSON.stringify(key), meta: this.meta(key) ?? UNKNOWN_META, byResult: new Map() };
      this.keys.set(key, kc);
    }
    return kc;
  }

  private fragments(kc: KeyCache, r: FlagResult): Fragments {
    let f = kc.byResult.get(r);
    if (f === undefined) {
      f = buildFragments(kc.json, r);
      if (kc.byResult.size < MAX_CACHED_RESULTS_PER_KEY) kc.byResult.set(r, f);
    }
    return f;
  }

  // The writers below push comma-separated entries onto `out`; forEach, not for…of: evaluation
  // results are a FlagResults, whose iterators are generators.

  private details(results: ReadonlyMap<string, FlagResult>, out: Piece[], bytes: boolean): void {
    let first = true;
    results.forEach((r, key) => {
      const kc = this.keyCache(key);
      const f = this.fragments(kc, r);
      if (f.detail === undefined) f.detail = detailEntry(kc.json, kc.meta, r);
      if (bytes) {
        // One copy per flag: the entry's bytes are cached with and without the comma before it.
        out.push(first ? (f.detailBytes ??= utf8(f.detail)) : (f.commaDetailBytes ??= utf8(COMMA + f.detail)));
      } else {
        if (!first) out.push(COMMA);
        out.push(f.detail);
      }
      first = false;
    });
  }

  /** `featureFlags` entries, then `},"featureFlagPayloads":{` and the enabled flags' payloads. */
  private valuesThenPayloads(results: ReadonlyMap<string, FlagResult>, out: Piece[], bytes: boolean): void {
    const comma = bytes ? COMMA_BYTES : COMMA;
    const payloads: Piece[] = [];
    let first = true;
    results.forEach((r, key) => {
      const f = this.fragments(this.keyCache(key), r);
      if (!first) out.push(comma);
      first = false;
      out.push(bytes ? (f.entryBytes ??= utf8(f.entry)) : f.entry);
      if (!r.enabled || f.payloadEntry === null) return;
      if (payloads.length > 0) payloads.push(comma);
      payloads.push(bytes ? (f.payloadEntryBytes ??= utf8(f.payloadEntry)) : f.payloadEntry);
    });
    out.push('},"featureFlagPayloads":{', ...payloads);
  }

  private enabledValues(results: ReadonlyMap<string, FlagResult>, out: Piece[], bytes: boolean): void {
    const comma = bytes ? COMMA_BYTES : COMMA;
    let first = true;
    results.forEach((r, key) => {
      if (!r.enabled) return;
      const f = this.fragments(this.keyCache(key), r);
      if (!first) out.push(comma);
      first = false;
      out.push(bytes ? (f.entryBytes ??= utf8(f.entry)) : f.entry);
    });
  }

  private enabledKeys(results: ReadonlyMap<string, FlagResult>, out: Piece[], bytes: boolean): void {
    const comma = bytes ? COMMA_BYTES : COMMA;
    let first = true;
    results.forEach((r, key) => {
      if (!r.enabled) return;
      const kc = this.keyCache(key);
      if (!first) out.push(comma);
      first = false;
      out.push(bytes ? (kc.jsonBytes ??= utf8(kc.json)) : kc.json);
    });
  }

  /**
   * `,"field":value...` for each config field the shape does not write itself. A frozen config
   * object is taken to be immutable all the way down, and its text is reused while the caller
   * keeps passing the same object.
   */
  private configText(config: Readonly<Record<string, unknown>>, format: FlagsResponseFormat): string {
    const frozen = Object.isFrozen(config);
    if (frozen && config === this.lastConfig) {
      const cached = this.lastConfigText.get(format);
      if (cached !== undefined) return cached;
    }
    const own = OWN_KEYS[format];
    const fields: string[] = [];
    for (const k of Object.keys(config)) {
      if (own.has(k)) continue;
      const text = JSON.stringify(config[k]) as string | undefined;
      if (text !== undefined) fields.push(`,${JSON.stringify(k)}:${text}`);
    }
    const out = fields.join('');
    if (frozen) {
      if (config !== this.lastConfig) {
        this.lastConfig = config;
        this.lastConfigText = new Map();
      }
      this.lastConfigText.set(format, out);
    }
    return out;
  }
}

/** An integer as JSON (Rust sends i32/i64 here); a non-finite number would not be JSON, so 0. */
function numberJson(n: number): string {
  return Number.isFinite(n) ? String(Math.trunc(n)) : '0';
}

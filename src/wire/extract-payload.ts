/**
 * Payload extraction (docs/compatibility.md#request-decoding; PostHog/posthog
 * `rust/capture/src/payload/common.rs` `extract_payload_bytes`): pick the raw payload, undo a
 * whole-body base64 encoding, unwrap a urlencoded form, find the compression hint.
 */

import { HedgerowError } from '../errors.js';
import { asBuffer, decodeBase64StrictBytes, looksLikeBase64, SNIFF_BYTES } from './base64.js';
import { parseCompressionHint, type CompressionHint } from './compression-hint.js';

/** What of a request the extraction reads (capture's `CaptureRequest` and the `/flags` input have it). */
export interface PayloadRequest {
  /** Header values, '' when absent. */
  contentType: string;
  contentEncoding: string;
  body: Uint8Array;
}

/** What of the query string the extraction reads (capture's `CaptureQuery` has it). */
export interface PayloadQuery {
  /** Legacy `data=` payload, URL-decoded; '' when absent. */
  data: string;
  compression: CompressionHint;
}

export interface ExtractedPayload {
  /** The payload still to decompress. */
  bytes: Buffer;
  hint: CompressionHint;
  /** True when `bytes` is the result of the whole-body base64 sniff (a base64 hint is then fulfilled). */
  base64Decoded: boolean;
  /** A form body's `api_key` field, else its `token` field (Django's `posthog/api/capture.py`). */
  formToken: string | undefined;
}

const FORM_MEDIA_TYPE = 'application/x-www-form-urlencoded';
const FORM_KEYS: readonly Buffer[] = ['data=', '_=', 'ip=', 'compression='].map((k) => Buffer.from(k, 'latin1'));
const AMPERSAND = 0x26;

/** The form content type, case-insensitively and with any `; charset=...` parameter (capture-rs is stricter). */
export function isFormContentType(contentType: string): boolean {
  if (contentType.length < FORM_MEDIA_TYPE.length) return false;
  const semi = contentType.indexOf(';');
  const media = semi === -1 ? contentType : contentType.slice(0, semi);
  return media.trim().toLowerCase() === FORM_MEDIA_TYPE;
}

function hasFormKeyAt(payload: Uint8Array, at: number): boolean {
  for (const key of FORM_KEYS) {
    if (at + key.length > payload.length) continue;
    let i = 0;
    while (i < key.length && payload[at + i] === key[i]) i++;
    if (i === key.length) return true;
  }
  return false;
}

/** Within the first 128 bytes, starts with (or has `&` followed by) `data=`, `_=`, `ip=` or `compression=`. */
export function looksLikeForm(payload: Uint8Array): boolean {
  if (hasFormKeyAt(payload, 0)) return true;
  const end = Math.min(payload.length, SNIFF_BYTES);
  for (let i = 0; i < end; i++) {
    if (payload[i] === AMPERSAND && hasFormKeyAt(payload, i + 1)) return true;
  }
  return false;
}

/**
 * `null`, `true` or digits (`1234`, `1e+10`): JSON texts that are also four-character-aligned
 * base64. capture-rs base64-decodes them like any such body and answers "invalid UTF8" for the
 * bytes that makes; read as the JSON they are, the answer says what is wrong with them.
 */
const BARE_JSON_SCALAR = /^(?:null|true|\d+(?:[eE]\+?\d+)?)$/;
/** Longer bodies are left to the sniff (and not copied into a string to be tested). */
const MAX_SCALAR_BYTES = 64;

function isBareJsonScalar(payload: Buffer): boolean {
  return payload.length <= MAX_SCALAR_BYTES && BARE_JSON_SCALAR.test(payload.toString('latin1'));
}

/** Urldecoding turned the `+` of a base64 value into spaces; put them back (as capture-rs does). */
function repairBase64Spaces(value: string): string {
  return value.includes(' ') && looksLikeBase64(value, true) ? value.replaceAll(' ', '+') : value;
}

export function extractPayloadBytes(req: PayloadRequest, query: PayloadQuery): ExtractedPayload {
  let payload: Buffer;
  if (query.data.length > 0) {
    payload = Buffer.from(repairBase64Spaces(query.data), 'utf8');
  } else if (req.body.length > 0) {
    payload = asBuffer(req.body);
  } else {
    throw new HedgerowError('HR_EMPTY_PAYLOAD');
  }

  const headerHint = parseCompressionHint(req.contentEncoding);
  let hint = query.compression;

  // Whole-body base64 sniff. lz-string output is base64 text too, so a known lz64 hint skips it.
  let base64Decoded = false;
  const earlyHint = hint !== 'unsupported' ? hint : headerHint;
  if (earlyHint !== 'lz64' && !looksLikeForm(payload) && looksLikeBase64(payload, false) && !isBareJsonScalar(payload)) {
    const decoded = decodeBase64StrictBytes(payload);
    if (decoded !== undefined) {
      payload = decoded;
      base64Decoded = true;
    }
  }

  let formData: string | null = null;
  let formToken: string | undefined;
  // A body labelled as a form that is not one (curl -d sends JSON or gzip with that content type)
  // is read as a raw payload, and fails later only if it is not valid JSON either.
  if (isFormContentType(req.contentType) && looksLikeForm(payload)) {
    const form = new URLSearchParams(payload.toString('utf8'));
    formData = form.get('data');
    formToken = form.get('api_key') ?? form.get('token') ?? undefined;
    if (hint === 'unsupported') hint = parseCompressionHint(form.get('compression'));
  }
  if (hint === 'unsupported') hint = headerHint;

  if (formData === null) return { bytes: payload, hint, base64Decoded, formToken };
  if (formData.length === 0) throw new HedgerowError('HR_EMPTY_PAYLOAD');
  return { bytes: Buffer.from(repairBase64Spaces(formData), 'utf8'), hint, base64Decoded: false, formToken };
}

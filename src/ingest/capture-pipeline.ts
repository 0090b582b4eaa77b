/**
 * The capture pipeline as the worker runs it, in two steps around the project lookup:
 * `prepareCapture` (decode, parse, find the token) and `normalizeCapture` (build StoredEvents).
 * Pure: no I/O, every failure is a thrown `HedgerowError`.
 */

import { parseCaptureQuery } from './capture-query.js';
import { decodePayload } from './decode-payload.js';
import { normalizeEvents, type NormalizeResult } from './normalize-event.js';
import { parseCaptureBody, type ParsedBody } from './parse-body.js';
import { extractToken } from './token.js';
import type { CaptureRequest } from './types.js';

export type { NormalizeResult } from './normalize-event.js';

export interface ParsedCapture {
  body: ParsedBody;
  /**
   * The request's token as sent (untrimmed; check it with `validateTokenShape`), `undefined` when
   * none. When `body.events` is empty (only `$performance_event`s were sent) answer 200 without
   * looking further.
   */
  token: string | undefined;
  /** Query `project_id`, else the body's hint; for personal API keys. */
  projectIdHint: number | undefined;
  querySentAtMs: number | undefined;
  /** `beacon=1`: answer 204 on success. */
  beacon: boolean;
  path: string;
  ip: string;
}

/**
 * Decode + parse + token extraction. Throws the catalogue's request decoding errors (a 400
 * `invalid_payload`: empty, undecodable, not JSON, not events; a 413 past the decompressed
 * budget) or `HR_INCONSISTENT_API_KEYS`.
 */
export function prepareCapture(req: CaptureRequest, maxDecompressedBytes: number): ParsedCapture {
  const query = parseCaptureQuery(req.query);
  const { text, formToken } = decodePayload(req, maxDecompressedBytes, query);
  const body = parseCaptureBody(text, req.path);
  return {
    body,
    // capture-rs reads keys from the JSON only; Django also took a form's `api_key`/`token` field.
    token: extractToken(body) ?? formToken,
    projectIdHint: query.projectId ?? body.projectIdHint,
    querySentAtMs: query.sentAtMs,
    beacon: query.beacon,
    path: req.path,
    ip: req.ip,
  };
}

/**
 * Builds the StoredEvents once the caller resolved the project. Throws a 400 `invalid_payload`
 * (an event the schema refuses, nested too deep, or with an invalid `uuid`); events without a
 * name or distinct_id are counted in `dropped`.
 */
export function normalizeCapture(prepared: ParsedCapture, projectId: number, now: Date): NormalizeResult {
  return normalizeEvents(prepared.body, {
    projectId,
    now,
    ip: prepared.ip,
    querySentAtMs: prepared.querySentAtMs,
    path: prepared.path,
  });
}

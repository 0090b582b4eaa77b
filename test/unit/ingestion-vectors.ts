/** Loads the ingestion unit vectors (test/fixtures/ingestion-vectors.json). */

import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { HedgerowError, type ErrorCode } from '../../src/errors.js';
import type { CaptureRequest } from '../../src/ingest/types.js';

export interface Vector {
  id: number;
  kind: string;
  function: string;
  description: string;
  input: Record<string, unknown>;
  expected: Record<string, unknown>;
}

export const VECTORS = JSON.parse(readFileSync(new URL('../fixtures/ingestion-vectors.json', import.meta.url), 'utf8')) as Vector[];

export function vectorsFor(fn: string): Vector[] {
  return VECTORS.filter((v) => v.function === fn);
}

/** Runs `fn`, expects a HedgerowError with `code`, returns it. */
export function expectHedgerowError(fn: () => unknown, code: ErrorCode): HedgerowError {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(HedgerowError);
  const err = caught as HedgerowError;
  expect(err.hedgerowCode).toBe(code);
  return err;
}

export function request(over: Partial<CaptureRequest> = {}): CaptureRequest {
  return {
    path: '/i/v0/e',
    query: '',
    method: 'POST',
    contentType: 'application/json',
    contentEncoding: '',
    body: new Uint8Array(0),
    ip: '203.0.113.7',
    ...over,
  };
}

/** A vector's `body` as bytes, honouring `body_encoding`. */
export function vectorBody(input: Record<string, unknown>): Buffer {
  const body = input.body as string;
  return input.body_encoding === 'base64' ? Buffer.from(body, 'base64') : Buffer.from(body, 'utf8');
}

/** A vector path without its query string (CaptureRequest.path never has one). */
export function vectorPath(input: Record<string, unknown>): string {
  const path = (input.path as string | undefined) ?? '/i/v0/e';
  const q = path.indexOf('?');
  return q === -1 ? path : path.slice(0, q);
}

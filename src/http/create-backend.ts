/**
 * Picks the HTTP backend. 'auto' prefers native uWebSockets.js and falls back to node:http,
 * with a `note` saying why (the daemon logs it at startup, naming the backend); 'uws' fails
 * loudly when the native binding does not load; 'node' always uses node:http.
 */

import { loadUws } from './load-uws.js';
import { createNodeBackend } from './node-backend.js';
import { createUwsBackend } from './uws-backend.js';
import type { BackendOptions, HttpBackend } from './types.js';

export type BackendKind = 'auto' | 'uws' | 'node';

export interface CreatedBackend {
  backend: HttpBackend;
  /** Why 'auto' did not pick uWS; absent otherwise. */
  note?: string;
}

export function createHttpBackend(kind: BackendKind, opts: BackendOptions): CreatedBackend {
  if (kind === 'node') return { backend: createNodeBackend(opts) };
  const loaded = loadUws();
  if (loaded.ok) return { backend: createUwsBackend(loaded.uws, opts) };
  if (kind === 'uws') throw new Error(`HTTP backend 'uws' requested but unavailable: ${loaded.reason}`);
  return {
    backend: createNodeBackend(opts),
    note: `uWebSockets.js unavailable (${loaded.reason}); using node:http`,
  };
}

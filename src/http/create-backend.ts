/**
 * Picks the HTTP backend. 'auto' prefers native uWebSockets.js and falls back to node:http,
 * with a `note` saying why (the daemon logs it at startup, naming the backend); 'uws' fails
 * loudly when the native binding does not load; 'node' always uses node:http. With `threads`,
 * uWS serves from that many front-end threads (uws-threads-backend.ts); node:http always serves
 * from this thread.
 */

import { StartError } from '../start-error.js';
import { loadUws } from './load-uws.js';
import { createNodeBackend } from './node-backend.js';
import { createUwsBackend } from './uws-backend.js';
import { createUwsThreadsBackend, type ThreadsBackend, type ThreadsBackendOptions } from './uws-threads-backend.js';
import type { BackendOptions, HttpBackend } from './types.js';

export type BackendKind = 'auto' | 'uws' | 'node';

export type ThreadsOptions = Omit<ThreadsBackendOptions, keyof BackendOptions | 'uws' | 'uwsBinaryPath'>;

export interface CreatedBackend {
  backend: HttpBackend;
  /** Set when uWS serves from front-end threads. */
  threads?: Pick<ThreadsBackend, 'threadCount' | 'collect' | 'setLogLevel'>;
  /** Why 'auto' did not pick uWS; absent otherwise. */
  note?: string;
}

export function createHttpBackend(kind: BackendKind, opts: BackendOptions, threads?: ThreadsOptions): CreatedBackend {
  if (kind === 'node') return { backend: createNodeBackend(opts) };
  const loaded = loadUws();
  if (loaded.ok) {
    if (threads === undefined) return { backend: createUwsBackend(loaded.uws, opts) };
    const backend = createUwsThreadsBackend({ ...opts, ...threads, uws: loaded.uws, uwsBinaryPath: loaded.binaryPath });
    return { backend, threads: backend };
  }
  if (kind === 'uws') throw new StartError(`HTTP backend 'uws' requested but unavailable: ${loaded.reason}`);
  return {
    backend: createNodeBackend(opts),
    note: `uWebSockets.js unavailable (${loaded.reason}); using node:http`,
  };
}

/**
 * Messages between the daemon's thread and its HTTP front-end threads (uws-threads-backend.ts,
 * workers/http-thread.ts). Plain, structured-cloneable data.
 */
import type { LogLevel } from '../config/schema.js';
import type { DurationSeries } from '../observability/request-durations.js';
import type { HashKeyWrite } from '../store/hash-key-override-store.js';
import type { HttpResponse } from './types.js';

/**
 * What a front-end thread answers itself (local-routes.ts: `/flags`, `/decide`, flag definitions),
 * from its own handle on the store; everything else it forwards to the daemon's thread.
 */
export interface LocalRoutesSetup {
  dataDir: string;
  sync: 'durable' | 'async' | 'none';
  maxDecompressedBytes: number;
  /** `HEDGEROW_FLAGS_TIMEOUT_MS`: a `/flags` evaluation stops after this long, answering the flags done. */
  flagsTimeoutMs: number;
  /** Cluster mode: experience-continuity hash keys go to the daemon's thread (`hash-keys`), not into the store. */
  replicateHashKeys?: boolean;
}

export interface HttpThreadSetup {
  uwsBinaryPath: string;
  /** The daemon's log level when the thread starts (later ones come as `log-level` messages). */
  logLevel: LogLevel;
  maxBodyBytes: number;
  bodyIdleTimeoutMs: number;
  local?: LocalRoutesSetup;
  /** One Int32: the thread's requests read but not yet answered, readable at any time. */
  inFlight: SharedArrayBuffer;
}

/** A request the thread hands to the daemon's router: `tooLarge` asks for the 413 instead. */
export interface ForwardedRequest {
  id: number;
  tooLarge: boolean;
  method: string;
  path: string;
  query: string;
  /** Flat [name, value, …], names lower-case, repeated headers already joined. */
  headers: readonly string[];
  ip: string;
  body: Uint8Array;
  /** When the thread read its head (util/monotonic-ms.ts: the same clock on every thread). */
  receivedAt: number;
}

/** The daemon's answer to a forwarded request; the thread checks and writes it (`prepare`). */
export interface ForwardedResponse {
  id: number;
  response: HttpResponse;
}

/** Requests a thread answered itself since it last reported, for the daemon's metrics. */
export interface LocalAnswers {
  /** Route, method, status and how many. */
  counts: Array<[string, string, number, number]>;
  /** Body size of each of those requests that had one. */
  bodyBytes: number[];
  /** Their durations, as histogram bucket counts by route and method. */
  durations: DurationSeries[];
  /** Route and how many of its answers said errorsWhileComputingFlags. */
  flagErrors: Array<[string, number]>;
}

export type ToThread =
  | { type: 'listen'; host: string; port: number }
  | { type: 'stop-accepting'; id: number }
  | { type: 'drain'; id: number; timeoutMs: number }
  | { type: 'collect'; id: number }
  | { type: 'responses'; responses: ForwardedResponse[] }
  /** The daemon's log level changed (SIGHUP): the thread writes access lines only at `debug` and below. */
  | { type: 'log-level'; level: LogLevel }
  | { type: 'close' };

export type FromThread =
  | { type: 'ready' }
  | { type: 'failed'; reason: string }
  | { type: 'listening'; port: number }
  | { type: 'listen-failed'; reason: string }
  | { type: 'stopped-accepting'; id: number }
  | { type: 'drained'; id: number; drained: boolean }
  | { type: 'collected'; id: number; answers: LocalAnswers }
  /** Sent every second when there is something to report, so that unscraped counts stay small. */
  | { type: 'answers'; answers: LocalAnswers }
  /** A local route threw something that is not a PostHog-shaped refusal, or an answer could not
   *  be written (a bad header): answered as a 500. */
  | { type: 'bug'; error: string }
  | { type: 'requests'; requests: ForwardedRequest[] }
  /** Cluster mode: hash keys `/flags` requests wrote, for the cluster (src/cluster/replicated-writes.ts). */
  | { type: 'hash-keys'; writes: HashKeyWrite[] }
  | { type: 'closed'; answers: LocalAnswers };

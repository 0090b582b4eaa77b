/** Shapes shared by the capture pipeline (front end, worker, store). Plain data only. */

/** What the front end hands to the capture pipeline for one HTTP request. */
export interface CaptureRequest {
  /** Route path without the query string, e.g. `/batch/`. */
  path: string;
  /** Raw query string without the leading `?` ('' when absent). */
  query: string;
  method: 'GET' | 'POST';
  /** Header values, '' when absent. */
  contentType: string;
  contentEncoding: string;
  /** The request body as read (possibly compressed). Empty for GET. */
  body: Uint8Array;
  /** Client address (X-Forwarded-For first hop if present, else the peer). */
  ip: string;
}

/** A normalized event, as stored in the event log (msgpack-encoded). */
export interface StoredEvent {
  /** UUID, client-supplied when valid, else a fresh UUIDv7. */
  uuid: string;
  /** Event name, at most 200 characters. */
  event: string;
  distinct_id: string;
  /** Properties with `$set`/`$set_once` merged in (top-level wins) and `$ip` added when asked. */
  properties: Record<string, unknown>;
  /** Normalized event time, ISO-8601 UTC with milliseconds. */
  timestamp: string;
  /** Server receive time, ISO-8601 UTC with milliseconds. */
  created_at: string;
  project_id: number;
  /** Request-level `sent_at`, ISO-8601, when the client sent one. */
  sent_at?: string;
  /** True when the request was marked `historical_migration`. */
  historical_migration?: boolean;
}

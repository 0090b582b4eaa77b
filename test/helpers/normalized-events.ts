import { normalizeCapture, prepareCapture } from '../../src/ingest/capture-pipeline.js';
import type { StoredEvent } from '../../src/ingest/types.js';

/** A `/batch/` body's events as the capture pipeline stores them (project 1). */
export function normalizedBatch(batch: Array<Record<string, unknown>>): StoredEvent[] {
  const body = new TextEncoder().encode(JSON.stringify({ api_key: 'phc_test', batch }));
  const req = {
    path: '/batch/',
    query: '',
    method: 'POST' as const,
    contentType: 'application/json',
    contentEncoding: '',
    body,
    ip: '127.0.0.1',
  };
  return normalizeCapture(prepareCapture(req, 100 * 1024 * 1024), 1, new Date()).events;
}

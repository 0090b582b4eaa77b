/**
 * Request bodies shaped like the ones posthog-node sends: one event per `/capture/` request, or
 * `{api_key, batch: [...], sent_at}` of 100 events per `/batch/` request, gzip'd.
 * The capture body carries fixed-width placeholders that bench/wrk/capture.lua replaces per
 * request, so every request has its own uuid and a varying distinct_id at the same length.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { v7 as uuidv7 } from 'uuid';

export const BENCH_API_KEY = 'phc_hedgerow_bench_key_0001';
/** The admin's personal API key (HEDGEROW_BOOTSTRAP_PERSONAL_API_KEY): management API and flag definitions. */
export const BENCH_PERSONAL_API_KEY = 'phx_hedgerow_bench_personal_key_0001';
/** Replaced by the Lua script with `%04x%08x` (thread, counter): the uuid's last group. */
export const UUID_TAIL_PLACEHOLDER = '@UUIDTAIL@@@';
/** Replaced by the Lua script with `%06d` (counter modulo 1e6). */
export const DISTINCT_PLACEHOLDER = '@DIST@';
export const EVENTS_PER_BATCH = 100;

const LIB = { $lib: 'posthog-node', $lib_version: '5.9.1' };
const PAGES = ['/', '/pricing', '/docs/getting-started', '/blog/launch-week', '/signup', '/app/dashboards/42'];
const BROWSERS = ['Chrome', 'Firefox', 'Safari', 'Edge'];
const OSES = ['Mac OS X', 'Windows', 'Linux', 'iOS', 'Android'];

/** About ten properties a server-side pageview typically carries. */
function properties(i: number): Record<string, unknown> {
  const page = PAGES[i % PAGES.length] as string;
  return {
    $current_url: `https://www.example.com${page}?utm_source=newsletter&ref=${i % 97}`,
    $host: 'www.example.com',
    $pathname: page,
    $referrer: 'https://www.google.com/',
    $browser: BROWSERS[i % BROWSERS.length],
    $os: OSES[i % OSES.length],
    $device_type: i % 3 === 0 ? 'Mobile' : 'Desktop',
    $screen_width: 1440 + (i % 4) * 160,
    $session_id: uuidv7(),
    plan: i % 5 === 0 ? 'enterprise' : 'free',
    ...LIB,
  };
}

/** The single-event `/capture/` body with the two placeholders in it. */
export function captureTemplate(timestamp: string): string {
  const uuid = uuidv7();
  return JSON.stringify({
    api_key: BENCH_API_KEY,
    event: '$pageview',
    distinct_id: `user-${DISTINCT_PLACEHOLDER}`,
    properties: properties(1),
    timestamp,
    uuid: `${uuid.slice(0, 24)}${UUID_TAIL_PLACEHOLDER}`,
  });
}

/**
 * The posthog-node `/batch/` body. Events carry no uuid: the body is the same for every request,
 * so the daemon generates one per event instead of storing one uuid many times.
 */
export function batchBody(timestamp: string, n = EVENTS_PER_BATCH): string {
  const batch = Array.from({ length: n }, (_, i) => ({
    distinct_id: `user-${String(1000 + i * 7).padStart(6, '0')}`,
    event: i % 4 === 0 ? 'signed_up' : '$pageview',
    properties: properties(i),
    type: 'capture',
    library: LIB.$lib,
    library_version: LIB.$lib_version,
    timestamp,
  }));
  return JSON.stringify({ api_key: BENCH_API_KEY, batch, sent_at: timestamp });
}

export interface PayloadFiles {
  captureTemplate: string;
  batchGzip: string;
  captureBytes: number;
  batchBytes: number;
  batchGzipBytes: number;
}

/** Writes the bodies wrk loads (the gzip one in binary) into `dir`. */
export function writePayloads(dir: string): PayloadFiles {
  const now = new Date().toISOString();
  const capture = captureTemplate(now);
  const batch = batchBody(now);
  const gz = gzipSync(batch);
  const files = { captureTemplate: path.join(dir, 'capture.json'), batchGzip: path.join(dir, 'batch.json.gz') };
  writeFileSync(files.captureTemplate, capture);
  writeFileSync(files.batchGzip, gz);
  return { ...files, captureBytes: Buffer.byteLength(capture), batchBytes: Buffer.byteLength(batch), batchGzipBytes: gz.length };
}

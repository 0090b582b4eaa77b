/**
 * Request bodies shaped like the ones posthog-node sends: one event per `/capture/` request, or
 * `{api_key, batch: [...], sent_at}` of 100 events per `/batch/` request, gzip'd, and for the
 * `persons` scenario several such batches with `$identify` and `$set` events over 100,000 ids.
 * The capture body carries fixed-width placeholders that bench/wrk/capture.lua replaces per
 * request, so every request has its own uuid and distinct id at the same length.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { v7 as uuidv7 } from 'uuid';

export const BENCH_API_KEY = 'phc_hedgerow_bench_key_0001';
/** The admin's personal API key (HEDGEROW_BOOTSTRAP_PERSONAL_API_KEY): management API and flag definitions. */
export const BENCH_PERSONAL_API_KEY = 'phx_hedgerow_bench_personal_key_0001';
/** Replaced by the Lua script with `%02x%02x%08x` (run, thread, counter): the uuid's last group. */
export const UUID_TAIL_PLACEHOLDER = '@UUIDTAIL@@@';
/**
 * Replaced by the Lua script with the whole distinct id, 13 characters: a new one,
 * `new-%02x%x%06x` (run, thread, counter), or a stored person's `person-NNNNNN`.
 */
export const DISTINCT_PLACEHOLDER = '@DISTINCT@@@@';
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

/**
 * The single-event `/capture/` body with the two placeholders in it. `personless`: the event says
 * `$process_person_profile: false`, the flag posthog-js sets on an anonymous visitor's events in
 * its default `person_profiles: 'identified_only'` mode: stored, but no person made or changed.
 */
export function captureTemplate(timestamp: string, personless = false): string {
  const uuid = uuidv7();
  return JSON.stringify({
    api_key: BENCH_API_KEY,
    event: '$pageview',
    distinct_id: DISTINCT_PLACEHOLDER,
    properties: personless ? { ...properties(1), $process_person_profile: false } : properties(1),
    timestamp,
    uuid: `${uuid.slice(0, 24)}${UUID_TAIL_PLACEHOLDER}`,
  });
}

/** Run numbers bench/wrk/capture.lua takes (`run=<n>`): two hex digits of its ids. */
const CAPTURE_RUNS = 256;
let captureRuns = 0;

/**
 * The `run=<n>` argument of the next run of bench/wrk/capture.lua: a number no earlier run of this
 * process had, so that its new distinct ids and uuids are new to the server too (wrk's counters
 * start again at 0 in every run).
 */
export function nextCaptureRun(): string {
  if (captureRuns >= CAPTURE_RUNS) throw new Error(`bench/wrk/capture.lua tells at most ${CAPTURE_RUNS} runs' ids apart`);
  return `run=${captureRuns++}`;
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

/** The `persons` scenario: this many different `/batch/` bodies, rotated by bench/wrk/persons.lua. */
export const PERSONS_BODIES = 20;
/** Its distinct ids: `user-N` and `anon-N` for N in 0 … PERSON_IDS-1. */
export const PERSON_IDS = 100_000;

/** mulberry32: the persons bodies are the same on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * One `/batch/` body of the `persons` scenario (number `k` of PERSONS_BODIES): posthog-node events
 * whose every tenth is an `$identify` of `user-N` with `$anon_distinct_id: anon-N` and a `$set`,
 * every tenth (offset by five) a `$set` event of `user-N`, the rest ordinary events of `user-N` or
 * `anon-N`; N drawn uniformly from PERSON_IDS (seeded by `k`).
 */
export function personsBody(timestamp: string, k: number, n = EVENTS_PER_BATCH): string {
  const random = prng(0x5eed + k);
  const id = () => Math.floor(random() * PERSON_IDS);
  const batch = Array.from({ length: n }, (_, i) => {
    const who = id();
    const common = { type: 'capture', library: LIB.$lib, library_version: LIB.$lib_version, timestamp };
    const set = { email: `user-${who}@example.com`, plan: i % 3 === 0 ? 'enterprise' : 'free', seen: k * n + i, ...LIB };
    if (i % 10 === 0) {
      return {
        ...common,
        event: '$identify',
        distinct_id: `user-${who}`,
        properties: { $anon_distinct_id: `anon-${who}`, $set: set, ...LIB },
      };
    }
    if (i % 10 === 5) return { ...common, event: '$set', distinct_id: `user-${who}`, properties: { $set: set, ...LIB } };
    return {
      ...common,
      event: i % 4 === 0 ? 'signed_up' : '$pageview',
      distinct_id: random() < 0.5 ? `user-${who}` : `anon-${who}`,
      properties: properties(k * n + i),
    };
  });
  return JSON.stringify({ api_key: BENCH_API_KEY, batch, sent_at: timestamp });
}

export interface PayloadFiles {
  captureTemplate: string;
  /** The same body with `$process_person_profile: false` (captureTemplate's `personless`). */
  capturePersonlessTemplate: string;
  batchGzip: string;
  /** PERSONS_BODIES gzip'd bodies of the `persons` scenario. */
  personsGzip: string[];
  captureBytes: number;
  batchBytes: number;
  batchGzipBytes: number;
  /** Mean size of the persons bodies, plain and gzip'd. */
  personsBytes: number;
  personsGzipBytes: number;
}

/** Writes the bodies wrk loads (the gzip one in binary) into `dir`. */
export function writePayloads(dir: string): PayloadFiles {
  const now = new Date().toISOString();
  const capture = captureTemplate(now);
  const batch = batchBody(now);
  const gz = gzipSync(batch);
  const files = {
    captureTemplate: path.join(dir, 'capture.json'),
    capturePersonlessTemplate: path.join(dir, 'capture-personless.json'),
    batchGzip: path.join(dir, 'batch.json.gz'),
  };
  writeFileSync(files.captureTemplate, capture);
  writeFileSync(files.capturePersonlessTemplate, captureTemplate(now, true));
  writeFileSync(files.batchGzip, gz);
  let personsBytes = 0;
  let personsGzipBytes = 0;
  const personsGzip = Array.from({ length: PERSONS_BODIES }, (_, k) => {
    const body = personsBody(now, k);
    const z = gzipSync(body);
    personsBytes += Buffer.byteLength(body);
    personsGzipBytes += z.length;
    const file = path.join(dir, `persons-${String(k).padStart(2, '0')}.json.gz`);
    writeFileSync(file, z);
    return file;
  });
  return {
    ...files,
    personsGzip,
    captureBytes: Buffer.byteLength(capture),
    batchBytes: Buffer.byteLength(batch),
    batchGzipBytes: gz.length,
    personsBytes: Math.round(personsBytes / PERSONS_BODIES),
    personsGzipBytes: Math.round(personsGzipBytes / PERSONS_BODIES),
  };
}

/**
 * `npm run bench:micro`: the pure capture pipeline a worker runs per request (prepareCapture +
 * normalizeCapture; then msgpack encoding, as the worker does before writing), against baselines
 * measured in the same run: `JSON.parse` of the same text, `gunzipSync` + `JSON.parse` for
 * the gzip'd batch, and lz-string's own `decompressFromBase64` + `JSON.parse` for an old
 * posthog-js lz64 form (the capped decoder, src/wire/lz-string-capped.ts, replaces the library). Ratios say what the pipeline costs on top of the work no server can skip.
 * The bucketing-hash cases compare the pure TypeScript SHA-1 (`bucketHash` → `sha1Fraction`)
 * with the node:crypto implementation it replaced, on the same strings in the same run.
 * The `/flags` answer case encodes a 50-flag v2 body and takes its UTF-8 size (what copying the
 * text to the main thread, or writing it to a socket, also has to walk), and writes it as UTF-8
 * into a reused buffer as the front-end threads do, against `JSON.stringify` of the same answer
 * as a plain object. The access-log case writes a `/flags` request's line to /dev/null as the
 * access log does (made as one string, several lines per write), against the daemon's pino
 * logger given the same fields (a write per line).
 */
import { gzipSync, gunzipSync } from 'node:zlib';
import LZString from 'lz-string';
import { Bench, type Task } from 'tinybench';
import { normalizeCapture, prepareCapture } from '../src/ingest/capture-pipeline.js';
import type { CaptureRequest } from '../src/ingest/types.js';
import { encodeBlock } from '../src/store/event-log.js';
import { compileSnapshot } from '../src/flags/engine/compile-snapshot.js';
import { evaluateFlags } from '../src/flags/engine/evaluate-flags.js';
import { VARIANT_SALT, bucketHash } from '../src/flags/engine/hash.js';
import type { FlagResult } from '../src/flags/engine/evaluate-types.js';
import { FlagsResponseEncoder } from '../src/flag-requests/flags-response.js';
import { pino } from 'pino';
import { AccessLog } from '../src/http/access-log.js';
import type { HttpRequest } from '../src/http/types.js';
import { createLogger } from '../src/observability/logger.js';
import { createHash, hash as cryptoHash } from 'node:crypto';
import { flagRecordWith } from '../test/fixtures/flag-record.js';
import { v7 as uuidv7 } from 'uuid';
import { batchBody, captureTemplate, DISTINCT_PLACEHOLDER, EVENTS_PER_BATCH, UUID_TAIL_PLACEHOLDER } from './payloads.js';

const MAX_DECOMPRESSED = 100 * 1024 * 1024;
const now = new Date().toISOString();
const batchText = batchBody(now);
const batchGzip = new Uint8Array(gzipSync(batchText));
const eventText = captureTemplate(now).replace(DISTINCT_PLACEHOLDER, 'person-000042').replace(UUID_TAIL_PLACEHOLDER, '000000000001');
const eventBytes = new TextEncoder().encode(eventText);

function request(path: string, body: Uint8Array, contentEncoding: string): CaptureRequest {
  return { path, query: '', method: 'POST', contentType: 'application/json', contentEncoding, body, ip: '127.0.0.1' };
}

/** 50 events as posthog-js sends them (uuid, token and distinct_id in properties, the browser's properties). */
const JS_EVENTS = 50;
const jsShared = {
  token: 'phc_bench',
  distinct_id: uuidv7(),
  $device_id: uuidv7(),
  $session_id: uuidv7(),
  $window_id: uuidv7(),
  $os: 'Mac OS X',
  $browser: 'Chrome',
  $browser_version: 126,
  $device_type: 'Desktop',
  $browser_language: 'en-US',
  $current_url: 'https://www.example.com/pricing?utm_source=newsletter',
  $host: 'www.example.com',
  $pathname: '/pricing',
  $screen_height: 900,
  $screen_width: 1440,
  $viewport_height: 800,
  $viewport_width: 1440,
  $referrer: '$direct',
  $referring_domain: '$direct',
  $lib: 'web',
  $lib_version: '1.260.0',
};
const jsBatchText = JSON.stringify(
  Array.from({ length: JS_EVENTS }, (_, i) => ({
    uuid: uuidv7(),
    event: i % 5 === 0 ? '$pageview' : '$autocapture',
    properties: { ...jsShared, $insert_id: uuidv7().slice(-16), $time: Date.now() / 1000 + i },
    timestamp: now,
  })),
);
const jsLz64 = LZString.compressToBase64(jsBatchText);
const jsLz64Form = new TextEncoder().encode(`data=${encodeURIComponent(jsLz64)}`);

/** What the worker does for one request before the LMDB write (minus the project lookup). */
function pipeline(req: CaptureRequest, encode: boolean): number {
  const prepared = prepareCapture(req, MAX_DECOMPRESSED);
  const { events } = normalizeCapture(prepared, 1, new Date());
  let bytes = 0;
  if (encode) bytes += encodeBlock(events).length;
  return events.length + bytes;
}

interface Case {
  name: string;
  events: number;
  /** What `events` counts when not events: per-unit figures are then also given in ns, baseline included. */
  unit?: { one: string; many: string };
  baseline: [string, () => unknown];
  variants: [string, () => unknown][];
}

const batchReq = request('/batch/', batchGzip, 'gzip');
const lz64Req: CaptureRequest = {
  ...request('/e/', jsLz64Form, ''),
  query: 'compression=lz64',
  contentType: 'application/x-www-form-urlencoded',
};
const eventReq = request('/capture/', eventBytes, '');
/** One flag with 10 conditions of two person properties each, 50% rollout (target: evaluated in under 2 µs). */
const tenConditionFlag = flagRecordWith({
  key: 'ten-conditions',
  filters: {
    groups: Array.from({ length: 10 }, (_, i) => ({
      properties: [
        { key: 'plan', type: 'person', operator: 'exact', value: ['pro', 'enterprise'] },
        { key: 'email', type: 'person', operator: 'icontains', value: i === 9 ? '@example.com' : `@nomatch${i}.com` },
      ],
      rollout_percentage: 50,
    })),
  },
});
const snapshot = compileSnapshot({ flags: [tenConditionFlag], cohorts: [], groupTypeMapping: {}, version: 1 });
let evaluation = 0;
function evaluateOnce(): unknown {
  const distinctId = `user-${evaluation++ % 10_000}`;
  return evaluateFlags(snapshot, {
    distinctId,
    personProperties: { plan: 'pro', email: `${distinctId}@example.com` },
    groups: {},
    groupProperties: {},
    now: new Date(),
  });
}

/**
 * Bucketing strings as /flags assembles them: 40 flags (one request's worth) over ids shaped
 * like posthog-node's (UUIDv7 for anonymous users, app ids, e-mail addresses), half with the
 * variant salt. 1,024 strings, so neither implementation sees the same one twice in a row.
 */
const FLAGS_PER_REQUEST = 40;
interface BucketInput {
  keyDot: string;
  id: string;
  salt: string;
}
function bucketInputs(idOf: (i: number) => string): BucketInput[] {
  return Array.from({ length: 1024 }, (_, i) => ({
    keyDot: `${['new-checkout-flow', 'beta-dashboard', 'pricing-experiment-2024', 'onboarding-v3'][i % 4]}-${i % FLAGS_PER_REQUEST}.`,
    id: idOf(i),
    salt: i % 2 === 0 ? '' : VARIANT_SALT,
  }));
}
const asciiBucketInputs = bucketInputs((i) => [uuidv7(), `user-${100_000 + i}`, `person${i}@example.com`][i % 3] as string);
const nonAsciiBucketInputs = bucketInputs((i) => [`josé-${i}`, `用户-${i}`, `anna-${i}-🦔`][i % 3] as string);
/** The implementation bucketHash replaced: node:crypto's hex digest, its first 15 digits parsed. */
function cryptoBucketHash(keyDot: string, identifier: string, salt: string): number {
  if (identifier === '') return 0;
  return parseInt(cryptoHash('sha1', keyDot + identifier + salt, 'hex').slice(0, 15), 16) / 0xfffffffffffffff;
}
/**
 * One request's worth of bucketing hashes, moving on through `inputs` from call to call. One
 * loop per implementation, not one taking the hash function as a parameter: a shared call site
 * would turn polymorphic, which the engine's real, direct `bucketHash` calls never are.
 */
function cryptoHashRequest(inputs: BucketInput[]): () => number {
  let next = 0;
  return () => {
    let sum = 0;
    for (let i = 0; i < FLAGS_PER_REQUEST; i++) {
      const { keyDot, id, salt } = inputs[next++ % inputs.length] as BucketInput;
      sum += cryptoBucketHash(keyDot, id, salt);
    }
    return sum;
  };
}
function sha1HashRequest(inputs: BucketInput[]): () => number {
  let next = 0;
  return () => {
    let sum = 0;
    for (let i = 0; i < FLAGS_PER_REQUEST; i++) {
      const { keyDot, id, salt } = inputs[next++ % inputs.length] as BucketInput;
      sum += bucketHash(keyDot, id, salt);
    }
    return sum;
  };
}
function meanUtf8Length(inputs: BucketInput[]): number {
  return Math.round(inputs.reduce((n, { keyDot, id, salt }) => n + Buffer.byteLength(keyDot + id + salt), 0) / inputs.length);
}

/** A v2 answer for 50 flags (every third a variant, every fifth with a payload), as the engine gives it. */
const ANSWER_FLAGS = 50;
const answerResults = new Map<string, FlagResult>(
  Array.from({ length: ANSWER_FLAGS }, (_, i): [string, FlagResult] => [
    `flag-${i}`,
    Object.freeze({
      enabled: i % 2 === 0,
      variant: i % 3 === 0 ? `variant-${i % 4}` : null,
      reason: { code: 'condition_match' as const, condition_index: 0, description: 'Matched condition set 1' },
      payload: i % 5 === 0 ? JSON.stringify({ color: 'blue', n: i }) : undefined,
    }),
  ]),
);
const answerEncoder = new FlagsResponseEncoder((key) => ({ id: Number(key.slice(5)) + 1, version: 3 }));
let answers = 0;
function encodedAnswerBytes(): number {
  const text = answerEncoder.encode({
    format: 'flags-v2',
    results: answerResults,
    errorsWhileComputingFlags: false,
    requestId: '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
    evaluatedAt: 1_763_700_000_000 + answers++,
  });
  return Buffer.byteLength(text, 'utf8');
}
const answerBuffer = Buffer.allocUnsafe(256 * 1024);
function encodedIntoAnswerBytes(): number {
  return (
    answerEncoder.encodeInto(
      {
        format: 'flags-v2',
        results: answerResults,
        errorsWhileComputingFlags: false,
        requestId: '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
        evaluatedAt: 1_763_700_000_000 + answers++,
      },
      answerBuffer,
    ) ?? 0
  );
}
function stringifiedAnswerBytes(): number {
  const flags: Record<string, unknown> = {};
  for (const [key, r] of answerResults) {
    flags[key] = {
      key,
      enabled: r.enabled,
      variant: r.variant,
      reason: r.reason,
      metadata: { id: Number(key.slice(5)) + 1, version: 3, description: null, payload: r.payload ?? null, has_experiment: false },
    };
  }
  const body = {
    errorsWhileComputingFlags: false,
    flags,
    requestId: '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
    evaluatedAt: 1_763_700_000_000 + answers++,
  };
  return Buffer.byteLength(JSON.stringify(body), 'utf8');
}

const accessHead: Omit<HttpRequest, 'body'> = {
  method: 'POST',
  path: '/flags/',
  query: 'v=2',
  ip: '127.0.0.1',
  header: () => '',
  receivedAt: 0,
};
const accessAnswer = { status: 200, body: new Uint8Array(13_000), projectId: 1 };
const accessLog = new AccessLog(pino.destination({ dest: '/dev/null', sync: true }));
accessLog.setLevel('debug');
const pinoLog = createLogger('debug', pino.destination({ dest: '/dev/null', sync: true }));
let accessMs = 0;

const cases: Case[] = [
  {
    name: `/batch/ ${EVENTS_PER_BATCH} events, gzip ${batchGzip.length} B → ${batchText.length} B`,
    events: EVENTS_PER_BATCH,
    baseline: ['gunzipSync + JSON.parse', () => JSON.parse(gunzipSync(batchGzip).toString('utf8'))],
    variants: [
      ['prepareCapture + normalizeCapture', () => pipeline(batchReq, false)],
      ['… + encodeBlock (msgpack)', () => pipeline(batchReq, true)],
    ],
  },
  {
    name: `/e/ posthog-js lz64 form, ${JS_EVENTS} events, ${jsLz64Form.length} B → ${jsBatchText.length} B`,
    events: JS_EVENTS,
    baseline: ['lz-string decompressFromBase64 + JSON.parse', () => JSON.parse(LZString.decompressFromBase64(jsLz64))],
    variants: [['prepareCapture + normalizeCapture', () => pipeline(lz64Req, false)]],
  },
  {
    name: `/capture/ 1 event, ${eventBytes.length} B`,
    events: 1,
    baseline: ['utf-8 decode + JSON.parse', () => JSON.parse(new TextDecoder().decode(eventBytes))],
    variants: [
      ['prepareCapture + normalizeCapture', () => pipeline(eventReq, false)],
      ['… + encodeBlock (msgpack)', () => pipeline(eventReq, true)],
    ],
  },
  {
    name: 'flag evaluation: one 10-condition flag, the last condition matching',
    events: 1,
    baseline: ['one SHA-1 of a bucketing string', () => createHash('sha1').update(`ten-conditions.user-${evaluation++}`).digest('hex')],
    variants: [['evaluateFlags (compiled snapshot)', evaluateOnce]],
  },
  {
    name: `/flags v2 answer: ${ANSWER_FLAGS} flags, ${encodedAnswerBytes()} B of JSON, then its UTF-8 size`,
    events: 1,
    unit: { one: 'answer', many: 'answers' },
    baseline: ['JSON.stringify of the answer object', stringifiedAnswerBytes],
    variants: [
      ['FlagsResponseEncoder.encode', encodedAnswerBytes],
      ['FlagsResponseEncoder.encodeInto (UTF-8 into a reused buffer)', encodedIntoAnswerBytes],
    ],
  },
  {
    name: 'access-log line of a /flags request, to /dev/null',
    events: 1,
    unit: { one: 'line', many: 'lines' },
    baseline: [
      "the daemon's pino logger, a write per line",
      () =>
        pinoLog.debug(
          {
            method: 'POST',
            path: '/flags/',
            status: 200,
            duration_ms: (accessMs += 0.001),
            project_id: 1,
            request_bytes: 48,
            response_bytes: 13_000,
          },
          'request',
        ),
    ],
    variants: [['AccessLog.write (lines batched per write)', () => accessLog.write(accessHead, 48, accessAnswer, (accessMs += 0.001))]],
  },
  {
    name: `bucketing hash: ${FLAGS_PER_REQUEST} bucketHash calls, ASCII ids, mean ${meanUtf8Length(asciiBucketInputs)} B`,
    events: FLAGS_PER_REQUEST,
    unit: { one: 'hash', many: 'hashes' },
    baseline: ['crypto.hash + parseInt (replaced)', cryptoHashRequest(asciiBucketInputs)],
    variants: [['sha1Fraction (pure TypeScript)', sha1HashRequest(asciiBucketInputs)]],
  },
  {
    name: `bucketing hash: ${FLAGS_PER_REQUEST} bucketHash calls, non-ASCII ids, mean ${meanUtf8Length(nonAsciiBucketInputs)} B`,
    events: FLAGS_PER_REQUEST,
    unit: { one: 'hash', many: 'hashes' },
    baseline: ['crypto.hash + parseInt (replaced)', cryptoHashRequest(nonAsciiBucketInputs)],
    variants: [['sha1Fraction (pure TypeScript)', sha1HashRequest(nonAsciiBucketInputs)]],
  },
];

const bench = new Bench({ time: 1500, warmupTime: 300 });
for (const c of cases) for (const [label, fn] of [c.baseline, ...c.variants]) bench.add(`${c.name} | ${label}`, fn);
await bench.run();

function stats(task: Task | undefined): { meanUs: number; rme: number } {
  const r = task?.result;
  if (!r || (r.state !== 'completed' && r.state !== 'aborted-with-statistics')) throw new Error(`${task?.name}: ${r?.state}`);
  return { meanUs: r.latency.mean * 1000, rme: r.latency.rme };
}

console.log(`node ${process.version}; tinybench; mean per request (± relative margin of error)\n`);
for (const c of cases) {
  const base = stats(bench.getTask(`${c.name} | ${c.baseline[0]}`));
  console.log(c.name);
  const unit = c.unit ?? { one: 'event', many: 'events' };
  const nsPerUnit = (meanUs: number): string => (c.unit ? `; ${((meanUs / c.events) * 1000).toFixed(0)} ns/${unit.one}` : '');
  console.log(
    `  ${c.baseline[0].padEnd(36)} ${base.meanUs.toFixed(1).padStart(8)} µs ±${base.rme.toFixed(1)}%  (baseline)${nsPerUnit(base.meanUs)}`,
  );
  for (const [label] of c.variants) {
    const s = stats(bench.getTask(`${c.name} | ${label}`));
    const perEvent = s.meanUs / c.events;
    console.log(
      `  ${label.padEnd(36)} ${s.meanUs.toFixed(1).padStart(8)} µs ±${s.rme.toFixed(1)}%  ${(s.meanUs / base.meanUs).toFixed(2)}x baseline;` +
        ` ${perEvent.toFixed(2)} µs/${unit.one} → ${Math.round(1e6 / perEvent).toLocaleString('en-US')} ${unit.many}/s per core${nsPerUnit(s.meanUs)}`,
    );
  }
}

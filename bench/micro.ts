/**
 * `npm run bench:micro`: the pure capture pipeline a worker runs per request (prepareCapture +
 * normalizeCapture; then msgpack encoding, as the worker does before writing), against baselines
 * measured in the same run: `JSON.parse` of the same text, and `gunzipSync` + `JSON.parse` for
 * the gzip'd batch. Ratios say what the pipeline costs on top of the work no server can skip.
 */
import { gzipSync, gunzipSync } from 'node:zlib';
import { Bench, type Task } from 'tinybench';
import { normalizeCapture, prepareCapture } from '../src/ingest/capture-pipeline.js';
import type { CaptureRequest } from '../src/ingest/types.js';
import { encodeEvent } from '../src/store/event-log.js';
import { compileSnapshot } from '../src/flags/engine/compile-snapshot.js';
import { evaluateFlags } from '../src/flags/engine/evaluate-flags.js';
import { createHash } from 'node:crypto';
import { flagRecordWith } from '../test/fixtures/flag-record.js';
import { batchBody, captureTemplate, DISTINCT_PLACEHOLDER, EVENTS_PER_BATCH, UUID_TAIL_PLACEHOLDER } from './payloads.js';

const MAX_DECOMPRESSED = 100 * 1024 * 1024;
const now = new Date().toISOString();
const batchText = batchBody(now);
const batchGzip = new Uint8Array(gzipSync(batchText));
const eventText = captureTemplate(now).replace(DISTINCT_PLACEHOLDER, '000042').replace(UUID_TAIL_PLACEHOLDER, '000000000001');
const eventBytes = new TextEncoder().encode(eventText);

function request(path: string, body: Uint8Array, contentEncoding: string): CaptureRequest {
  return { path, query: '', method: 'POST', contentType: 'application/json', contentEncoding, body, ip: '127.0.0.1' };
}

/** What the worker does for one request before the LMDB write (minus the project lookup). */
function pipeline(req: CaptureRequest, encode: boolean): number {
  const prepared = prepareCapture(req, MAX_DECOMPRESSED);
  const { events } = normalizeCapture(prepared, 1, new Date());
  let bytes = 0;
  if (encode) for (const e of events) bytes += encodeEvent(e).length;
  return events.length + bytes;
}

interface Case {
  name: string;
  events: number;
  baseline: [string, () => unknown];
  variants: [string, () => unknown][];
}

const batchReq = request('/batch/', batchGzip, 'gzip');
const eventReq = request('/capture/', eventBytes, '');
/** One flag with 10 conditions of two person properties each, 50% rollout (issue 4's micro target). */
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

const cases: Case[] = [
  {
    name: `/batch/ ${EVENTS_PER_BATCH} events, gzip ${batchGzip.length} B → ${batchText.length} B`,
    events: EVENTS_PER_BATCH,
    baseline: ['gunzipSync + JSON.parse', () => JSON.parse(gunzipSync(batchGzip).toString('utf8'))],
    variants: [
      ['prepareCapture + normalizeCapture', () => pipeline(batchReq, false)],
      ['… + encodeEvent (msgpack)', () => pipeline(batchReq, true)],
    ],
  },
  {
    name: `/capture/ 1 event, ${eventBytes.length} B`,
    events: 1,
    baseline: ['utf-8 decode + JSON.parse', () => JSON.parse(new TextDecoder().decode(eventBytes))],
    variants: [
      ['prepareCapture + normalizeCapture', () => pipeline(eventReq, false)],
      ['… + encodeEvent (msgpack)', () => pipeline(eventReq, true)],
    ],
  },
  {
    name: 'flag evaluation: one 10-condition flag, the last condition matching',
    events: 1,
    baseline: ['one SHA-1 of a bucketing string', () => createHash('sha1').update(`ten-conditions.user-${evaluation++}`).digest('hex')],
    variants: [['evaluateFlags (compiled snapshot)', evaluateOnce]],
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
  console.log(`  ${c.baseline[0].padEnd(36)} ${base.meanUs.toFixed(1).padStart(8)} µs ±${base.rme.toFixed(1)}%  (baseline)`);
  for (const [label] of c.variants) {
    const s = stats(bench.getTask(`${c.name} | ${label}`));
    const perEvent = s.meanUs / c.events;
    console.log(
      `  ${label.padEnd(36)} ${s.meanUs.toFixed(1).padStart(8)} µs ±${s.rme.toFixed(1)}%  ${(s.meanUs / base.meanUs).toFixed(2)}x baseline;` +
        ` ${perEvent.toFixed(2)} µs/event → ${Math.round(1e6 / perEvent).toLocaleString('en-US')} events/s per core`,
    );
  }
}

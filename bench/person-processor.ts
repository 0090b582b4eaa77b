/**
 * `npm run bench:processor`: the person processor alone, on one core, without HTTP or ingestion
 * sharing the machine. The `persons` scenario's bodies (bench/payloads.ts: 20% `$identify`/`$set`
 * over 100,000 ids) go through the real capture pipeline into a temporary store's event log;
 * then `PersonProcessor.step()` runs until the log is applied. The baseline, measured in the same
 * run on the same log, is reading and decoding every block (`decodeBlock`): the least any
 * processor of this log has to do. Each round fills a fresh store. Times are CPU time of the
 * process (all its threads), which a noisy shared host disturbs far less than wall time.
 *
 * With `--prior-persons N` the store first holds N other persons, made untimed by the processor
 * from one `$pageview` each with its own distinct id (as the `capture` scenario leaves them in
 * the daemon before the persons scenarios of a full run).
 *
 * With `--blast-radius` every batch's changes also go to the blast radius tables, built
 * (untimed) over the prior persons first, as in the daemon's processor thread.
 *
 * With `--scenario batch` the log is the `batch` scenario's body repeated instead: 100 distinct
 * ids that exist after the first block, events with no `$set`, as most of real traffic.
 *
 *   node dist/bench/person-processor.js [--events N] [--rounds N] [--prior-persons N] [--blast-radius]
 *                                       [--scenario persons|batch]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BlastRadiusIndex } from '../src/blast-radius/blast-radius-index.js';
import { normalizeCapture, prepareCapture } from '../src/ingest/capture-pipeline.js';
import type { StoredEvent } from '../src/ingest/types.js';
import { PersonProcessor } from '../src/processing/person-processor.js';
import { EventWriter, decodeBlock, encodeBlock } from '../src/store/event-log.js';
import { openStore, type StoreDatabases } from '../src/store/open-store.js';
import { EVENTS_PER_BATCH, PERSONS_BODIES, batchBody, personsBody } from './payloads.js';

const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '200000' },
    rounds: { type: 'string', default: '3' },
    'prior-persons': { type: 'string', default: '0' },
    'blast-radius': { type: 'boolean', default: false },
    scenario: { type: 'string', default: 'persons' },
  },
});
const totalEvents = Number(args.events);
const rounds = Number(args.rounds);
const priorPersons = Number(args['prior-persons']);
if (!(totalEvents >= EVENTS_PER_BATCH) || !(rounds >= 1)) throw new Error('--events ≥ 100 and --rounds ≥ 1');
if (!(priorPersons >= 0) || priorPersons % EVENTS_PER_BATCH !== 0) {
  throw new Error(`--prior-persons must be a multiple of ${EVENTS_PER_BATCH}`);
}
const priorBlocks = priorPersons / EVENTS_PER_BATCH;
const scenario = args.scenario;
if (scenario !== 'persons' && scenario !== 'batch') throw new Error('--scenario is persons or batch');

/** The normalized events of every body of the scenario, as the pool worker stores them. */
function bodies(): StoredEvent[][] {
  const now = new Date();
  const count = scenario === 'batch' ? 1 : PERSONS_BODIES;
  return Array.from({ length: count }, (_, k) => {
    const text = scenario === 'batch' ? batchBody(now.toISOString()) : personsBody(now.toISOString(), k);
    return normalizedBody(text, now);
  });
}

/** One `$pageview` per new distinct id: block `b` of the prior persons. */
function priorBlock(b: number): StoredEvent[] {
  const now = new Date();
  const batch = Array.from({ length: EVENTS_PER_BATCH }, (_, i) => ({
    event: '$pageview',
    distinct_id: `prior-${b * EVENTS_PER_BATCH + i}`,
    properties: { $lib: 'posthog-node', $current_url: 'https://www.example.com/', $browser: 'Chrome', n: i },
  }));
  return normalizedBody(JSON.stringify({ api_key: 'phc_bench', batch }), now);
}

/** A `/batch/` body's events as the pool worker stores them (project 1). */
function normalizedBody(text: string, now: Date): StoredEvent[] {
  const req = {
    path: '/batch/',
    query: '',
    method: 'POST' as const,
    contentType: 'application/json',
    contentEncoding: '',
    body: new TextEncoder().encode(text),
    ip: '127.0.0.1',
  };
  return normalizeCapture(prepareCapture(req, 100 * 1024 * 1024), 1, now).events;
}

async function appendBlocks(writer: EventWriter, count: number, block: (i: number) => StoredEvent[]): Promise<void> {
  const pending: Promise<unknown>[] = [];
  for (let i = 0; i < count; i++) {
    pending.push(writer.append(encodeBlock(block(i))));
    if (pending.length === 200) await Promise.all(pending.splice(0));
  }
  await Promise.all(pending);
}

/** A fresh store with the prior persons applied and the measured events in its log after them. */
async function filledStore(blocks: StoredEvent[][]): Promise<{ dir: string; dbs: StoreDatabases }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'hedgerow-bench-processor-'));
  const dbs = openStore({ dataDir: dir, sync: 'none' });
  const writer = new EventWriter(dbs);
  if (priorBlocks > 0) {
    await appendBlocks(writer, priorBlocks, priorBlock);
    const processor = new PersonProcessor(dbs);
    const ms = cpuMs(() => {
      while (processor.step());
    });
    console.log(`  prior persons: ${((ms * 1000) / priorPersons).toFixed(2)} µs of CPU per event (each creates a person)`);
  }
  await appendBlocks(writer, totalEvents / EVENTS_PER_BATCH, (i) => blocks[i % blocks.length] as StoredEvent[]);
  return { dir, dbs };
}

/**
 * CPU time of the whole process (this thread, GC helpers, lmdb's) in ms: unlike wall time it
 * does not count the time a shared host's other guests take from this VM.
 */
function cpuMs(f: () => void): number {
  const start = process.cpuUsage();
  f();
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000;
}

function timeDecode(dbs: StoreDatabases): number {
  return cpuMs(() => {
    let n = 0;
    for (const { value } of dbs.events.getRange({ offset: priorBlocks })) n += decodeBlock(value).length;
    if (n !== totalEvents) throw new Error(`decoded ${n} events, wrote ${totalEvents}`);
  });
}

/** The processor as the daemon's thread runs it: every batch also updates the (built) tables. */
function withBlastRadius(dbs: StoreDatabases): PersonProcessor {
  const index = new BlastRadiusIndex(dbs);
  while (index.warmUp(100_000));
  return new PersonProcessor(dbs, (changes) => index.apply(changes));
}

function timeProcessor(dbs: StoreDatabases): number {
  const processor = args['blast-radius'] ? withBlastRadius(dbs) : new PersonProcessor(dbs);
  return cpuMs(() => {
    let n = 0;
    for (let report = processor.step(); report; report = processor.step()) n += report.events;
    if (n !== totalEvents) throw new Error(`processed ${n} events, wrote ${totalEvents}`);
  });
}

const blocks = bodies();
const decodeMs: number[] = [];
const processMs: number[] = [];
for (let r = 0; r < rounds; r++) {
  const { dir, dbs } = await filledStore(blocks);
  try {
    decodeMs.push(timeDecode(dbs));
    processMs.push(timeProcessor(dbs));
  } finally {
    await dbs.root.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const last = (a: number[]) => a[a.length - 1] as number;
  console.log(`round ${r + 1}: decode ${last(decodeMs).toFixed(0)} ms, processor ${last(processMs).toFixed(0)} ms of CPU`);
}

const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)] as number;
const perEvent = (ms: number) => (ms * 1000) / totalEvents;
const d = median(decodeMs);
const p = median(processMs);
console.log(
  `\nnode ${process.version}; ${totalEvents.toLocaleString('en-US')} events ` +
    (scenario === 'batch' ? '(the batch body: 100 known ids, no $set)' : `(${PERSONS_BODIES} persons bodies rotated)`) +
    (priorPersons > 0 ? ` after ${priorPersons.toLocaleString('en-US')} prior persons` : '') +
    (args['blast-radius'] ? ', with the blast radius tables' : '') +
    `, median of ${rounds} rounds, CPU time of the process`,
);
console.log(`  read + decodeBlock (baseline)  ${perEvent(d).toFixed(2).padStart(6)} µs/event`);
console.log(
  `  PersonProcessor.step           ${perEvent(p).toFixed(2).padStart(6)} µs/event  ${(p / d).toFixed(2)}x baseline; ` +
    `${Math.round(totalEvents / (p / 1000)).toLocaleString('en-US')} events/s per core`,
);

/**
 * `npm run bench:processor`: the person processor alone, on one core, without HTTP or ingestion
 * sharing the machine. The `persons` scenario's bodies (bench/payloads.ts: 20% `$identify`/`$set`
 * over 100,000 ids) go through the real capture pipeline into a temporary store's event log;
 * then `PersonProcessor.step()` runs until the log is applied. The baseline, measured in the same
 * run on the same log, is reading and decoding every block (`decodeBlock`): the least any
 * processor of this log has to do. Each round fills a fresh store. Times are CPU time of the
 * process (all its threads), which a noisy shared host disturbs far less than wall time.
 *
 *   node dist/bench/person-processor.js [--events N] [--rounds N] [--cpu-prof]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { normalizeCapture, prepareCapture } from '../src/ingest/capture-pipeline.js';
import type { StoredEvent } from '../src/ingest/types.js';
import { PersonProcessor } from '../src/processing/person-processor.js';
import { EventWriter, decodeBlock, encodeBlock, encodeEvent } from '../src/store/event-log.js';
import { openStore, type StoreDatabases } from '../src/store/open-store.js';
import { EVENTS_PER_BATCH, PERSONS_BODIES, personsBody } from './payloads.js';

const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '200000' },
    rounds: { type: 'string', default: '3' },
  },
});
const totalEvents = Number(args.events);
const rounds = Number(args.rounds);
if (!(totalEvents >= EVENTS_PER_BATCH) || !(rounds >= 1)) throw new Error('--events ≥ 100 and --rounds ≥ 1');

/** The normalized events of every persons body, as the pool worker stores them. */
function bodies(): StoredEvent[][] {
  const now = new Date();
  return Array.from({ length: PERSONS_BODIES }, (_, k) => {
    const body = new TextEncoder().encode(personsBody(now.toISOString(), k));
    const req = { path: '/batch/', query: '', method: 'POST' as const, contentType: 'application/json', contentEncoding: '', body, ip: '127.0.0.1' };
    return normalizeCapture(prepareCapture(req, 100 * 1024 * 1024), 1, now).events;
  });
}

async function filledStore(blocks: StoredEvent[][]): Promise<{ dir: string; dbs: StoreDatabases }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'hedgerow-bench-processor-'));
  const dbs = openStore({ dataDir: dir, sync: 'none' });
  const writer = new EventWriter(dbs);
  const pending: Promise<unknown>[] = [];
  for (let i = 0; i < totalEvents / EVENTS_PER_BATCH; i++) {
    const events = blocks[i % blocks.length] as StoredEvent[];
    pending.push(writer.append(encodeBlock(events.map((e) => encodeEvent(e)))));
    if (pending.length === 200) await Promise.all(pending.splice(0));
  }
  await Promise.all(pending);
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
    for (const { value } of dbs.events.getRange({})) n += decodeBlock(value).length;
    if (n !== totalEvents) throw new Error(`decoded ${n} events, wrote ${totalEvents}`);
  });
}

function timeProcessor(dbs: StoreDatabases): number {
  const processor = new PersonProcessor(dbs);
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
  `\nnode ${process.version}; ${totalEvents.toLocaleString('en-US')} events (${PERSONS_BODIES} persons bodies rotated), ` +
    `median of ${rounds} rounds, CPU time of the process`,
);
console.log(`  read + decodeBlock (baseline)  ${perEvent(d).toFixed(2).padStart(6)} µs/event`);
console.log(
  `  PersonProcessor.step           ${perEvent(p).toFixed(2).padStart(6)} µs/event  ${(p / d).toFixed(2)}x baseline; ` +
    `${Math.round(totalEvents / (p / 1000)).toLocaleString('en-US')} events/s per core`,
);

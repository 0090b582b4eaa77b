/**
 * The person processor's thread (src/processing/person-processor.ts): opens the store, reports
 * its backlog, then applies batches until told to stop, sleeping when the log has nothing new
 * until the daemon's next `tick` (or a short timeout, in case a tick was missed), which brings
 * where the blocks written since are in the shared hand-off ring, to apply them from there
 * (handed-off-blocks.ts, handoff-ring.ts). Between
 * batches it answers blast radius questions from its in-memory tables
 * (src/blast-radius/blast-radius-index.ts), which every committed batch updates. A batch the
 * store refuses for a reason of the moment (a full or failing disk) is tried again after a wait
 * that doubles up to 10 s, its blocks left unprocessed until then, never passed over. With a
 * retention period it also removes expired blocks it has applied, a slice at a time between
 * batches (src/processing/retention-schedule.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { BlastRadiusIndex } from '../src/blast-radius/blast-radius-index.js';
import { PersonProcessor, StoreUnavailableError } from '../src/processing/person-processor.js';
import type { BlastRadiusReply, ProcessorCommand, ProcessorMessage, ProcessorSetup } from '../src/processing/processor-messages.js';
import { openStore } from '../src/store/open-store.js';
import { pruneSlice } from '../src/store/event-retention.js';
import { PRUNE_SLICE_BLOCKS, RetentionSchedule } from '../src/processing/retention-schedule.js';
import { announceThread } from '../src/observability/thread-cpu.js';
import { collectWhenQuiet, QUIET_COLLECTION } from '../src/util/heap-release.js';

const IDLE_POLL_MS = 250;
/**
 * After a batch of fewer events than this, the next waits SMALL_BATCH_PAUSE_MS: under a steady
 * stream of small captures each batch would be a durable commit of a few events, and a commit costs
 * ~0.4 ms of CPU here whatever it holds (docs/decisions.md#the-processor-pauses-after-a-small-batch).
 */
const SMALL_BATCH_EVENTS = 500;
const SMALL_BATCH_PAUSE_MS = 10;
/** Persons read into the blast radius tables between two batches (~50–100 ms of work). */
const WARM_UP_SLICE = 20_000;
announceThread('person-processor');
collectWhenQuiet(QUIET_COLLECTION);
const setup = workerData as ProcessorSetup;
const port = parentPort!;
const dbs = openStore({ dataDir: setup.dataDir, sync: setup.sync });
const blastRadius = new BlastRadiusIndex(dbs);
const processor = new PersonProcessor(dbs, (changes) => blastRadius.apply(changes));
const send = (m: ProcessorMessage) => port.postMessage(m);
const retention = setup.retentionDays > 0 ? new RetentionSchedule(setup.retentionDays) : undefined;

let stopping = false;
let wake: (() => void) | undefined;
port.on('message', (m: ProcessorCommand) => {
  if (m.type === 'blast-radius') {
    // Answered between batches, so the tables match a committed state.
    let answer: BlastRadiusReply;
    try {
      answer = blastRadius.count(m.query);
    } catch (err) {
      answer = { ok: false, error: err instanceof Error ? err.message : String(err) };
    }
    send({ type: 'blast-radius', id: m.id, answer });
    return;
  }
  if (m.type === 'stop') stopping = true;
  if (m.type === 'tick' && m.blocks !== undefined) {
    processor.handOff(m.blocks.map((s) => ({ key: s.key, bytes: Buffer.from(setup.handOffRing, s.offset, s.length) })));
  }
  wake?.();
});

send({ type: 'ready', backlog: processor.backlog(), cursor: processor.position ?? null });

/** Waits `ms`, or less if a message (a tick, stop) comes first. */
function sleep(ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    wake = () => {
      clearTimeout(timer);
      wake = undefined;
      resolve();
    };
  });
}

/** After a commit refused for a reason of the moment (StoreUnavailableError): waits doubling to this. */
const MAX_RETRY_DELAY_MS = 10_000;
let retryDelayMs = 0;

/**
 * One slice of old blocks removed when the schedule says so; true when more are waiting. A slice
 * the store refuses (a full disk) is tried again at the next look.
 */
function prune(schedule: RetentionSchedule): boolean {
  const now = Date.now();
  if (!schedule.due(now)) return false;
  let slice;
  try {
    slice = pruneSlice(dbs, schedule.horizonMicros(now), processor.position, PRUNE_SLICE_BLOCKS);
  } catch (err) {
    send({ type: 'prune-failed', error: err instanceof Error ? err.message : String(err) });
    slice = { blocks: 0, more: false, waitingForProcessor: false };
  }
  schedule.after(slice, now);
  if (slice.blocks > 0) send({ type: 'pruned', blocks: slice.blocks });
  return slice.more;
}

async function run(): Promise<void> {
  while (!stopping) {
    let report;
    try {
      report = processor.step();
      retryDelayMs = 0;
    } catch (err) {
      if (!(err instanceof StoreUnavailableError)) throw err;
      // The same blocks are tried again: nothing of them was written, and they stay in the log.
      retryDelayMs = Math.min(MAX_RETRY_DELAY_MS, Math.max(100, retryDelayMs * 2));
      send({ type: 'retrying', error: err.message, delayMs: retryDelayMs });
      const until = Date.now() + retryDelayMs;
      while (!stopping && Date.now() < until) await sleep(until - Date.now());
      continue;
    }
    if (report) send({ type: 'batch', report });
    const warming = blastRadius.warmUp(WARM_UP_SLICE);
    const pruning = retention !== undefined && prune(retention);
    if (report || warming || pruning) {
      // Let messages (stop, questions) in between batches and slices; after a small batch, let
      // more blocks come for the next one.
      const pause = report !== undefined && report.events < SMALL_BATCH_EVENTS && !warming && !pruning;
      await new Promise((r) => (pause ? setTimeout(r, SMALL_BATCH_PAUSE_MS) : setImmediate(r)));
      continue;
    }
    await sleep(IDLE_POLL_MS);
  }
  await dbs.root.close();
  send({ type: 'stopped' });
}

run().catch((err: unknown) => {
  send({ type: 'crashed', error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  process.exit(1);
});

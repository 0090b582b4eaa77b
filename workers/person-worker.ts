/**
 * The person processor's thread (src/processing/person-processor.ts): opens the store, reports
 * its backlog, then applies batches until told to stop, sleeping when the log has nothing new
 * until the daemon's next `tick` (or a short timeout, in case a tick was missed).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { PersonProcessor } from '../src/processing/person-processor.js';
import type { ProcessorMessage, ProcessorSetup } from '../src/processing/processor-messages.js';
import { openStore } from '../src/store/open-store.js';

const IDLE_POLL_MS = 250;
const setup = workerData as ProcessorSetup;
const port = parentPort!;
const dbs = openStore({ dataDir: setup.dataDir, sync: setup.sync });
const processor = new PersonProcessor(dbs);
const send = (m: ProcessorMessage) => port.postMessage(m);

let stopping = false;
let wake: (() => void) | undefined;
port.on('message', (m: { type: 'tick' | 'stop' }) => {
  if (m.type === 'stop') stopping = true;
  wake?.();
});

send({ type: 'ready', backlog: processor.backlog(), cursor: processor.position ?? null });

async function run(): Promise<void> {
  while (!stopping) {
    const report = processor.step();
    if (report) {
      send({ type: 'batch', report });
      // Let messages (stop) in between batches.
      await new Promise((r) => setImmediate(r));
      continue;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, IDLE_POLL_MS);
      wake = () => {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      };
    });
  }
  await dbs.root.close();
  send({ type: 'stopped' });
}

run().catch((err: unknown) => {
  send({ type: 'crashed', error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  process.exit(1);
});

/**
 * Piscina task module: a thin adapter that opens the store once per worker and runs capture groups
 * (src/pool/capture-group.ts) for the main thread, which commits the returned block.
 */
import { workerData } from 'node:worker_threads';
import { runCaptureGroup } from '../src/pool/capture-group.js';
import type { CaptureTaskResult, PoolTask, WorkerSetup } from '../src/pool/tasks.js';
import { AuthStore } from '../src/store/auth-store.js';
import { openStore } from '../src/store/open-store.js';

const setup = workerData as WorkerSetup;
const auth = new AuthStore(openStore({ dataDir: setup.dataDir, sync: setup.sync }));

export default function run(task: PoolTask): CaptureTaskResult | 'pong' {
  if (task.kind === 'ping') return 'pong';
  return runCaptureGroup(task.requests, auth, setup.maxDecompressedBytes);
}

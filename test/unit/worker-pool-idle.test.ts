/**
 * The worker pool starts its workers on demand and ends them after an idle spell
 * (src/pool/worker-pool.ts): an idle daemon holds none, and the next task starts one again.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { PongResult } from '../../src/pool/tasks.js';
import type { WorkerPool as WorkerPoolClass } from '../../src/pool/worker-pool.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs('hedgerow-worker-pool-');
// The built module (npm test builds first): the pool starts the built worker, which a .ts source cannot.
const built = new URL('../../dist/src/pool/worker-pool.js', import.meta.url).href;

async function until(check: () => boolean, ms: number): Promise<void> {
  for (const end = Date.now() + ms; !check() && Date.now() < end; ) await new Promise((r) => setTimeout(r, 20));
}

describe('worker pool', () => {
  let pool: WorkerPoolClass | undefined;
  afterEach(async () => {
    await pool?.close();
  });

  it('ends its workers after an idle spell and starts them again for the next task', async () => {
    const { WorkerPool } = (await import(built)) as { WorkerPool: typeof WorkerPoolClass };
    pool = new WorkerPool({
      setup: { dataDir: tempDir(), sync: 'none', maxDecompressedBytes: 1 << 20, nice: 0 },
      workers: 2,
      tasksPerWorker: 1,
      idleTimeoutMs: 200,
    });
    const pongs = await pool.ready();
    expect(pongs).toHaveLength(2);
    expect(pool.threads).toBe(2);
    await until(() => pool?.threads === 0, 5000);
    expect(pool.threads).toBe(0);
    const again = await pool.run<PongResult>({ kind: 'ping' });
    expect(again.nice).toBeDefined();
    expect(pool.threads).toBe(1);
  });
});

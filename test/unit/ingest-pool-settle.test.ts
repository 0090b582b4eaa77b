/**
 * A bug while a group of captures is settled (here a throwing stats callback; in the single
 * binary once, a worker result Piscina had not unwrapped) answers the group's requests with a 500
 * and leaves the pool serving. Before, it was an unhandled rejection, which ended the daemon.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { IngestPool as IngestPoolClass } from '../../src/pool/ingest-pool.js';
import type { WorkerPool as WorkerPoolClass } from '../../src/pool/worker-pool.js';
import type { CaptureRequest } from '../../src/ingest/types.js';
import { AuthStore } from '../../src/store/auth-store.js';
import { openStore, type StoreDatabases } from '../../src/store/open-store.js';
import { EventWriter } from '../../src/store/event-log.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs('hedgerow-ingest-pool-');
// The built modules (npm test builds first): the pool starts the built worker, which a .ts source cannot.
const built = (file: string) => new URL(`../../dist/src/pool/${file}`, import.meta.url).href;
const TOKEN = 'phc_ingest_pool_settle';

const capture = (body: string): CaptureRequest => ({
  path: '/capture/',
  query: '',
  method: 'POST',
  contentType: 'application/json',
  contentEncoding: '',
  body: new TextEncoder().encode(body),
  ip: '127.0.0.1',
});

describe('IngestPool settling a group', () => {
  let dbs: StoreDatabases | undefined;
  let workers: WorkerPoolClass | undefined;
  afterEach(async () => {
    await workers?.close();
    await dbs?.root.close();
  });

  it('answers 500 when settling throws, inline and in a worker, and keeps serving', async () => {
    const dataDir = tempDir();
    dbs = openStore({ dataDir, sync: 'none' });
    const auth = new AuthStore(dbs);
    auth.createProject({ name: 'p', organizationId: auth.createOrganization('o').id, apiToken: TOKEN });
    const { IngestPool } = (await import(built('ingest-pool.js'))) as { IngestPool: typeof IngestPoolClass };
    const { WorkerPool } = (await import(built('worker-pool.js'))) as { WorkerPool: typeof WorkerPoolClass };
    workers = new WorkerPool({ setup: { dataDir, sync: 'none', maxDecompressedBytes: 1 << 24, nice: 0 }, workers: 1, tasksPerWorker: 2 });
    await workers.ready();
    const writer = new EventWriter(dbs);
    let broken = true;
    const pool = new IngestPool({
      pool: workers,
      maxDecompressedBytes: 1 << 24,
      batchWindowMs: 0,
      auth,
      commit: (block) => writer.append(block),
      onStats: () => {
        if (broken) throw new Error('stats went wrong');
      },
    });
    const plain = JSON.stringify({ api_key: TOKEN, event: 'e', distinct_id: 'd' });
    // Over the inline limit: this one goes to the worker.
    const large = JSON.stringify({ api_key: TOKEN, event: 'e', distinct_id: 'd', properties: { pad: 'x'.repeat(8192) } });

    const answers = await Promise.all([pool.submit(capture(plain)), pool.submit(capture(large))]);
    for (const a of answers) {
      expect(a.ok).toBe(false);
      if (!a.ok)
        expect([a.error.hedgerowCode, a.error.detail]).toEqual([
          'HR_CAPTURE_SETTLE_FAILED',
          'Internal error: capture failed: stats went wrong',
        ]);
    }

    broken = false;
    expect(await Promise.all([pool.submit(capture(plain)), pool.submit(capture(large))])).toEqual([
      { ok: true, status: 200, projectId: 1 },
      { ok: true, status: 200, projectId: 1 },
    ]);
  });
});

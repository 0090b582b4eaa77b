/**
 * Captures waiting for a store that does not commit (here: another process holds LMDB's write
 * lock, as a stalled disk would) are bounded by HEDGEROW_MAX_CAPTURE_BYTES_IN_FLIGHT: past it a
 * capture is answered 503 at once (SDKs retry) instead of being kept in memory, and those taken
 * are answered 200 once the store commits, every one of them stored.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupDaemons, REPO_ROOT, useDaemon } from '../helpers/daemon.js';
import { errorBody, eventsOf, OK, postJson, uniqueId } from '../helpers/http.js';

afterAll(cleanupDaemons);

/** A process holding the store's write lock for `ms`; resolves once it holds it, with its exit. */
function holdWriteLock(dataDir: string, ms: number): Promise<{ released: Promise<void> }> {
  const script = `
    import { openStore } from ${JSON.stringify(`${REPO_ROOT}/dist/src/store/open-store.js`)};
    const dbs = openStore({ dataDir: ${JSON.stringify(dataDir)}, sync: 'durable' });
    dbs.root.transactionSync(() => {
      console.log('holding');
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ${ms});
    });
    await dbs.root.close();`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const released = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      if (d.toString().includes('holding')) resolve({ released });
    });
    child.once('error', reject);
  });
}

describe('captures in flight while the store does not commit', () => {
  const d = useDaemon({ backend: 'uws', env: { HEDGEROW_MAX_CAPTURE_BYTES_IN_FLIGHT: '200000' } });

  it('answers 503 overloaded past the limit and stores every capture it took', async () => {
    const { released } = await holdWriteLock(d.dataDir, 1500);
    const distinctId = uniqueId('overload');
    const padding = 'x'.repeat(30_000); // ~30 KB a request: over 4 KiB, so a worker decodes it
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        postJson(d, '/batch/', {
          api_key: d.projectKey,
          batch: [{ event: 'overload', uuid: randomUUID(), distinct_id: distinctId, properties: { i, padding } }],
        }),
      ),
    );
    await released;
    const taken = replies.filter((r) => r.status === 200);
    const refused = replies.filter((r) => r.status === 503);
    expect(taken.length + refused.length).toBe(20);
    expect(taken.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of taken) expect(r.json).toEqual(OK);
    for (const r of refused) {
      expect(r.json).toEqual(
        errorBody('server_error', 'overloaded', 'Too many events are waiting to be stored. Please try again shortly.'),
      );
    }
    expect((await eventsOf(d, distinctId)).length).toBe(taken.length);
  });
});

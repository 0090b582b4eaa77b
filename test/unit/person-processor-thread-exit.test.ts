/**
 * A person processor thread that has died (an uncaught error in it) leaves nothing waiting: the
 * daemon's shutdown (`stop()`) and blast radius questions resolve. Before, `stop()` listened for
 * an exit that had already happened, so SIGTERM always ran into the forced exit, and a blast
 * radius question waited for ever.
 */
import type { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import type { PersonProcessorThread as ThreadClass } from '../../src/processing/person-processor-thread.js';
import { openStore } from '../../src/store/open-store.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs('hedgerow-processor-exit-');
// The built module (npm test builds first): it starts the built worker, which a .ts source cannot.
const BUILT = new URL('../../dist/src/processing/person-processor-thread.js', import.meta.url).href;

describe('a person processor thread that died', () => {
  it('answers questions and stops at once', async () => {
    const dataDir = tempDir();
    await openStore({ dataDir, sync: 'none' }).root.close(); // the store the daemon would have created
    const crashes: string[] = [];
    const { PersonProcessorThread } = (await import(BUILT)) as { PersonProcessorThread: typeof ThreadClass };
    const thread = await PersonProcessorThread.start(
      { dataDir, sync: 'none', retentionDays: 0 },
      { onBatch: () => {}, onRetry: () => {}, onCrash: (error) => crashes.push(error), onPruned: () => {}, onPruneFailed: () => {} },
    );
    const worker = (thread as unknown as { worker: Worker }).worker;
    const exited = new Promise<number>((resolve) => worker.once('exit', resolve));
    // A slot outside the hand-off ring: the thread's message handler throws, uncaught there.
    worker.postMessage({ type: 'tick', blocks: [{ key: [1, 1, 1], offset: 1e12, length: 5 }] });
    expect(await exited).toBe(1);
    expect(crashes).toHaveLength(1);

    const answer = await thread.blastRadius({ projectId: 1, groupTypeIndex: null, properties: [], nowMs: Date.now() } as never);
    expect(answer).toEqual({ ok: false, error: 'the person processor is not running' });
    await thread.stop(); // resolves: the test would time out otherwise
  });
});

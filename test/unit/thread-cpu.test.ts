import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { ThreadCpu } from '../../src/observability/thread-cpu.js';
import { osThreadId } from '../../src/util/os-thread-id.js';

// The worker runs the built module (npm test builds first): a worker thread cannot load .ts.
const BUILT = new URL('../../dist/src/observability/thread-cpu.js', import.meta.url).href;

/** A thread that announces itself with `role`, burns `busyMs` of CPU, then waits to be ended. */
function startThread(role: string, busyMs: number): Worker {
  const code = `
    const { parentPort } = require('node:worker_threads');
    import(${JSON.stringify(BUILT)}).then((m) => {
      m.announceThread(${JSON.stringify(role)});
      const end = Date.now() + ${busyMs};
      while (Date.now() < end);
      parentPort.postMessage('busy done');
      setInterval(() => {}, 1000); // stays until terminated
    });`;
  return new Worker(code, { eval: true });
}

const started: Worker[] = [];
let cpu: ThreadCpu | undefined;
afterEach(async () => {
  cpu?.close();
  await Promise.all(started.splice(0).map((w) => w.terminate()));
});

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 20));
}

describe('thread CPU time by role', () => {
  it.skipIf(!existsSync('/proc/thread-self'))('names announced threads in order per role and reads their CPU time', async () => {
    expect(existsSync(fileURLToPath(BUILT))).toBe(true);
    const announced: Array<[string, number]> = [];
    cpu = new ThreadCpu((thread, tid) => announced.push([thread, tid]));
    const pool = [startThread('pool', 300), startThread('pool', 0)];
    started.push(...pool, startThread('person-processor', 0), startThread('not-a-role', 0));
    await Promise.all(pool.map((w) => new Promise((r) => w.once('message', r))));
    await until(() => announced.length >= 3);

    expect(announced.map(([name]) => name).sort()).toEqual(['person-processor-1', 'pool-1', 'pool-2']);
    const sample = cpu.sample();
    const byName = new Map(sample.map((t) => [t.thread, t]));
    expect([...byName.keys()].sort()).toEqual(['main', 'other', 'person-processor-1', 'pool-1', 'pool-2']);
    expect(byName.get('main')?.tid).toBe(osThreadId());
    expect(byName.get('other')?.tid).toBeUndefined();
    for (const [name, tid] of announced) expect(byName.get(name)?.tid).toBe(tid);
    // One of the two pool threads spun for 300 ms; /proc counts in 10 ms ticks.
    const poolSeconds = [byName.get('pool-1'), byName.get('pool-2')].map((t) => t?.seconds ?? 0);
    expect(Math.max(...poolSeconds)).toBeGreaterThanOrEqual(0.2);
    expect(sample.every((t) => t.seconds >= 0)).toBe(true);

    // A thread that ended leaves the list; its time stays in the process's, so in `other`.
    const pools = () => cpu!.sample().filter((t) => t.thread.startsWith('pool-'));
    await started.splice(0, 1)[0]!.terminate();
    await until(() => pools().length === 1);
    expect(pools()).toHaveLength(1);
    const endedName = pools()[0]?.thread === 'pool-1' ? 'pool-2' : 'pool-1';

    // A thread started in place of one that ended takes its name (the pool's, after an idle spell).
    started.push(startThread('pool', 0));
    await until(() => announced.length >= 4);
    expect(announced[3]?.[0]).toBe(endedName);
  });
});

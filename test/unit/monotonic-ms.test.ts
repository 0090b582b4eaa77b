import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { monotonicMs } from '../../src/util/monotonic-ms.js';

describe('monotonicMs', () => {
  it('follows process.hrtime', () => {
    const a = monotonicMs();
    const hr = Number(process.hrtime.bigint()) / 1e6;
    const b = monotonicMs();
    expect(hr).toBeGreaterThanOrEqual(a - 0.5);
    expect(hr).toBeLessThanOrEqual(b + 0.5);
  });

  it('agrees between threads', async () => {
    // The built module (npm test builds first), read in a thread that starts after this one.
    const built = new URL('../../dist/src/util/monotonic-ms.js', import.meta.url).href;
    const code = `
      const { parentPort } = require('node:worker_threads');
      import(${JSON.stringify(built)}).then((m) => parentPort.postMessage(m.monotonicMs()));`;
    const before = monotonicMs();
    const theirs = await new Promise<number>((resolve, reject) => {
      const w = new Worker(code, { eval: true });
      w.once('message', (m: number) => {
        resolve(m);
        void w.terminate();
      });
      w.once('error', reject);
    });
    const after = monotonicMs();
    expect(theirs).toBeGreaterThanOrEqual(before - 0.5);
    expect(theirs).toBeLessThanOrEqual(after + 0.5);
  });
});

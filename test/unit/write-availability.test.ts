/**
 * WriteAvailability: the first refused write marks the store unavailable (one notice), a probe
 * runs every interval until one commits, and any write that commits ends it (one notice).
 * Also which rejections count as a failed commit (store-errors.ts).
 */
import { describe, expect, it } from 'vitest';
import { commitFailureReason, isCommitFailure, isTransientStoreError } from '../../src/store/store-errors.js';
import { WriteAvailability } from '../../src/store/write-availability.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function tracker(probeResults: boolean[]) {
  const events: string[] = [];
  let probes = 0;
  const w = new WriteAvailability({
    probe: async () => {
      probes++;
      if (!(probeResults.shift() ?? true)) throw Object.assign(new Error('No space left on device: page 7'), { code: 28 });
    },
    describe: (err) => (err as Error).message.replace(/:.*$/s, ''),
    intervalMs: 10,
    onUnavailable: (reason) => events.push(`down ${reason}`),
    onAvailable: () => events.push('up'),
  });
  return { w, events, probes: () => probes };
}

describe('WriteAvailability', () => {
  it('is available until a write fails, and probes until one commits', async () => {
    const { w, events, probes } = tracker([false, false, true]);
    expect(w.unavailable).toBeUndefined();
    w.failed('Input/output error');
    w.failed('Input/output error');
    expect(w.unavailable?.reason).toBe('Input/output error');
    expect(events).toEqual(['down Input/output error']);
    await sleep(25);
    // A failed probe keeps it down, with the probe's reason.
    expect(w.unavailable?.reason).toBe('No space left on device');
    for (let i = 0; i < 50 && w.unavailable; i++) await sleep(10);
    expect(w.unavailable).toBeUndefined();
    expect(probes()).toBe(3);
    expect(events).toEqual(['down Input/output error', 'up']);
    await sleep(30);
    expect(probes()).toBe(3); // no probing while available
    w.close();
  });

  it('ends at the first write that commits, without waiting for a probe', () => {
    const { w, events, probes } = tracker([]);
    w.failed('No space left on device');
    w.succeeded();
    w.succeeded();
    expect(w.unavailable).toBeUndefined();
    expect(events).toEqual(['down No space left on device', 'up']);
    expect(probes()).toBe(0);
    w.close();
  });

  it('stops probing once closed', async () => {
    const { w, probes } = tracker([false, false, false]);
    w.failed('No space left on device');
    w.close();
    await sleep(40);
    expect(probes()).toBe(0);
  });
});

describe('store errors', () => {
  it('counts lmdb-js commit failures, and nothing else, as failed commits', () => {
    const commitFailed = Object.assign(new Error('Commit failed (see commitError for details)'), { commitError: Promise.resolve() });
    expect(isCommitFailure(commitFailed)).toBe(true);
    const reason = Object.assign(new Error('No space left on device: Attempting to write page'), { code: 28 });
    reason.stack = 'Error: No space left on device\n    at Function.<anonymous> (file:///app/node_modules/lmdb/write.js:516:7)';
    expect(isCommitFailure(reason)).toBe(true);
    expect(isCommitFailure(Object.assign(new Error('No space left on device'), { code: 28 }))).toBe(false);
    expect(isCommitFailure(new Error('boom'))).toBe(false);
    expect(isCommitFailure('Commit failed')).toBe(false);
    expect(isTransientStoreError(reason)).toBe(true);
  });

  it("reads a failed commit's reason from its commitError, or falls back to its message", async () => {
    const detail = Promise.reject(Object.assign(new Error('No space left on device: Attempting to write page at 8192'), { code: 28 }));
    const err = Object.assign(new Error('Commit failed (see commitError for details)'), { commitError: detail });
    expect(await commitFailureReason(err)).toBe('No space left on device');
    const never = Object.assign(new Error('Commit failed (see commitError for details)'), { commitError: new Promise(() => {}) });
    expect(await commitFailureReason(never, 10)).toBe('Commit failed (see commitError for details)');
    expect(await commitFailureReason(new Error('Input/output error'))).toBe('Input/output error');
  });
});

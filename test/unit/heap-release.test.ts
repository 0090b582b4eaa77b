/**
 * heapRelease: a collection once a task left the heap grown past the threshold, when no task has
 * ended for a moment; none otherwise, and no more than one per interval.
 */
import { getHeapStatistics } from 'node:v8';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { heapRelease } from '../../src/util/heap-release.js';

const MB = 1024 * 1024;

describe('heapRelease', () => {
  let heap = 0;
  let collected = 0;
  const collect = (): void => {
    collected++;
    heap = 20 * MB; // what survives the collection
  };

  beforeEach(() => {
    vi.useFakeTimers();
    heap = 20 * MB;
    collected = 0;
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const make = () => heapRelease({ growthBytes: 64 * MB, idleMs: 100, minIntervalMs: 1000, heapBytes: () => heap, collect });

  it('collects after a task that grew the heap past the threshold, once no task has ended for a while', () => {
    const release = make();
    heap = 20 * MB + 63 * MB;
    release.afterTask();
    vi.runAllTimers();
    expect(collected).toBe(0);

    heap = 20 * MB + 64 * MB;
    release.afterTask();
    expect(collected).toBe(0); // not within the task
    vi.advanceTimersByTime(60);
    heap = 20 * MB; // the next task's heap may be small again: the collection is still due
    release.afterTask(); // another task: the collection waits for the thread to be idle
    vi.advanceTimersByTime(60);
    expect(collected).toBe(0);
    vi.advanceTimersByTime(40);
    expect([collected, release.collections]).toEqual([1, 1]);
  });

  it('measures growth from what the last collection left', () => {
    const release = make();
    heap = 200 * MB;
    release.afterTask();
    vi.runAllTimers();
    expect(collected).toBe(1);
    heap = 20 * MB + 10 * MB;
    release.afterTask();
    vi.runAllTimers();
    expect(collected).toBe(1);
  });

  it('collects at most once per interval, and still collects after a late task', () => {
    const release = make();
    heap = 200 * MB;
    release.afterTask();
    vi.advanceTimersByTime(100);
    expect(collected).toBe(1);

    heap = 200 * MB;
    release.afterTask();
    release.afterTask(); // already scheduled: one collection
    vi.advanceTimersByTime(500);
    expect(collected).toBe(1);
    vi.advanceTimersByTime(500);
    expect(collected).toBe(2);
  });

  it('gives a real heap back (V8 collects a dropped 64 MB string)', () => {
    vi.useRealTimers();
    const size = () => {
      const h = getHeapStatistics();
      return h.total_heap_size + h.external_memory;
    };
    const release = heapRelease({ growthBytes: 32 * MB, idleMs: 0, minIntervalMs: 0 });
    let big: string | undefined = Buffer.alloc(64 * MB, 'x').toString('latin1');
    expect(big.length).toBe(64 * MB);
    big = undefined;
    const grown = size();
    release.afterTask();
    return new Promise<void>((resolve, reject) => {
      setTimeout(() => {
        try {
          expect(release.collections).toBe(1);
          expect(grown - size()).toBeGreaterThan(48 * MB);
          resolve();
        } catch (err) {
          reject(err);
        }
      }, 50);
    });
  });
});

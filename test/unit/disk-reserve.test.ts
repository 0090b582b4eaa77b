/**
 * The free-space reserve: which writes wait at which free space (capture keeps the whole reserve
 * free, management writes half of it, 0 disables it), how often the disk is looked at, and the
 * store-write watch holding the store unavailable while the disk is short.
 */
import { describe, expect, it } from 'vitest';
import { DiskReserve, reserveShortfall } from '../../src/store/disk-reserve.js';
import { WriteAvailability } from '../../src/store/write-availability.js';

const MiB = 1024 * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('reserveShortfall', () => {
  it('holds capture under the reserve and management writes under half of it', () => {
    expect(reserveShortfall(3 * MiB, 2 * MiB)).toBeUndefined();
    expect(reserveShortfall(2 * MiB, 2 * MiB)).toBeUndefined();
    expect(reserveShortfall(2 * MiB - 1, 2 * MiB)).toBe(
      "the data directory's disk has 2097151 bytes free, less than HEDGEROW_MIN_FREE_DISK_BYTES (2097152)",
    );
    expect(reserveShortfall(1.5 * MiB, 2 * MiB, 'management')).toBeUndefined();
    expect(reserveShortfall(0, 2 * MiB, 'management')).toBe(
      "the data directory's disk has 0 bytes free, less than half of HEDGEROW_MIN_FREE_DISK_BYTES (1048576)",
    );
  });

  it('never refuses with a reserve of 0', () => {
    expect(reserveShortfall(0, 0)).toBeUndefined();
    expect(reserveShortfall(0, 0, 'management')).toBeUndefined();
    expect(reserveShortfall(0, 1, 'management')).toBeUndefined();
  });
});

describe('DiskReserve', () => {
  function disk(free: number[]) {
    let now = 0;
    let looks = 0;
    const reserve = new DiskReserve({
      dir: '/data',
      minFreeBytes: 100,
      now: () => now,
      freeBytes: (dir) => {
        expect(dir).toBe('/data');
        looks++;
        const f = free.shift();
        if (f === undefined) throw new Error('EIO');
        return f;
      },
    });
    return { reserve, looks: () => looks, advance: (ms: number) => (now += ms) };
  }

  it('looks at the disk once per 100 ms, or as often as a caller asks', () => {
    const { reserve, looks, advance } = disk([500, 50, 500]);
    expect(reserve.shortfall()).toBeUndefined();
    advance(99);
    expect(reserve.shortfall()).toBeUndefined();
    expect(looks()).toBe(1);
    expect(reserve.shortfall('capture', 10)).toMatch(/has 50 bytes free/);
    advance(99);
    expect(reserve.shortfall()).toMatch(/has 50 bytes free/);
    advance(1);
    expect(reserve.shortfall()).toBeUndefined();
    expect(looks()).toBe(3);
  });

  it('does not hold writes when the disk cannot say, nor look at it with no reserve', () => {
    const { reserve } = disk([]);
    expect(reserve.shortfall()).toBeUndefined();
    const off = new DiskReserve({
      dir: '/data',
      minFreeBytes: 0,
      freeBytes: () => {
        throw new Error('not looked at');
      },
    });
    expect(off.shortfall()).toBeUndefined();
  });

  it('keeps its last look when the disk cannot say, and looks again when the clock goes back', () => {
    let now = 1000;
    let answer: number | Error = 50;
    const reserve = new DiskReserve({
      dir: '/data',
      minFreeBytes: 100,
      now: () => now,
      freeBytes: () => {
        if (answer instanceof Error) throw answer;
        return answer;
      },
    });
    expect(reserve.shortfall('capture', 0)).toMatch(/has 50 bytes free/);
    answer = new Error('EIO');
    now += 10;
    expect(reserve.shortfall('capture', 0)).toMatch(/has 50 bytes free/);
    answer = 500;
    now -= 5_000; // a clock stepped back: the look is not frozen
    expect(reserve.shortfall('capture', 100)).toBeUndefined();
  });
});

describe('WriteAvailability with a reserve', () => {
  it('is unavailable while the disk is short, looks at the space instead of probing, and probes once it is back', async () => {
    let short: string | undefined;
    let probes = 0;
    const events: string[] = [];
    const w = new WriteAvailability({
      probe: async () => {
        probes++;
      },
      describe: () => 'x',
      intervalMs: 10,
      shortfall: () => short,
      onUnavailable: (reason) => events.push(`down ${reason}`),
      onAvailable: () => events.push('up'),
    });
    expect(w.check()).toBeUndefined();
    short = 'short of space';
    expect(w.check()?.reason).toBe('short of space');
    // A write that passed the reserve before the disk got short does not end it.
    w.succeeded();
    expect(w.unavailable?.reason).toBe('short of space');
    await sleep(40);
    expect(probes).toBe(0);
    expect(w.unavailable).toBeDefined();
    short = undefined;
    for (let i = 0; i < 50 && w.unavailable; i++) await sleep(10);
    expect(w.unavailable).toBeUndefined();
    expect(probes).toBe(1);
    expect(events).toEqual(['down short of space', 'up']);
    w.close();
  });
});

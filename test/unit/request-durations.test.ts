import { describe, expect, it } from 'vitest';
import { REQUEST_DURATION_BUCKETS, DurationTally } from '../../src/observability/request-durations.js';

const B = REQUEST_DURATION_BUCKETS.length;
/** Per-bucket counts with `n` at the given indexes. */
const countsAt = (...at: number[]) => {
  const out = new Array<number>(B + 1).fill(0);
  for (const i of at) out[i]!++;
  return out;
};

describe('DurationTally', () => {
  it('counts each duration in the first bucket whose bound it does not exceed, as Prometheus `le`', () => {
    const t = new DurationTally();
    t.observe('flags', 'POST', 0); // ≤ 0.1 ms
    t.observe('flags', 'POST', 0.0001); // on a bound: that bucket
    t.observe('flags', 'POST', 0.00011); // the next
    t.observe('flags', 'POST', 99); // past every bound
    const [series] = t.all();
    expect(series).toEqual(['flags', 'POST', countsAt(0, 0, 1, B), 0 + 0.0001 + 0.00011 + 99]);
  });

  it('keeps routes and methods apart', () => {
    const t = new DurationTally();
    t.observe('flags', 'POST', 0.002);
    t.observe('flags', 'GET', 0.002);
    t.observe('capture:/e', 'POST', 0.002);
    expect(t.all().map(([route, method]) => `${route} ${method}`)).toEqual(['flags POST', 'flags GET', 'capture:/e POST']);
  });

  it('take() hands the counts over and starts again; add() sums what another thread took', () => {
    const thread = new DurationTally();
    const daemon = new DurationTally();
    expect(thread.empty).toBe(true);
    thread.observe('flags', 'POST', 0.0003);
    thread.observe('flags', 'POST', 0.0003);
    expect(thread.empty).toBe(false);
    daemon.observe('flags', 'POST', 0.02);
    daemon.add(thread.take());
    expect(thread.empty).toBe(true);
    expect(thread.all()).toEqual([]);
    thread.observe('flags', 'POST', 0.0003);
    daemon.add(thread.take());
    const idx = REQUEST_DURATION_BUCKETS.findIndex((b) => 0.0003 <= b);
    const want = countsAt(idx, idx, idx, REQUEST_DURATION_BUCKETS.indexOf(0.025));
    const [[route, method, counts, sum]] = daemon.all() as [[string, string, number[], number]];
    expect([route, method, counts]).toEqual(['flags', 'POST', want]);
    expect(sum).toBeCloseTo(0.0209, 10);
  });

  it('add() takes only the buckets it knows, and missing ones as 0', () => {
    const t = new DurationTally();
    t.add([['x', 'GET', [1, 2], 0.5]]);
    t.add([['x', 'GET', new Array<number>(B + 5).fill(1), 0.5]]);
    const [[, , counts, sum]] = t.all() as [[string, string, number[], number]];
    expect(counts).toHaveLength(B + 1);
    expect(counts.slice(0, 3)).toEqual([2, 3, 1]);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(3 + B + 1);
    expect(sum).toBe(1);
  });
});

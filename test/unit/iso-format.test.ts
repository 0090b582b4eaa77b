import { describe, expect, it } from 'vitest';
import { formatIsoMs } from '../../src/ingest/iso-format.js';

describe('formatIsoMs', () => {
  it('matches Date.prototype.toISOString across years 0-9999', () => {
    const first = new Date(0);
    first.setUTCFullYear(0, 0, 1);
    const lo = first.getTime();
    const hi = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
    expect(lo).toBe(-62_167_219_200_000);
    const samples = [lo, hi, 0, -1, 1, 951_782_400_000 /* 2000-02-29 */, 1_717_243_200_123];
    let x = 12345;
    for (let i = 0; i < 20_000; i++) {
      x = (x * 1103515245 + 12345) % 2147483648;
      samples.push(lo + Math.floor((x / 2147483648) * (hi - lo)));
    }
    for (const t of samples) expect(formatIsoMs(t)).toBe(new Date(t).toISOString());
  });

  it('truncates fractional milliseconds like a Date', () => {
    expect(formatIsoMs(1.9)).toBe('1970-01-01T00:00:00.001Z');
    expect(formatIsoMs(-1.5)).toBe(new Date(-1.5).toISOString());
  });
});

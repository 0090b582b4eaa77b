/**
 * dateutil's `isoparse`, as PostHog's events API reads `after`/`before` with it. Expected values
 * are what python-dateutil 2.9's `isoparse` gives for each text (UTC unless a zone is written).
 */
import { describe, expect, it } from 'vitest';
import { isoparseMs } from '../../src/compat/dateutil-isoparse.js';

const READ: Array<[string, string]> = [
  ['2026', '2026-01-01T00:00:00.000Z'],
  ['2026-11', '2026-11-01T00:00:00.000Z'],
  ['2026-11-28', '2026-11-28T00:00:00.000Z'],
  ['20261128', '2026-11-28T00:00:00.000Z'],
  ['20261128T101500Z', '2026-11-28T10:15:00.000Z'],
  ['20261128T1015', '2026-11-28T10:15:00.000Z'],
  ['2026-11-28T10:15:30.123456789+01:30', '2026-11-28T08:45:30.123Z'],
  ['2026-11-28 10:15:30,5', '2026-11-28T10:15:30.500Z'],
  ['2026-11-28x10', '2026-11-28T10:00:00.000Z'],
  ['2026-W48', '2026-11-23T00:00:00.000Z'],
  ['2026W486', '2026-11-28T00:00:00.000Z'],
  ['2026-W48-6T10:15Z', '2026-11-28T10:15:00.000Z'],
  ['2026-332', '2026-11-28T00:00:00.000Z'],
  ['2026332', '2026-11-28T00:00:00.000Z'],
  ['2024-366', '2024-12-31T00:00:00.000Z'],
  ['2026-11-28T24:00', '2026-11-29T00:00:00.000Z'],
  ['2026-11-28T10:1', '2026-11-28T10:01:00.000Z'],
  ['2026 10:15', '2026-01-10T15:00:00.000Z'],
  ['2026-11-28T10:15+0000', '2026-11-28T10:15:00.000Z'],
  ['2026-11-28T10:15-05', '2026-11-28T15:15:00.000Z'],
];

const REFUSED = [
  '202611',
  '2026-13-01',
  '2026-02-29',
  '2025-366',
  '2026-W54',
  '2026-11-28T24:00:01',
  '2026-11-28T10:60',
  '2026-11-28T10:15+24',
  '2026-11-28T10:15:30.',
  '0000-01-01',
  '2026-11-28T',
  '2026-11-28T10:15 ',
  '２０２６-11-28',
  '-7d',
  '',
];

describe('isoparseMs', () => {
  it('reads what dateutil reads, as the same instant', () => {
    for (const [text, utc] of READ) expect(Math.floor(isoparseMs(text) ?? Number.NaN), text).toBe(Date.parse(utc));
  });

  it('keeps microseconds as a fraction of a millisecond', () => {
    expect(isoparseMs('2026-11-28T10:15:30.123456')).toBeCloseTo(Date.parse('2026-11-28T10:15:30.123Z') + 0.456, 6);
  });

  it('refuses what dateutil refuses', () => {
    for (const text of REFUSED) expect(isoparseMs(text), text).toBeUndefined();
  });
});

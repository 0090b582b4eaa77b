import { describe, expect, it } from 'vitest';
import { parseDateMs } from '../../src/compat/parse-date.js';
import { parseEventTimestamp, parseQuerySentAtMs, parseSentAtMs } from '../../src/ingest/timestamp.js';
import { vectorsFor } from './ingestion-vectors.js';

const iso = (s: string): string => new Date(s).toISOString();
const ms = (s: string): number => new Date(s).getTime();

describe('parse_event_timestamp vectors (94-102)', () => {
  const vectors = vectorsFor('parse_event_timestamp(timestamp, offset, sent_at, ignore_sent_at, now)');
  it('covers 94-102', () => expect(vectors.map((v) => v.id)).toEqual([94, 95, 96, 97, 98, 99, 100, 101, 102]));

  for (const v of vectors) {
    it(`vector ${v.id}: ${v.description}`, () => {
      const input = v.input as {
        timestamp: string | null;
        offset_ms: number | null;
        sent_at: string | null;
        ignore_sent_at: boolean;
        now: string;
      };
      const now = ms(input.now);
      const result = parseEventTimestamp({
        timestamp: input.timestamp,
        offsetMs: input.offset_ms,
        sentAtMs: input.sent_at === null ? undefined : ms(input.sent_at),
        ignoreSentAt: input.ignore_sent_at,
        nowMs: now,
      });
      expect(result.source).toBe(v.expected.source);
      if (v.expected.source === 'Offset') {
        expect(result.timestamp).toBe(new Date(now - (input.offset_ms as number)).toISOString());
      } else {
        expect(result.timestamp).toBe(iso(v.expected.timestamp as string));
      }
    });
  }
});

describe('ingestion-side parseEventTimestamp vectors (103-107)', () => {
  const vectors = vectorsFor('parseEventTimestamp (ingestion side, after capture normalized it)');
  it('covers 103-107', () => expect(vectors.map((v) => v.id)).toEqual([103, 104, 105, 106, 107]));

  // Ingestion re-parses the stored timestamp: parseDateMs, falling back to now with a warning.
  for (const v of vectors) {
    it(`vector ${v.id}: ${v.description}`, () => {
      const input = v.input as { timestamp: string | null; now: string };
      const parsed = input.timestamp === null ? undefined : parseDateMs(input.timestamp);
      const result = new Date(parsed ?? ms(input.now)).toISOString();
      expect(result).toBe(v.expected.timestamp);
      const warned = input.timestamp !== null && parsed === undefined;
      expect(warned ? 'ignored_invalid_timestamp' : null).toBe(v.expected.warning);
    });
  }
});

describe('EventQuery::sent_at vectors (113-114)', () => {
  const vectors = vectorsFor('EventQuery::sent_at');
  it('covers 113-114', () => expect(vectors.map((v) => v.id)).toEqual([113, 114]));

  for (const v of vectors) {
    it(`vector ${v.id}: ${v.description}`, () => {
      const got = parseQuerySentAtMs(String(v.input.sent_at));
      expect(got !== undefined).toBe(v.expected.sent_at_present);
      if (got !== undefined) {
        expect(got).toBe(v.input.sent_at);
        expect(new Date(got).getUTCFullYear()).toBeGreaterThan(v.expected.year_gt as number);
      }
    });
  }
});

describe('parseEventTimestamp', () => {
  const now = ms('2024-06-01T12:00:00Z');
  const base = { offsetMs: undefined, sentAtMs: undefined, ignoreSentAt: false, nowMs: now };

  it('clamps more than 23 h in the future to now, keeps less', () => {
    const far = parseEventTimestamp({ ...base, timestamp: '2024-06-02T11:00:01Z' });
    expect(far.timestamp).toBe('2024-06-01T12:00:00.000Z');
    const near = parseEventTimestamp({ ...base, timestamp: '2024-06-02T10:59:59Z' });
    expect(near.timestamp).toBe('2024-06-02T10:59:59.000Z');
  });

  it('clamps a negative offset far in the future to now', () => {
    expect(parseEventTimestamp({ ...base, timestamp: undefined, offsetMs: -1e15 }).timestamp).toBe('2024-06-01T12:00:00.000Z');
  });

  it('turns results outside years 0-9999 into the epoch', () => {
    expect(parseEventTimestamp({ ...base, timestamp: undefined, offsetMs: 1e15 }).timestamp).toBe('1970-01-01T00:00:00.000Z');
    expect(parseEventTimestamp({ ...base, timestamp: '0001-01-01T00:00:00Z' }).timestamp).toBe('0001-01-01T00:00:00.000Z');
  });

  it('ignores a non-string timestamp and a non-number offset', () => {
    const r = parseEventTimestamp({ ...base, timestamp: 1717243200000, offsetMs: '5' });
    expect(r).toEqual({ timestamp: '2024-06-01T12:00:00.000Z', source: 'Now' });
  });

  it('keeps milliseconds and truncates finer fractions', () => {
    const r = parseEventTimestamp({ ...base, timestamp: '2024-06-01T10:00:00.123987Z' });
    expect(r.timestamp).toBe('2024-06-01T10:00:00.123Z');
  });
});

describe('parseDateMs', () => {
  const cases: Array<[string, string | undefined]> = [
    ['2023-01-01T11:00:00Z', '2023-01-01T11:00:00.000Z'],
    ['2023-01-01t11:00:00z', '2023-01-01T11:00:00.000Z'],
    ['2023-01-01T11:00:00.5+02', '2023-01-01T09:00:00.500Z'],
    ['2023-01-01T11:00:00-0530', '2023-01-01T16:30:00.000Z'],
    ['2023-01-01T11:00:00+05:30', '2023-01-01T05:30:00.000Z'],
    ['2023-01-01 11:00:00.123456', '2023-01-01T11:00:00.123Z'],
    ['2023-01-01 11:00:00 UTC', '2023-01-01T11:00:00.000Z'],
    ['2023-01-01T11:00', '2023-01-01T11:00:00.000Z'],
    ['2023-01-01', '2023-01-01T00:00:00.000Z'],
    ['2023/01/02 03:04:05', '2023-01-02T03:04:05.000Z'],
    ['01/02/2023', '2023-01-02T00:00:00.000Z'],
    ['Tue, 1 Jul 2003 10:52:37 +0200', '2003-07-01T08:52:37.000Z'],
    ['1 Jul 2003 10:52:37 GMT', '2003-07-01T10:52:37.000Z'],
    ['1704067200', '2024-01-01T00:00:00.000Z'],
    ['1704067200.25', '2024-01-01T00:00:00.250Z'],
    ['1704067200000', '2024-01-01T00:00:00.000Z'],
    ['1704067200000000', '2024-01-01T00:00:00.000Z'],
    ['1704067200000000000', '2024-01-01T00:00:00.000Z'],
    ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
    ['0099-03-01T00:00:00Z', '0099-03-01T00:00:00.000Z'],
    ['2023-02-29T00:00:00Z', undefined],
    ['2023-13-01', undefined],
    ['2023-01-01T24:00:00Z', undefined],
    ['2023-01-01T11:00:00+25:00', undefined],
    ['10000-01-01T00:00:00.000Z', undefined],
    ['not a date', undefined],
    ['foo 1', undefined],
    ['12345', undefined],
    ['', undefined],
  ];
  for (const [input, want] of cases) {
    it(`${JSON.stringify(input)} -> ${want ?? 'undefined'}`, () => {
      const got = parseDateMs(input);
      expect(got === undefined ? undefined : new Date(got).toISOString()).toBe(want);
    });
  }

  it('parses a batch sent_at', () => {
    expect(parseSentAtMs('2024-01-01T00:00:00.000Z')).toBe(1704067200000);
    expect(parseSentAtMs('garbage')).toBeUndefined();
    expect(parseSentAtMs(undefined)).toBeUndefined();
  });
});

describe('parseDateMs fast path', () => {
  it('agrees with Date.parse on SDK-shaped timestamps', () => {
    const inputs = [
      '2024-06-01T12:00:00.000Z',
      '2024-06-01T12:00:00Z',
      '2024-06-01T12:00:00.1Z',
      '2024-06-01T12:00:00.12Z',
      '2024-06-01T12:00:00.123456+00:00',
      '2024-06-01T12:00:00.123-07:30',
      '1999-12-31T23:59:59.999+14:00',
    ];
    for (const s of inputs) expect(parseDateMs(s)).toBe(Date.parse(s.replace(/(\.\d{3})\d+/, '$1')));
  });

  it('leaves odd shapes to the general parser', () => {
    expect(parseDateMs('2024-06-01T12:00:00.Z')).toBeUndefined();
    expect(parseDateMs('2024-06-01T12:00:00+0000')).toBe(Date.parse('2024-06-01T12:00:00Z'));
    expect(parseDateMs(' 2024-06-01T12:00:00Z ')).toBe(Date.parse('2024-06-01T12:00:00Z'));
  });
});

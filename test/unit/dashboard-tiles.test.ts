import { describe, expect, it } from 'vitest';
import {
  computeTile,
  dashboardDays,
  dashboardPageModel,
  dayLabel,
  type DailyCounts,
  type UsageSource,
} from '../../src/dashboards/compute-tiles.js';
import type { InsightDefinition } from '../../src/dashboards/usage-insights.js';

type Kind = 'total' | 'day_users' | 'last_seen';

interface Call {
  kind: Kind;
  event: string;
  flagKey: string;
  from: string;
  to: string;
}

/**
 * A rollup source from plain data: kind → breakdown value → day → number, returning only days in
 * from..to, and nothing for another event or flag than `only` names (any, when not given).
 */
function fakeSource(
  data: Partial<Record<Kind, Record<string, Record<string, number>>>>,
  only: { event?: string; flagKey?: string } = {},
): {
  source: UsageSource;
  calls: Call[];
} {
  const calls: Call[] = [];
  const source: UsageSource = {
    daily(kind, event, flagKey, from, to): DailyCounts {
      calls.push({ kind, event, flagKey, from, to });
      const out = new Map<string, Map<string, number>>();
      if ((only.event ?? event) !== event || (only.flagKey ?? flagKey) !== flagKey) return out;
      for (const [value, days] of Object.entries(data[kind] ?? {})) {
        const inRange = Object.entries(days).filter(([d]) => d >= from && d <= to);
        if (inRange.length > 0) out.set(value, new Map(inRange));
      }
      return out;
    },
  };
  return { source, calls };
}

const NOW = new Date('2026-11-05T15:30:00.000Z');
const DAYS = dashboardDays(NOW);
const FIRST = '2026-10-06';
const LAST = '2026-11-05';

/** One number per shown day: the given points, zeros elsewhere. */
function dataWith(points: Record<string, number>): number[] {
  return DAYS.map((d) => points[d] ?? 0);
}

const totalInsight: InsightDefinition = {
  name: 'Feature Flag Called Total Volume',
  description: 'calls',
  event: '$feature_flag_called',
  flag_key: 'beta',
  breakdown: '$feature_flag_response',
  display: 'ActionsLineGraph',
  math: 'total',
};

const dauInsight: InsightDefinition = {
  ...totalInsight,
  name: 'Feature Flag calls made by unique users per variant',
  display: 'ActionsTable',
  math: 'dau',
};

const viewInsight: InsightDefinition = {
  name: 'Feature Viewed Total Volume',
  event: '$feature_view',
  flag_key: 'beta',
  breakdown: null,
  display: 'ActionsLineGraph',
  math: 'total',
};

describe('dashboardDays', () => {
  it('gives 31 days ending on now’s UTC day', () => {
    expect(DAYS).toHaveLength(31);
    expect(DAYS[0]).toBe(FIRST);
    expect(DAYS[30]).toBe(LAST);
    expect(DAYS).toContain('2026-10-31');
    expect(DAYS).toContain('2026-11-01');
  });

  it('uses the UTC day at both ends of it', () => {
    expect(dashboardDays(new Date('2026-11-05T00:00:00.000Z')).at(-1)).toBe('2026-11-05');
    expect(dashboardDays(new Date('2026-11-05T23:59:59.999Z')).at(-1)).toBe('2026-11-05');
    expect(dashboardDays(new Date('2026-11-05T23:59:59.999-01:00')).at(-1)).toBe('2026-11-06');
  });

  it('lists consecutive days across a year boundary', () => {
    const days = dashboardDays(new Date('2027-01-10T00:00:00Z'));
    expect(days[0]).toBe('2026-12-11');
    expect(days.at(-1)).toBe('2027-01-10');
    expect(days.slice(20, 23)).toEqual(['2026-12-31', '2027-01-01', '2027-01-02']);
  });

  it('includes the leap day', () => {
    const days = dashboardDays(new Date('2024-03-15T00:00:00Z'));
    expect(days[0]).toBe('2024-02-14');
    expect(days.slice(14, 17)).toEqual(['2024-02-28', '2024-02-29', '2024-03-01']);
    expect(dashboardDays(new Date('2024-03-01T12:00:00Z'))[0]).toBe('2024-01-31');
    expect(dashboardDays(new Date('2023-03-01T12:00:00Z'))[0]).toBe('2023-01-30');
  });

  it('takes another number of days back', () => {
    expect(dashboardDays(NOW, 0)).toEqual([LAST]);
    expect(dashboardDays(NOW, 2)).toEqual(['2026-11-03', '2026-11-04', '2026-11-05']);
  });
});

describe('dayLabel', () => {
  it('writes PostHog’s day label without leading zeros', () => {
    expect(dayLabel('2026-11-05')).toBe('5-Nov-2026');
    expect(dayLabel('2024-01-01')).toBe('1-Jan-2024');
    expect(dayLabel('2024-02-29')).toBe('29-Feb-2024');
    expect(dayLabel('2026-12-31')).toBe('31-Dec-2026');
  });
});

describe('computeTile', () => {
  it('asks the source for the total counts of its event and flag over the shown days', () => {
    const { source, calls } = fakeSource({});
    computeTile(1, totalInsight, DAYS, source);
    expect(calls).toEqual([{ kind: 'total', event: '$feature_flag_called', flagKey: 'beta', from: FIRST, to: LAST }]);
  });

  it('makes one series per breakdown value, largest first, with "" shown as None', () => {
    const { source } = fakeSource({
      total: {
        true: { '2026-10-06': 2, '2026-11-05': 3 },
        false: { '2026-10-20': 7 },
        '': { '2026-11-01': 1 },
        // Outside the range: the source does not return it.
        old: { '2026-10-05': 100 },
      },
    });
    const tile = computeTile(7, totalInsight, DAYS, source);
    expect(tile).toMatchObject({
      id: 7,
      name: 'Feature Flag Called Total Volume',
      description: 'calls',
      display: 'ActionsLineGraph',
      math: 'total',
      event: '$feature_flag_called',
    });
    expect(tile.result.map((s) => [s.label, s.breakdown_value, s.count, s.aggregated_value])).toEqual([
      ['false', 'false', 7, 7],
      ['true', 'true', 5, 5],
      ['None', '', 1, 1],
    ]);
    const [first, second, third] = tile.result;
    expect(first?.data).toEqual(dataWith({ '2026-10-20': 7 }));
    expect(second?.data).toEqual(dataWith({ '2026-10-06': 2, '2026-11-05': 3 }));
    expect(second?.data[0]).toBe(2);
    expect(second?.data[30]).toBe(3);
    expect(third?.data).toEqual(dataWith({ '2026-11-01': 1 }));
    for (const s of tile.result) {
      expect(s.days).toEqual(DAYS);
      expect(s.labels).toHaveLength(31);
      expect(s.labels[0]).toBe('6-Oct-2026');
      expect(s.labels[30]).toBe('5-Nov-2026');
    }
  });

  it('breaks ties on the aggregated value by label, in code unit order (not the locale)', () => {
    const { source } = fakeSource({
      total: { test: { [LAST]: 2 }, control: { [FIRST]: 2 }, '': { [LAST]: 2 }, big: { [LAST]: 3 } },
    });
    expect(computeTile(1, totalInsight, DAYS, source).result.map((s) => s.label)).toEqual(['big', 'None', 'control', 'test']);
  });

  it('gives each series its own copy of the days', () => {
    const { source } = fakeSource({ total: { a: { [LAST]: 1 }, b: { [LAST]: 2 } } });
    const [a, b] = computeTile(1, totalInsight, DAYS, source).result;
    expect(a?.days).not.toBe(b?.days);
    expect(a?.days).not.toBe(DAYS);
  });

  it('counts unique users per day from day_users and over the range from last_seen', () => {
    const { source, calls } = fakeSource({
      day_users: {
        true: { '2026-10-10': 2, '2026-10-11': 2, [LAST]: 1 },
        false: { '2026-10-10': 4 },
      },
      // The same two "true" users came back on several days: they are counted once, on their last day.
      last_seen: {
        true: { '2026-10-11': 1, [LAST]: 1 },
        false: { '2026-10-10': 4 },
      },
    });
    const tile = computeTile(2, dauInsight, DAYS, source);
    expect(calls.map((c) => [c.kind, c.event, c.flagKey, c.from, c.to])).toEqual([
      ['day_users', '$feature_flag_called', 'beta', FIRST, LAST],
      ['last_seen', '$feature_flag_called', 'beta', FIRST, LAST],
    ]);
    expect(tile.math).toBe('dau');
    expect(tile.display).toBe('ActionsTable');
    expect(tile.result.map((s) => [s.label, s.count, s.aggregated_value])).toEqual([
      ['false', 4, 4],
      ['true', 5, 2],
    ]);
    expect(tile.result[1]?.data).toEqual(dataWith({ '2026-10-10': 2, '2026-10-11': 2, [LAST]: 1 }));
  });

  it('sorts dau series by their unique users over the range, not by the sum of days', () => {
    const { source } = fakeSource({
      day_users: { loyal: { '2026-10-10': 1, '2026-10-11': 1, '2026-10-12': 1 }, many: { [LAST]: 2 } },
      last_seen: { loyal: { '2026-10-12': 1 }, many: { [LAST]: 2 } },
    });
    expect(computeTile(2, dauInsight, DAYS, source).result.map((s) => [s.label, s.count, s.aggregated_value])).toEqual([
      ['many', 2, 2],
      ['loyal', 3, 1],
    ]);
  });

  it('makes one series labelled with the event for a tile without breakdown', () => {
    const { source, calls } = fakeSource({ total: { '': { '2026-10-07': 3, [LAST]: 4 } } });
    const tile = computeTile(3, viewInsight, DAYS, source);
    expect(calls).toEqual([{ kind: 'total', event: '$feature_view', flagKey: 'beta', from: FIRST, to: LAST }]);
    expect(tile.description).toBe('');
    expect(tile.event).toBe('$feature_view');
    expect(tile.result).toEqual([
      {
        label: '$feature_view',
        breakdown_value: null,
        data: dataWith({ '2026-10-07': 3, [LAST]: 4 }),
        days: DAYS,
        labels: DAYS.map(dayLabel),
        count: 7,
        aggregated_value: 7,
      },
    ]);
  });

  it('adds every value into the one series of a tile without breakdown', () => {
    const { source } = fakeSource({ total: { '': { [LAST]: 1 }, x: { [LAST]: 2, [FIRST]: 5 } } });
    const [only, ...rest] = computeTile(3, viewInsight, DAYS, source).result;
    expect(rest).toEqual([]);
    expect(only?.data[0]).toBe(5);
    expect(only?.data[30]).toBe(3);
    expect(only?.count).toBe(8);
  });

  it('reads the rollups of its own flag', () => {
    const { source, calls } = fakeSource({ total: { true: { [LAST]: 1 } } }, { flagKey: 'other' });
    expect(computeTile(1, totalInsight, DAYS, source).result).toEqual([]);
    expect(computeTile(1, { ...totalInsight, flag_key: 'other' }, DAYS, source).result).toHaveLength(1);
    expect(calls.map((c) => c.flagKey)).toEqual(['beta', 'other']);
  });

  it('returns no series when there is no data', () => {
    const { source } = fakeSource({ total: { '': { '2026-10-05': 9 } } });
    expect(computeTile(3, viewInsight, DAYS, source).result).toEqual([]);
    expect(computeTile(1, totalInsight, DAYS, source).result).toEqual([]);
    expect(computeTile(2, dauInsight, DAYS, fakeSource({}).source).result).toEqual([]);
  });
});

describe('dashboardPageModel', () => {
  it('computes every tile, in order, over the 31 days ending today', () => {
    const { source, calls } = fakeSource(
      {
        total: { true: { [LAST]: 2 }, '': { [LAST]: 1 } },
        day_users: { true: { [LAST]: 1 } },
        last_seen: { true: { [LAST]: 1 } },
      },
      { event: '$feature_flag_called', flagKey: 'beta' },
    );
    const model = dashboardPageModel(
      {
        id: 4,
        project_id: 9,
        name: 'Generated Dashboard: beta Usage',
        description: 'about beta',
        tiles: [
          { id: 10, insight: totalInsight },
          { id: 11, insight: dauInsight },
          { id: 12, insight: viewInsight },
          { id: 13, insight: { ...viewInsight, event: '$feature_interaction', name: 'Interactions' } },
        ],
      },
      NOW,
      source,
    );
    expect(model).toMatchObject({
      id: 4,
      projectId: 9,
      name: 'Generated Dashboard: beta Usage',
      description: 'about beta',
      dateFrom: FIRST,
      dateTo: LAST,
      generatedAt: '2026-11-05T15:30:00.000Z',
    });
    expect(model.tiles.map((t) => [t.id, t.name, t.description])).toEqual([
      [10, 'Feature Flag Called Total Volume', 'calls'],
      [11, 'Feature Flag calls made by unique users per variant', 'calls'],
      [12, 'Feature Viewed Total Volume', ''],
      [13, 'Interactions', ''],
    ]);
    expect(model.tiles[0]?.result.map((s) => [s.label, s.count])).toEqual([
      ['true', 2],
      ['None', 1],
    ]);
    expect(model.tiles[1]?.result.map((s) => [s.label, s.aggregated_value])).toEqual([['true', 1]]);
    expect(model.tiles[2]?.result).toEqual([]);
    expect(new Set(calls.map((c) => `${c.from}..${c.to}`))).toEqual(new Set([`${FIRST}..${LAST}`]));
  });

  it('has no tiles for a dashboard without tiles', () => {
    const empty = { id: 1, project_id: 1, name: 'n', description: '', tiles: [] };
    const model = dashboardPageModel(empty, NOW, fakeSource({}).source);
    expect(model.tiles).toEqual([]);
    expect(model.description).toBe('');
  });
});

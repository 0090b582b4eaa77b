/**
 * A usage dashboard's numbers, from the per-day rollups: each tile's series over the dashboard's
 * days (`-30d`: the 30 days before today and today, UTC), one series per breakdown value (largest
 * first) or one for the whole event. Pure: the rollups come in through `UsageSource`.
 */
import { DAY_MS } from '../compat/civil-date.js';
import type { DashboardPageModel, SeriesResult, TileView } from './dashboard-view.js';
import { NONE_LABEL } from './usage-event.js';
import type { InsightDefinition } from './usage-insights.js';

/** Breakdown value → day → number, as the rollup reader returns it. */
export type DailyCounts = ReadonlyMap<string, ReadonlyMap<string, number>>;

export interface UsageSource {
  daily(kind: 'total' | 'day_users' | 'last_seen', event: string, flagKey: string, from: string, to: string): DailyCounts;
}

export interface DashboardInput {
  id: number;
  project_id: number;
  name: string;
  description: string;
  tiles: readonly { id: number; insight: InsightDefinition }[];
}

/** Days the dashboards show: the `daysBack` days before `now`'s UTC day, and that day. */
export function dashboardDays(now: Date, daysBack = 30): string[] {
  const today = Math.floor(now.getTime() / DAY_MS);
  const days: string[] = [];
  for (let d = today - daysBack; d <= today; d++) days.push(isoDay(d));
  return days;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** PostHog's day label: `5-Nov-2026`. */
export function dayLabel(day: string): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return `${d}-${MONTHS[m - 1]}-${y}`;
}

export function computeTile(id: number, insight: InsightDefinition, days: readonly string[], source: UsageSource): TileView {
  const from = days[0] as string;
  const to = days[days.length - 1] as string;
  const perDay = source.daily(insight.math === 'dau' ? 'day_users' : 'total', insight.event, insight.flag_key, from, to);
  const inRange = insight.math === 'dau' ? source.daily('last_seen', insight.event, insight.flag_key, from, to) : undefined;
  const labels = days.map(dayLabel);

  const series = (label: string, breakdown: string | null, values: readonly string[]): SeriesResult => {
    const data = days.map((d) => values.reduce((n, v) => n + (perDay.get(v)?.get(d) ?? 0), 0));
    const count = data.reduce((a, b) => a + b, 0);
    const aggregated = inRange === undefined ? count : values.reduce((n, v) => n + sum(inRange.get(v)?.values() ?? []), 0);
    return { label, breakdown_value: breakdown, data, days: [...days], labels, count, aggregated_value: aggregated };
  };

  const values = [...new Set([...perDay.keys(), ...(inRange?.keys() ?? [])])];
  const result =
    insight.breakdown === null
      ? values.length === 0
        ? []
        : [series(insight.event, null, values)]
      : values
          .map((v) => series(v === '' ? NONE_LABEL : v, v, [v]))
          .sort((a, b) => b.aggregated_value - a.aggregated_value || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
  return {
    id,
    name: insight.name,
    description: insight.description ?? '',
    display: insight.display,
    math: insight.math,
    event: insight.event,
    result,
  };
}

export function dashboardPageModel(dashboard: DashboardInput, now: Date, source: UsageSource): DashboardPageModel {
  const days = dashboardDays(now);
  return {
    id: dashboard.id,
    projectId: dashboard.project_id,
    name: dashboard.name,
    description: dashboard.description,
    dateFrom: days[0] as string,
    dateTo: days[days.length - 1] as string,
    generatedAt: now.toISOString(),
    tiles: dashboard.tiles.map((t) => computeTile(t.id, t.insight, days, source)),
  };
}

function sum(values: Iterable<number>): number {
  let n = 0;
  for (const v of values) n += v;
  return n;
}

function isoDay(dayNumber: number): string {
  return new Date(dayNumber * DAY_MS).toISOString().slice(0, 10);
}

import { describe, expect, it } from 'vitest';
import type { DashboardPageModel, SeriesResult, TileView } from '../../src/dashboards/dashboard-view.js';
import { escapeHtml, formatNumber, linePoints, niceTicks, renderDashboardPage } from '../../src/dashboards/render-dashboard-page.js';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `count` consecutive UTC days from `first`, as `YYYY-MM-DD` and PostHog's `1-Nov-2026` labels. */
function dayRange(first: string, count: number): { days: string[]; labels: string[] } {
  const start = Date.parse(`${first}T00:00:00Z`);
  const dates = Array.from({ length: count }, (_, i) => new Date(start + i * 86_400_000));
  return {
    days: dates.map((d) => d.toISOString().slice(0, 10)),
    labels: dates.map((d) => `${d.getUTCDate()}-${MONTHS[d.getUTCMonth()]}-${d.getUTCFullYear()}`),
  };
}

const RANGE = dayRange('2026-10-22', 31);

function series(label: string, data: number[], aggregated = data.reduce((a, b) => a + b, 0)): SeriesResult {
  return {
    label,
    breakdown_value: label,
    data,
    days: RANGE.days,
    labels: RANGE.labels,
    count: data.reduce((a, b) => a + b, 0),
    aggregated_value: aggregated,
  };
}

function lineTile(result: SeriesResult[], overrides: Partial<TileView> = {}): TileView {
  return {
    id: 11,
    name: 'Flag calls by variant',
    description: 'How often the flag was evaluated, per returned value',
    display: 'ActionsLineGraph',
    math: 'total',
    event: '$feature_flag_called',
    result,
    ...overrides,
  };
}

function tableTile(result: SeriesResult[], overrides: Partial<TileView> = {}): TileView {
  return {
    id: 12,
    name: 'Unique users by variant',
    description: 'Distinct persons who saw each variant',
    display: 'ActionsTable',
    math: 'dau',
    event: '$feature_flag_called',
    result,
    ...overrides,
  };
}

function model(tiles: TileView[], overrides: Partial<DashboardPageModel> = {}): DashboardPageModel {
  return {
    id: 3,
    projectId: 1,
    name: 'Feature flag: new-checkout',
    description: 'Usage of the new-checkout flag',
    dateFrom: RANGE.days[0] ?? '',
    dateTo: RANGE.days[30] ?? '',
    generatedAt: '2026-11-21T12:00:00.000Z',
    tiles,
    ...overrides,
  };
}

const TRUE_DATA = RANGE.days.map((_, i) => 1000 + i * 37);
const FALSE_DATA = RANGE.days.map((_, i) => 400 + ((i * 13) % 50));
const CONTROL_DATA = RANGE.days.map((_, i) => (i % 7 === 0 ? 0 : 120 + i));

function fullModel(): DashboardPageModel {
  return model([
    lineTile([series('true', TRUE_DATA), series('false', FALSE_DATA), series('control', CONTROL_DATA)]),
    tableTile([series('true', TRUE_DATA, 1234), series('false', FALSE_DATA, 56), series('control', CONTROL_DATA, 1234567)]),
  ]);
}

/** The `points` attribute of each polyline, keyed by its `data-series-label`. */
function polylines(html: string): Map<string, string> {
  const lines = new Map<string, string>();
  for (const match of html.matchAll(/<polyline data-series-label="([^"]*)"[^>]*points="([^"]*)"/g)) {
    lines.set(match[1] ?? '', match[2] ?? '');
  }
  return lines;
}

describe('renderDashboardPage', () => {
  it('renders one complete HTML5 document with the dashboard header', () => {
    const html = renderDashboardPage(fullModel());
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('<meta charset="utf-8">');
    expect(html).toMatch(/<title>Feature flag: new-checkout[^<]*<\/title>/);
    expect(html).toContain('<h1>Feature flag: new-checkout</h1>');
    expect(html).toContain('Usage of the new-checkout flag');
    expect(html).toContain('2026-10-22 – 2026-11-21 (UTC)');
    expect(html).toContain('2026-11-21T12:00:00.000Z');
    expect(html.trimEnd().endsWith('</html>')).toBe(true);
  });

  it('has no script, no URL and no external resource', () => {
    const html = renderDashboardPage(fullModel());
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/<link|<img|@import|url\(/i);
    expect(html).not.toMatch(/\son[a-z]+=/i);
  });

  it('renders one section per tile, in order, with its id and display', () => {
    const html = renderDashboardPage(fullModel());
    const sections = [...html.matchAll(/<section [^>]*data-tile-id="(\d+)" data-display="(\w+)"/g)];
    expect(sections.map((m) => [m[1], m[2]])).toEqual([
      ['11', 'ActionsLineGraph'],
      ['12', 'ActionsTable'],
    ]);
    expect(html).toContain('<h2>Flag calls by variant</h2>');
    expect(html).toContain('How often the flag was evaluated, per returned value');
    expect(html).toContain('<h2>Unique users by variant</h2>');
  });

  it('draws one polyline per series with one point per day inside the viewBox', () => {
    const html = renderDashboardPage(fullModel());
    expect(html.match(/<svg /g)).toHaveLength(1);
    expect(html).toContain('viewBox="0 0 800 300"');
    const lines = polylines(html);
    expect([...lines.keys()]).toEqual(['true', 'false', 'control']);
    for (const points of lines.values()) {
      const pairs = points.split(' ').map((pair) => pair.split(',').map(Number));
      expect(pairs).toHaveLength(31);
      for (const [x, y] of pairs) {
        expect(x).toBeGreaterThanOrEqual(0);
        expect(x).toBeLessThanOrEqual(800);
        expect(y).toBeGreaterThanOrEqual(0);
        expect(y).toBeLessThanOrEqual(300);
      }
    }
    const strokes = [...html.matchAll(/<polyline [^>]*stroke="(#[0-9a-f]{6})"/g)].map((m) => m[1]);
    expect(new Set(strokes).size).toBe(3);
  });

  it('labels the x axis every few days with the model labels, without crowding', () => {
    const html = renderDashboardPage(fullModel());
    const axisLabels = [...html.matchAll(/<text [^>]*text-anchor="middle">([^<]*)<\/text>/g)].map((m) => m[1]);
    expect(axisLabels[0]).toBe('22-Oct-2026');
    expect(axisLabels.length).toBeGreaterThanOrEqual(4);
    expect(axisLabels.length).toBeLessThanOrEqual(10);
    for (const label of axisLabels) expect(RANGE.labels).toContain(label);
  });

  it('lists each series in a legend and in a table of totals', () => {
    const html = renderDashboardPage(fullModel());
    const trueTotal = formatNumber(TRUE_DATA.reduce((a, b) => a + b, 0));
    expect(html).toMatch(new RegExp(`<li><span class="swatch"[^>]*></span>true<span class="count">${trueTotal}</span></li>`));
    expect(html).toContain(`<tr><td>true</td><td class="number">${trueTotal}</td></tr>`);
    expect(html).toContain('<tr><td>control</td>');
  });

  it('renders a table tile with a row per series and formatted values', () => {
    const html = renderDashboardPage(fullModel());
    expect(html).toContain('<th>Variant</th><th class="number">Unique users</th>');
    const rows = [...html.matchAll(/<tr data-series-label="([^"]*)" data-value="([^"]*)"><td>[^<]*<\/td><td class="number">([^<]*)</g)];
    expect(rows.map((m) => [m[1], m[2], m[3]])).toEqual([
      ['true', '1234', '1,234'],
      ['false', '56', '56'],
      ['control', '1234567', '1,234,567'],
    ]);
  });

  it('heads a table tile counting totals with "Total"', () => {
    const html = renderDashboardPage(model([tableTile([series('true', TRUE_DATA)], { math: 'total' })]));
    expect(html).toContain('<th>Variant</th><th class="number">Total</th>');
  });

  it('says "No data in this period" for empty results, without a chart', () => {
    const html = renderDashboardPage(model([lineTile([]), tableTile([])]));
    expect(html).not.toContain('<svg');
    expect(html).not.toContain('<polyline');
    expect(html.match(/No data in this period/g)).toHaveLength(2);
    expect(html).toContain('<td colspan="2" class="empty">No data in this period</td>');
  });

  it('handles all-zero data without NaN or Infinity', () => {
    const zeros = RANGE.days.map(() => 0);
    const html = renderDashboardPage(
      model([lineTile([series('true', zeros), series('false', zeros)]), tableTile([series('true', zeros)])]),
    );
    expect(html).not.toMatch(/NaN|Infinity/);
    const lines = polylines(html);
    expect(lines.size).toBe(2);
    for (const points of lines.values()) expect(points.split(' ')).toHaveLength(31);
  });

  it('draws a single day in the middle of the chart', () => {
    const one = { ...series('true', [5]), days: ['2026-11-21'], labels: ['21-Nov-2026'] };
    const html = renderDashboardPage(model([lineTile([one])]));
    expect(html).not.toMatch(/NaN|Infinity/);
    expect(polylines(html).get('true')?.split(' ')).toHaveLength(1);
  });

  it('cycles the palette for many series', () => {
    const many = Array.from({ length: 12 }, (_, i) => series(`v${i}`, TRUE_DATA));
    const html = renderDashboardPage(model([lineTile(many)]));
    const strokes = [...html.matchAll(/<polyline [^>]*stroke="(#[0-9a-f]{6})"/g)].map((m) => m[1]);
    expect(strokes).toHaveLength(12);
    expect(new Set(strokes).size).toBeGreaterThanOrEqual(8);
    expect(strokes[0]).toBe(strokes[new Set(strokes).size]);
  });

  it('escapes every model string, in text, attributes and SVG text', () => {
    const evil = '<script>alert(1)</script>';
    const quoted = `Bob's "beta" & <b>`;
    const evilSeries = { ...series(evil, TRUE_DATA), labels: RANGE.labels.map(() => evil) };
    const html = renderDashboardPage(
      model(
        [lineTile([evilSeries], { name: quoted, description: evil, event: evil }), tableTile([series(evil, TRUE_DATA)], { name: quoted })],
        { name: quoted, description: evil, dateFrom: evil, generatedAt: quoted },
      ),
    );
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<b>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain(`<title>Bob&#39;s &quot;beta&quot; &amp; &lt;b&gt;`);
    expect(html).toContain(`data-series-label="&lt;script&gt;alert(1)&lt;/script&gt;"`);
    expect(html).toContain(`aria-label="Bob&#39;s &quot;beta&quot; &amp; &lt;b&gt;"`);
    expect(html).toMatch(/<text [^>]*>&lt;script&gt;alert\(1\)&lt;\/script&gt;<\/text>/);
  });

  it('is deterministic for a given model', () => {
    expect(renderDashboardPage(fullModel())).toBe(renderDashboardPage(fullModel()));
  });
});

describe('niceTicks', () => {
  it('goes from 0 to a rounded max at or above the data, with 4 to 6 ticks', () => {
    for (const max of [0.3, 1, 3, 7, 10, 11, 49, 99, 101, 999, 1234, 55_555, 1e6 + 1]) {
      const ticks = niceTicks(max);
      expect(ticks[0]).toBe(0);
      expect(ticks[ticks.length - 1]).toBeGreaterThanOrEqual(max);
      expect(ticks.length).toBeGreaterThanOrEqual(4);
      expect(ticks.length).toBeLessThanOrEqual(6);
      const step = (ticks[1] ?? 0) - (ticks[0] ?? 0);
      const mantissa = Number((step / 10 ** Math.floor(Math.log10(step))).toPrecision(6));
      expect([1, 2, 5]).toContain(mantissa);
    }
  });

  it('gives readable steps', () => {
    expect(niceTicks(10)).toEqual([0, 2, 4, 6, 8, 10]);
    expect(niceTicks(1234)).toEqual([0, 500, 1000, 1500]);
    expect(niceTicks(1)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
  });

  it('treats zero and non-finite maxima as 1', () => {
    expect(niceTicks(0)).toEqual(niceTicks(1));
    expect(niceTicks(Number.NaN)).toEqual(niceTicks(1));
    expect(niceTicks(-5)).toEqual(niceTicks(1));
  });
});

describe('formatNumber', () => {
  it('groups thousands with commas whatever the locale', () => {
    expect(formatNumber(0)).toBe('0');
    expect(formatNumber(999)).toBe('999');
    expect(formatNumber(1234)).toBe('1,234');
    expect(formatNumber(1234567)).toBe('1,234,567');
    expect(formatNumber(-9876543.25)).toBe('-9,876,543.25');
    expect(formatNumber(0.2)).toBe('0.2');
    expect(formatNumber(Number.NaN)).toBe('–');
  });
});

describe('escapeHtml and linePoints', () => {
  it('escapes the five HTML characters', () => {
    expect(escapeHtml(`&<>"'`)).toBe('&amp;&lt;&gt;&quot;&#39;');
  });

  it('spreads points across the plot and puts zero on the baseline', () => {
    const points = linePoints([0, 5, 10], 3, 10).split(' ');
    expect(points).toHaveLength(3);
    const ys = points.map((pair) => Number(pair.split(',')[1]));
    expect(ys[0]).toBeGreaterThan(ys[1] ?? 0);
    expect(ys[1]).toBeGreaterThan(ys[2] ?? 0);
  });
});

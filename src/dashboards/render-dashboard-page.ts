/**
 * Renders a computed usage dashboard (`DashboardPageModel`) as one self-contained HTML5 page a
 * person opens in a browser: inline `<style>` and inline `<svg>` only, no JavaScript, no network,
 * no build step. One `<section>` per tile, in order: a line chart with its legend and a table of
 * the numbers for `ActionsLineGraph`, a plain table for `ActionsTable`.
 *
 * Pure and deterministic: the same model always gives the same bytes (no clock, no locale). Every
 * string from the model goes through `escapeHtml`, in text, attributes and SVG `<text>` alike.
 */

import type { DashboardPageModel, SeriesResult, TileView } from './dashboard-view.js';

/** Series colours, readable on white; series past the last one cycle back to the first. */
const SERIES_COLOURS: readonly string[] = [
  '#1d4aff',
  '#cd0f74',
  '#43827e',
  '#621da6',
  '#f04f58',
  '#529a0a',
  '#0476fb',
  '#fe729e',
  '#35416b',
  '#d97706',
];

/** The chart's coordinate system; CSS scales it to the page width. */
const CHART = { width: 800, height: 300, top: 16, right: 24, bottom: 40, left: 64 } as const;
const PLOT_WIDTH = CHART.width - CHART.left - CHART.right;
const PLOT_HEIGHT = CHART.height - CHART.top - CHART.bottom;
/** At most this many x-axis labels: a `22-Oct-2026` label needs about 70 of the 712 units. */
const MAX_X_LABELS = 8;
const EMPTY_MESSAGE = 'No data in this period';

const STYLE = `
  :root { color-scheme: light; }
  body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif;
    color: #1f2328; background: #f6f7f9; margin: 0; padding: 24px; }
  main { max-width: 1000px; margin: 0 auto; }
  header h1 { margin: 0 0 4px; font-size: 24px; }
  header p { margin: 4px 0; color: #57606a; }
  .tile { background: #fff; border: 1px solid #d8dee4; border-radius: 8px; padding: 16px 20px; margin: 16px 0; }
  .tile h2 { margin: 0 0 4px; font-size: 18px; }
  .tile .description, .tile .meta { margin: 2px 0 12px; color: #57606a; }
  .meta code { background: #f0f2f5; padding: 0 4px; border-radius: 4px; }
  svg.chart { display: block; width: 100%; height: auto; }
  svg.chart text { font: 11px system-ui, sans-serif; fill: #57606a; }
  svg.chart .grid { stroke: #eaeef2; stroke-width: 1; }
  svg.chart .axis { stroke: #8c959f; stroke-width: 1; }
  svg.chart polyline { fill: none; stroke-width: 2; stroke-linejoin: round; stroke-linecap: round; }
  .legend { list-style: none; padding: 0; margin: 8px 0; display: flex; flex-wrap: wrap; gap: 6px 18px; }
  .swatch { display: inline-block; width: 12px; height: 12px; border-radius: 3px; margin-right: 6px; vertical-align: -1px; }
  .legend .count { color: #57606a; margin-left: 4px; font-variant-numeric: tabular-nums; }
  table { border-collapse: collapse; min-width: 320px; margin-top: 8px; }
  th, td { text-align: left; padding: 4px 12px; border-bottom: 1px solid #eaeef2; }
  th.number, td.number { text-align: right; font-variant-numeric: tabular-nums; }
  .empty { color: #57606a; font-style: italic; }
`;

/** Escapes the five characters that matter in HTML text and quoted attributes (and SVG). */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** `1234567.5` → `1,234,567.5`: at most two decimals, commas every three digits, locale-free. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return '–';
  const rounded = Math.round(value * 100) / 100;
  const [whole = '0', fraction = ''] = Math.abs(rounded).toFixed(2).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const decimals = fraction.replace(/0+$/, '');
  return `${rounded < 0 ? '-' : ''}${grouped}${decimals ? `.${decimals}` : ''}`;
}

/**
 * Y-axis ticks from 0 to a rounded top at or above `max`: 4 to 6 ticks spaced by 1, 2 or 5 times
 * a power of ten. A max of 0 (all-zero data) or anything not positive and finite counts as 1.
 */
export function niceTicks(max: number): number[] {
  const top = Number.isFinite(max) && max > 0 ? max : 1;
  const magnitude = 10 ** Math.floor(Math.log10(top / 5));
  let step = 10 * magnitude;
  for (const multiple of [1, 2, 5, 10]) {
    if (Math.ceil(top / (multiple * magnitude) - 1e-9) <= 5) {
      step = multiple * magnitude;
      break;
    }
  }
  const intervals = Math.max(1, Math.ceil(top / step - 1e-9));
  return Array.from({ length: intervals + 1 }, (_, i) => Number((i * step).toPrecision(12)));
}

/** A coordinate with one decimal, enough at this viewBox and short in the output. */
function coord(value: number): string {
  return String(Math.round(value * 10) / 10);
}

function finiteOrZero(value: number): number {
  return Number.isFinite(value) ? value : 0;
}

/** Horizontal position of day `index` of `dayCount`; a single day sits in the middle. */
function xAt(index: number, dayCount: number): number {
  if (dayCount <= 1) return CHART.left + PLOT_WIDTH / 2;
  return CHART.left + (index * PLOT_WIDTH) / (dayCount - 1);
}

function yAt(value: number, yMax: number): number {
  return CHART.top + PLOT_HEIGHT - (finiteOrZero(value) / yMax) * PLOT_HEIGHT;
}

/** The `points` attribute of a series' polyline: one `x,y` pair per day. */
export function linePoints(data: readonly number[], dayCount: number, yMax: number): string {
  return data.map((value, i) => `${coord(xAt(i, dayCount))},${coord(yAt(value, yMax))}`).join(' ');
}

function seriesColour(index: number): string {
  return SERIES_COLOURS[index % SERIES_COLOURS.length] ?? '#000000';
}

/** The series with the most days: its days and labels make the x axis. */
function longestSeries(result: readonly SeriesResult[]): SeriesResult | undefined {
  return result.reduce<SeriesResult | undefined>(
    (longest, series) => (longest === undefined || series.data.length > longest.data.length ? series : longest),
    undefined,
  );
}

function renderYAxis(ticks: readonly number[], yMax: number): string {
  return ticks
    .map((tick) => {
      const y = coord(yAt(tick, yMax));
      return (
        `<line class="grid" x1="${CHART.left}" x2="${CHART.width - CHART.right}" y1="${y}" y2="${y}"/>` +
        `<text x="${CHART.left - 8}" y="${y}" text-anchor="end" dominant-baseline="middle">${formatNumber(tick)}</text>`
      );
    })
    .join('\n');
}

/** Day labels every few days so they never overlap; falls back to the `YYYY-MM-DD` day. */
function renderXAxis(axis: SeriesResult, dayCount: number): string {
  const every = Math.max(1, Math.ceil(dayCount / MAX_X_LABELS));
  const baseline = CHART.top + PLOT_HEIGHT;
  const labels: string[] = [];
  for (let i = 0; i < dayCount; i += every) {
    const text = axis.labels[i] ?? axis.days[i] ?? '';
    labels.push(`<text x="${coord(xAt(i, dayCount))}" y="${baseline + 20}" text-anchor="middle">${escapeHtml(text)}</text>`);
  }
  return (
    `<line class="axis" x1="${CHART.left}" x2="${CHART.width - CHART.right}" y1="${baseline}" y2="${baseline}"/>\n` + labels.join('\n')
  );
}

function renderSeriesLine(series: SeriesResult, index: number, dayCount: number, yMax: number, axis: SeriesResult): string {
  const colour = seriesColour(index);
  const label = escapeHtml(series.label);
  const markers = series.data
    .map((value, i) => {
      const day = escapeHtml(axis.labels[i] ?? axis.days[i] ?? '');
      return (
        `<circle cx="${coord(xAt(i, dayCount))}" cy="${coord(yAt(value, yMax))}" r="2.5">` +
        `<title>${label} · ${day}: ${formatNumber(value)}</title></circle>`
      );
    })
    .join('');
  return (
    `<polyline data-series-label="${label}" stroke="${colour}" points="${linePoints(series.data, dayCount, yMax)}"/>\n` +
    `<g class="points" fill="${colour}">${markers}</g>`
  );
}

function renderLegend(result: readonly SeriesResult[]): string {
  const items = result.map(
    (series, i) =>
      `<li><span class="swatch" style="background:${seriesColour(i)}"></span>${escapeHtml(series.label)}` +
      `<span class="count">${formatNumber(series.count)}</span></li>`,
  );
  return `<ul class="legend">\n${items.join('\n')}\n</ul>`;
}

function renderTotalsTable(tile: TileView): string {
  const heading = tile.math === 'dau' ? 'Sum of daily unique users' : 'Total';
  const rows = tile.result.map(
    (series) => `<tr><td>${escapeHtml(series.label)}</td><td class="number">${formatNumber(series.count)}</td></tr>`,
  );
  return (
    `<table class="numbers">\n<thead><tr><th>Series</th><th class="number">${heading}</th></tr></thead>\n` +
    `<tbody>\n${rows.join('\n')}\n</tbody>\n</table>`
  );
}

function renderLineGraph(tile: TileView): string {
  const axis = longestSeries(tile.result);
  if (axis === undefined) return `<p class="empty">${EMPTY_MESSAGE}</p>`;
  const dayCount = axis.data.length;
  const highest = tile.result.reduce((most, series) => series.data.reduce((m, value) => Math.max(m, finiteOrZero(value)), most), 0);
  const ticks = niceTicks(highest);
  const yMax = ticks[ticks.length - 1] ?? 1;
  const lines = tile.result.map((series, i) => renderSeriesLine(series, i, dayCount, yMax, axis));
  const svg =
    `<svg class="chart" viewBox="0 0 ${CHART.width} ${CHART.height}" role="img" aria-label="${escapeHtml(tile.name)}">\n` +
    `${renderYAxis(ticks, yMax)}\n${renderXAxis(axis, dayCount)}\n${lines.join('\n')}\n</svg>`;
  return `${svg}\n${renderLegend(tile.result)}\n${renderTotalsTable(tile)}`;
}

function renderTable(tile: TileView): string {
  const valueHeading = tile.math === 'dau' ? 'Unique users' : 'Total';
  const rows =
    tile.result.length === 0
      ? [`<tr><td colspan="2" class="empty">${EMPTY_MESSAGE}</td></tr>`]
      : tile.result.map((series) => {
          const label = escapeHtml(series.label);
          const value = escapeHtml(String(series.aggregated_value));
          return (
            `<tr data-series-label="${label}" data-value="${value}">` +
            `<td>${label}</td><td class="number">${formatNumber(series.aggregated_value)}</td></tr>`
          );
        });
  return (
    `<table>\n<thead><tr><th>Variant</th><th class="number">${valueHeading}</th></tr></thead>\n` +
    `<tbody>\n${rows.join('\n')}\n</tbody>\n</table>`
  );
}

function renderTile(tile: TileView): string {
  const body = tile.display === 'ActionsLineGraph' ? renderLineGraph(tile) : renderTable(tile);
  const description = tile.description ? `<p class="description">${escapeHtml(tile.description)}</p>\n` : '';
  const measure = tile.math === 'dau' ? 'unique users' : 'total count';
  return (
    `<section class="tile" data-tile-id="${escapeHtml(String(tile.id))}" data-display="${escapeHtml(tile.display)}">\n` +
    `<h2>${escapeHtml(tile.name)}</h2>\n${description}` +
    `<p class="meta">Event <code>${escapeHtml(tile.event)}</code> · ${measure}</p>\n` +
    `${body}\n</section>`
  );
}

/** The whole page for one dashboard, as a complete HTML5 document. */
export function renderDashboardPage(model: DashboardPageModel): string {
  const name = escapeHtml(model.name);
  const description = model.description ? `<p>${escapeHtml(model.description)}</p>\n` : '';
  const generatedAt = escapeHtml(model.generatedAt);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${name} – Hedgerow</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<header>
<h1>${name}</h1>
${description}<p>${escapeHtml(model.dateFrom)} – ${escapeHtml(model.dateTo)} (UTC) · generated at <time datetime="${generatedAt}">${generatedAt}</time></p>
</header>
${model.tiles.map(renderTile).join('\n')}
</main>
</body>
</html>
`;
}

/**
 * Hand-written SVG for the benchmarks' charts: the soak's plot (bench/soak.ts) and the end-to-end
 * benchmark's one chart per scenario (bench/charts.ts). Standalone documents, white background,
 * sans-serif, nothing that needs a browser's scripting.
 */

/** The colours of the series, in the order the charts use them. */
export const COLORS = { blue: '#1f77b4', red: '#d62728', green: '#2ca02c', purple: '#9467bd', grey: '#7f7f7f', orange: '#ff7f0e' };

type Attrs = Record<string, string | number>;

export function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function attrs(a: Attrs): string {
  return Object.entries(a)
    .map(([k, v]) => ` ${k}="${typeof v === 'number' ? round(v) : escapeXml(v)}"`)
    .join('');
}

/** Coordinates to a tenth of a pixel: shorter files, no visible difference. */
const round = (v: number) => String(Math.round(v * 10) / 10);

export function text(x: number, y: number, content: string, a: Attrs = {}): string {
  return `<text${attrs({ x, y, ...a })}>${escapeXml(content)}</text>`;
}

export function line(x1: number, y1: number, x2: number, y2: number, stroke: string, a: Attrs = {}): string {
  return `<line${attrs({ x1, y1, x2, y2, stroke, ...a })}/>`;
}

export function rect(x: number, y: number, width: number, height: number, fill: string, a: Attrs = {}): string {
  return `<rect${attrs({ x, y, width, height, fill, ...a })}/>`;
}

export function polyline(points: Array<[number, number]>, stroke: string): string {
  return `<polyline fill="none" stroke="${stroke}" stroke-width="2" points="${points.map(([x, y]) => `${round(x)},${round(y)}`).join(' ')}"/>`;
}

/** A column of colour swatches with their names, from (x, y) down, `step` pixels apart. */
export function legend(x: number, y: number, entries: Array<{ name: string; color: string }>, step = 20): string[] {
  return entries.flatMap((e, i) => [rect(x, y + i * step, 12, 12, e.color), text(x + 18, y + i * step + 10, e.name)]);
}

/** Ends of an axis, × 10^k, whose quarters are round numbers too. */
const AXIS_ENDS = [1, 1.2, 1.6, 2, 2.4, 3, 4, 5, 6, 8, 10];

/** The smallest AXIS_ENDS × 10^k at or above `v` (an axis' end), 1 for nothing to show. */
export function niceCeil(v: number): number {
  if (!(v > 0) || !Number.isFinite(v)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  return (AXIS_ENDS.find((m) => m * p >= v * (1 - 1e-9)) ?? 10) * p;
}

/**
 * A standalone document of `width` × `height`: `title` for screen readers, `heading` at the top
 * left at (`headingX`, 20), then `body`.
 */
export function svgDocument(
  o: { width: number; height: number; title: string; heading: string; headingX: number },
  body: string[],
): string {
  return `${[
    `<svg xmlns="http://www.w3.org/2000/svg" width="${o.width}" height="${o.height}" font-family="sans-serif" font-size="12">`,
    `<title>${escapeXml(o.title)}</title>`,
    rect(0, 0, o.width, o.height, 'white'),
    text(o.headingX, 20, o.heading, { 'font-size': 14 }),
    ...body,
    '</svg>',
  ].join('\n')}\n`;
}

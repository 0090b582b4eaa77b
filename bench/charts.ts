/**
 * One SVG chart per scenario of `npm run bench`: Hedgerow against its baselines from the same
 * run (the ack-only ceiling, and the durable floor in the `capture` scenarios), requests/s on the
 * left and p50/p99 latency on the right, each a median with its spread over the rounds as a
 * whisker, a dashed line where a target puts Hedgerow's rate or p99, then the ratios and the
 * scenario's targets in words.
 */
import { EVENTS_PER_BATCH } from './payloads.js';
import {
  BATCH_MIN_EVENTS_PER_SECOND,
  DEFINITIONS_MIN_RATIO,
  FLAGS_MAX_P99_MS,
  FLAGS_MIN_RPS,
  FLOOR_MAX_P99_MULTIPLE,
  FLOOR_MIN_RATIO,
  ofServer,
  serversOf,
  type ScenarioSummary,
  type Spread,
  type TargetCheck,
} from './report.js';
import type { Target } from './measure.js';
import { COLORS, line, niceCeil, rect, svgDocument, text } from './svg.js';

export interface ChartContext {
  /** What the scenario sends, in words. */
  title: string;
  /** `2026-11-29, commit 982a8be`: when and what was measured. */
  measured: string;
  /** `3 rounds of 10 s, wrk -t1 -c64`. */
  load: string;
  /** Runs of the scenario that saw errors: then its figures are not valid. */
  failedRuns: number;
}

const NAMES: Record<Target, string> = { ceiling: 'ceiling', floor: 'durable floor', daemon: 'Hedgerow' };
const SERVER_COLORS: Record<Target, string> = { ceiling: COLORS.grey, floor: COLORS.purple, daemon: COLORS.blue };

const W = 760;
const LABEL_W = 100;
const RATE = { left: 20 + LABEL_W, right: 370 };
const LATENCY = { left: 420 + LABEL_W - 20, right: W - 40 };
const ROW_H = 44;
const ROWS_TOP = 76;
const LINE_H = 17;
/** Characters of a line of text under the panels before it wraps (12 px sans-serif in 720 px). */
const LINE_CHARS = 110;

/** `words` in lines of at most LINE_CHARS, broken at spaces (the lines after the first are indented). */
function wrap(words: string): string[] {
  const out: string[] = [];
  let current = '';
  for (const word of words.split(' ')) {
    if (current !== '' && current.length + 1 + word.length > LINE_CHARS) {
      out.push(current);
      current = word;
    } else current = current === '' ? word : `${current} ${word}`;
  }
  return [...out, current];
}

/** 174.2k, 19.8k, 1,436: what fits beside a bar. */
function rate(n: number): string {
  if (!Number.isFinite(n)) return '-';
  return n >= 10_000 ? `${(n / 1000).toFixed(1)}k` : Math.round(n).toLocaleString('en-US');
}

const ms = (n: number) => (Number.isFinite(n) ? (n >= 100 ? n.toFixed(0) : n.toFixed(2)) : '-');
const range = (s: Spread, f: (n: number) => string) => (s.min === s.max ? f(s.median) : `${f(s.median)} [${f(s.min)}–${f(s.max)}]`);

/** A horizontal bar from `x0` to `x(median)` with a min–max whisker and the value at its end. */
function bar(x: (v: number) => number, y: number, h: number, s: Spread, color: string, label: string, opacity = 1): string[] {
  const x0 = x(0);
  const out = [rect(x0, y, Math.max(0, x(s.median) - x0), h, color, opacity < 1 ? { 'fill-opacity': opacity } : {})];
  const mid = y + h / 2;
  if (Number.isFinite(s.min) && s.max > s.min) {
    out.push(line(x(s.min), mid, x(s.max), mid, 'black'));
    out.push(line(x(s.min), mid - 4, x(s.min), mid + 4, 'black'));
    out.push(line(x(s.max), mid - 4, x(s.max), mid + 4, 'black'));
  }
  const end = Number.isFinite(s.max) ? Math.max(x(s.median), x(s.max)) : x0;
  // A white outline under the value, so a target's dashed line does not run through it.
  out.push(text(end + 8, mid + 4, label, { stroke: 'white', 'stroke-width': 3, 'paint-order': 'stroke' }));
  return out;
}

/** Where a scenario's targets put Hedgerow's rate and p99, from the baselines' medians where they are relative. */
function targetLines(s: ScenarioSummary): { rate?: number; p99?: number } {
  if (s.floor && s.rps.floor && s.p99Ms.floor) {
    return { rate: FLOOR_MIN_RATIO * s.rps.floor.median, p99: FLOOR_MAX_P99_MULTIPLE * s.p99Ms.floor.median };
  }
  if (s.scenario === 'flags' || s.scenario === 'flags-new') return { rate: FLAGS_MIN_RPS, p99: FLAGS_MAX_P99_MS };
  if (s.scenario === 'definitions') return { rate: DEFINITIONS_MIN_RATIO * s.rps.ceiling.median };
  if (s.scenario === 'batch') return { rate: BATCH_MIN_EVENTS_PER_SECOND / EVENTS_PER_BATCH };
  return {};
}

/** A dashed vertical line at `x` over the rows, labelled above them. */
function targetLine(x: number, bottom: number): string[] {
  return [
    line(x, ROWS_TOP - 4, x, bottom, COLORS.red, { 'stroke-dasharray': '4 3' }),
    text(x, ROWS_TOP - 8, 'target', { 'text-anchor': 'middle', fill: COLORS.red, 'font-size': 10 }),
  ];
}

/** An x axis from `left` to `right` for 0 … `max`, with four ticks, under rows ending at `y`. */
function axis(left: number, right: number, y: number, max: number, f: (n: number) => string): string[] {
  const out = [line(left, y, right, y, 'black')];
  for (let i = 0; i <= 4; i++) {
    const x = left + ((right - left) * i) / 4;
    out.push(line(x, ROWS_TOP - 6, x, y, '#eee'), text(x, y + 15, f((max * i) / 4), { 'text-anchor': 'middle', fill: '#555' }));
  }
  return out;
}

export function scenarioChart(s: ScenarioSummary, checks: TargetCheck[], c: ChartContext): string {
  const servers = serversOf(s);
  const rowsBottom = ROWS_TOP + servers.length * ROW_H;
  const target = targetLines(s);
  const rateMax = niceCeil(Math.max(target.rate ?? 0, ...servers.map((t) => ofServer(s.rps, t).max)) * 1.15);
  const latencyMax = niceCeil(Math.max(target.p99 ?? 0, ...servers.map((t) => ofServer(s.p99Ms, t).max)) * 1.25);
  const tick = (n: number) => String(Math.round(n * 1000) / 1000);
  const xRate = (v: number) => RATE.left + (Math.min(v, rateMax) / rateMax) * (RATE.right - RATE.left);
  const xLatency = (v: number) => LATENCY.left + (Math.min(v, latencyMax) / latencyMax) * (LATENCY.right - LATENCY.left);

  const body: string[] = [
    text(20, 38, `${c.measured}; ${c.load}; medians over the rounds, whiskers min–max`, { fill: '#555', 'font-size': 11 }),
    text(RATE.left, ROWS_TOP - 22, 'requests/s', { 'font-weight': 'bold' }),
    text(LATENCY.left, ROWS_TOP - 22, 'latency, ms', { 'font-weight': 'bold' }),
    ...axis(RATE.left, RATE.right, rowsBottom, rateMax, rate),
    ...axis(LATENCY.left, LATENCY.right, rowsBottom, latencyMax, tick),
    ...(target.rate === undefined ? [] : targetLine(xRate(target.rate), rowsBottom)),
    ...(target.p99 === undefined ? [] : targetLine(xLatency(target.p99), rowsBottom)),
  ];
  servers.forEach((t, i) => {
    const y = ROWS_TOP + i * ROW_H;
    const color = SERVER_COLORS[t];
    const weight = { 'font-weight': t === 'daemon' ? 'bold' : 'normal' };
    body.push(text(RATE.left - 8, y + ROW_H / 2 + 2, NAMES[t], { 'text-anchor': 'end', ...weight }));
    body.push(...bar(xRate, y + 8, ROW_H - 16, ofServer(s.rps, t), color, rate(ofServer(s.rps, t).median)));
    body.push(text(LATENCY.left - 8, y + ROW_H / 2 + 2, NAMES[t], { 'text-anchor': 'end', ...weight }));
    const p50 = ofServer(s.p50Ms, t);
    const p99 = ofServer(s.p99Ms, t);
    body.push(...bar(xLatency, y + 6, 12, p50, color, `p50 ${ms(p50.median)}`, 0.45));
    body.push(...bar(xLatency, y + 20, 12, p99, color, `p99 ${ms(p99.median)}`));
  });

  const lines: Array<{ words: string; color?: string }> = [];
  const perSecond = s.eventsPerRequest > 1 ? `; Hedgerow ${range(s.eventsPerSecond.daemon, rate)} events/s` : '';
  const ratio = (x: Spread) => range(x, (n) => n.toFixed(3));
  const floorShare = s.floor ? `; durable floor / ceiling: ${ratio(s.floor.floorToCeiling)}` : '';
  lines.push({ words: `Hedgerow / ceiling: ${ratio(s.ratio)}${floorShare}${perSecond}` });
  if (s.floor) {
    lines.push({
      words: `Hedgerow / durable floor: ${ratio(s.floor.ratio)}; p99 ${range(s.floor.p99Multiple, (n) => n.toFixed(2))} × the floor's`,
    });
  }
  if (s.persons) {
    const p = s.persons;
    lines.push({
      words: `person processor: ${range(p.processedPerSecond, rate)} events/s during the run; lag p99 ${range(p.lagP99Ms, ms)} ms`,
    });
  }
  if (c.failedRuns > 0) {
    lines.push({ words: `NOT VALID: ${c.failedRuns} run(s) saw errors (the runner's output says which)`, color: COLORS.red });
  }
  for (const check of checks) {
    lines.push({
      words: `${check.pass ? 'met' : 'missed'}: ${check.name} — ${check.value}`,
      color: check.pass ? COLORS.green : COLORS.red,
    });
  }
  const linesTop = rowsBottom + 40;
  const wrapped = lines.flatMap((l) => wrap(l.words).map((words, i) => ({ words, color: l.color, x: i === 0 ? 20 : 36 })));
  wrapped.forEach((l, i) => {
    body.push(text(l.x, linesTop + i * LINE_H, l.words, l.color ? { fill: l.color } : {}));
  });
  const height = linesTop + wrapped.length * LINE_H + 4;
  return svgDocument(
    {
      width: W,
      height,
      title: `${s.scenario}: Hedgerow against ${servers
        .filter((t) => t !== 'daemon')
        .map((t) => NAMES[t])
        .join(' and ')}, requests/s and p50/p99 latency`,
      heading: `${s.scenario}: ${c.title}`,
      headingX: 20,
    },
    body,
  );
}

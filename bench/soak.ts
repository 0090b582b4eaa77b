/**
 * `npm run soak`: a bounded long run. Starts the daemon with a retention period, drives capture
 * (`/batch/` and `/capture/`), `/flags` and flag PATCHes at fixed rates (a steady fraction of the
 * box's capacity, not its limit), samples the daemon every few seconds (resident memory, anonymous
 * and file-backed, the data file, the person processor's backlog, the oldest event's age), then
 * judges the run: no error answers, the backlog bounded, anonymous memory and the data file flat
 * over the second half (slopes under the limits below), and every acknowledged event of the
 * retained window present. Writes the samples as JSON and a plot (SVG). Exits 1 when it fails.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH_API_KEY, BENCH_PERSONAL_API_KEY } from './payloads.js';
import { memory } from './proc-sampler.js';
import { killServers, ROOT, startDaemon } from './servers.js';
import { COLORS, legend, line, polyline, svgDocument, text } from './svg.js';

const USAGE = `usage: npm run soak -- [options]
  --minutes <n>            length of the run (default 36: its second half starts after the ~13-minute warm-up)
  --rate <n>               events/s sent through /batch/ (50 per request) and /capture/ (default 2000)
  --flags-rate <n>         /flags requests/s (default 200)
  --retention-minutes <n>  HEDGEROW_RETENTION_DAYS as minutes (default a quarter of the run)
  --sample-seconds <n>     sampling interval (default 5)
  --out <dir>              where soak.json and soak.svg go (default bench/results/soak-<time>)`;

/** The slopes accepted over the second half of the run. */
const MAX_ANON_MIB_PER_MIN = 1;
const MAX_FILE_MIB_PER_MIN = 1;
/** The processor's backlog may never pass this (HEDGEROW_MAX_PERSON_BACKLOG's default). */
const MAX_EVENTS_BEHIND = 10_000;
/** Events acknowledged this close to the horizon may already be gone: not checked. */
const HORIZON_MARGIN_MS = 60_000;

interface Sample {
  minute: number;
  rssMiB: number;
  anonMiB: number;
  fileMiB: number;
  dataFileMiB: number;
  /** V8 heap in use on the main thread (the other threads' heaps are in the anonymous memory only). */
  mainHeapMiB: number;
  eventsBehind: number;
  oldestEventAgeS: number;
  acked: number;
  errors: number;
}

function options() {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string', default: '36' },
      rate: { type: 'string', default: '2000' },
      'flags-rate': { type: 'string', default: '200' },
      'retention-minutes': { type: 'string' },
      'sample-seconds': { type: 'string', default: '5' },
      out: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const num = (name: string, v: string | undefined): number => {
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) {
      console.error(`--${name} must be a positive number\n${USAGE}`);
      process.exit(2);
    }
    return n;
  };
  const minutes = num('minutes', values.minutes);
  return {
    minutes,
    rate: num('rate', values.rate),
    flagsRate: num('flags-rate', values['flags-rate']),
    retentionMinutes: values['retention-minutes'] === undefined ? minutes / 4 : num('retention-minutes', values['retention-minutes']),
    sampleMs: num('sample-seconds', values['sample-seconds']) * 1000,
    out: values.out ?? path.join(ROOT, 'bench/results', `soak-${new Date().toISOString().replace(/[:.]/g, '-')}`),
  };
}

/** Least-squares slope of y over x. */
function slope(points: Array<[number, number]>): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((a, [x]) => a + x, 0) / n;
  const my = points.reduce((a, [, y]) => a + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

function metric(text: string, name: string): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name} `) || line.startsWith(`${name}{`)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

async function main(): Promise<void> {
  const o = options();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'hedgerow-soak-'));
  process.env.HEDGEROW_RETENTION_DAYS = String(o.retentionMinutes / 1440);
  const daemon = await startDaemon({ dataDir, sync: 'durable', nodeArgs: [] });
  const base = `http://127.0.0.1:${daemon.port}`;
  const file = path.join(dataDir, 'hedgerow.mdb');
  const auth = { authorization: `Bearer ${BENCH_PERSONAL_API_KEY}`, 'content-type': 'application/json' };
  console.log(
    `soak: ${o.minutes} min, ${o.rate} events/s, ${o.flagsRate} /flags/s, retention ${o.retentionMinutes} min, daemon pid ${daemon.pid}, data ${dataDir}`,
  );

  const flagIds: number[] = [];
  for (let i = 0; i < 20; i++) {
    const r = await fetch(`${base}/api/projects/1/feature_flags/`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({
        key: `soak-${i}`,
        filters: { groups: [{ properties: [{ key: 'plan', type: 'person', value: ['pro', 'team'] }], rollout_percentage: 50 }] },
      }),
    });
    if (r.status !== 201) throw new Error(`creating a flag answered ${r.status}: ${await r.text()}`);
    flagIds.push(((await r.json()) as { id: number }).id);
  }

  // What the retained window must hold: uuids by the second they were acknowledged.
  const ackedBySecond = new Map<number, string[]>();
  const errors: string[] = [];
  let acked = 0;
  let stop = false;
  const note = (what: string, status: number, text: string): void => {
    if (errors.length < 20) errors.push(`${what}: ${status} ${text.slice(0, 200)}`);
    else errors.push('');
  };
  const person = (): string => `soak-person-${Math.floor(Math.random() * 20_000)}`;
  const event = (): Record<string, unknown> => ({
    uuid: randomUUID(),
    event: Math.random() < 0.1 ? '$identify' : '$pageview',
    distinct_id: person(),
    properties: {
      $current_url: `https://example.com/${randomBytes(6).toString('hex')}`,
      $set: { plan: Math.random() < 0.3 ? 'pro' : 'free' },
    },
  });
  const send = async (pathname: string, body: unknown, uuids: string[]): Promise<void> => {
    try {
      const r = await fetch(`${base}${pathname}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const text = await r.text();
      if (r.status !== 200) return note(pathname, r.status, text);
      acked += uuids.length;
      const second = Math.floor(Date.now() / 1000);
      const list = ackedBySecond.get(second);
      if (list) list.push(...uuids);
      else ackedBySecond.set(second, [...uuids]);
    } catch (err) {
      note(pathname, 0, (err as Error).message);
    }
  };
  /** Calls `fn` `perSecond` times a second, in ticks of 100 ms, until stopped. */
  const paced = async (perSecond: number, fn: () => Promise<void>): Promise<void> => {
    const inFlight = new Set<Promise<void>>();
    let owed = 0;
    while (!stop) {
      owed += perSecond / 10;
      for (; owed >= 1; owed--) {
        const p = fn().finally(() => inFlight.delete(p));
        inFlight.add(p);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    await Promise.all(inFlight);
  };
  const singles = Math.max(1, Math.round(o.rate * 0.05));
  const lanes = [
    paced((o.rate - singles) / 50, () => {
      const batch = Array.from({ length: 50 }, event);
      return send(
        '/batch/',
        { api_key: BENCH_API_KEY, batch },
        batch.map((e) => e.uuid as string),
      );
    }),
    paced(singles, () => {
      const e = event();
      return send('/capture/', { api_key: BENCH_API_KEY, ...e }, [e.uuid as string]);
    }),
    paced(o.flagsRate, async () => {
      try {
        const r = await fetch(`${base}/flags/?v=2`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ api_key: BENCH_API_KEY, distinct_id: person() }),
        });
        const text = await r.text();
        if (r.status !== 200 || text.includes('"errorsWhileComputingFlags":true')) note('/flags', r.status, text);
      } catch (err) {
        note('/flags', 0, (err as Error).message);
      }
    }),
    paced(0.5, async () => {
      const id = flagIds[Math.floor(Math.random() * flagIds.length)];
      const r = await fetch(`${base}/api/projects/1/feature_flags/${id}/`, {
        method: 'PATCH',
        headers: auth,
        body: JSON.stringify({
          filters: {
            groups: [
              {
                properties: [{ key: 'plan', type: 'person', value: ['pro', 'team'] }],
                rollout_percentage: Math.floor(Math.random() * 100),
              },
            ],
          },
        }),
      });
      const text = await r.text();
      if (r.status !== 200) note('PATCH flag', r.status, text);
    }),
  ];

  const samples: Sample[] = [];
  const started = Date.now();
  const takeSample = async (): Promise<void> => {
    const m = memory(daemon.pid);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    samples.push({
      minute: (Date.now() - started) / 60_000,
      rssMiB: m.rssMiB,
      anonMiB: m.anonMiB,
      fileMiB: m.fileMiB,
      dataFileMiB: statSync(file).size / 2 ** 20,
      mainHeapMiB: Math.round((metric(metrics, 'nodejs_heap_size_used_bytes') / 2 ** 20) * 10) / 10,
      eventsBehind: metric(metrics, 'hedgerow_person_processor_events_behind'),
      oldestEventAgeS: metric(metrics, 'hedgerow_oldest_event_age_seconds'),
      acked,
      errors: errors.length,
    });
    const s = samples[samples.length - 1] as Sample;
    console.log(
      `${s.minute.toFixed(1).padStart(5)} min  rss ${s.rssMiB} MiB (anon ${s.anonMiB}, file ${s.fileMiB}, main heap ${s.mainHeapMiB})  data ${s.dataFileMiB.toFixed(1)} MiB  behind ${s.eventsBehind}  oldest ${s.oldestEventAgeS.toFixed(0)} s  acked ${s.acked}  errors ${s.errors}`,
    );
  };
  while (Date.now() - started < o.minutes * 60_000) {
    await new Promise((r) => setTimeout(r, o.sampleMs));
    await takeSample();
    // Forget what is already past the horizon: it is not checked.
    const keepFrom = Math.floor((Date.now() - o.retentionMinutes * 60_000) / 1000);
    for (const second of ackedBySecond.keys()) if (second < keepFrom) ackedBySecond.delete(second);
  }
  stop = true;
  await Promise.all(lanes);
  await fetch(`${base}/_persons/caught_up?timeout_ms=60000`);

  // Every event acknowledged inside the retained window (with a margin) is in the log.
  const horizonMs = Date.now() - o.retentionMinutes * 60_000 + HORIZON_MARGIN_MS;
  const expected = new Set<string>();
  for (const [second, uuids] of ackedBySecond) if (second * 1000 >= horizonMs) for (const u of uuids) expected.add(u);
  const exported = execFileSync(process.execPath, [path.join(ROOT, 'dist/src/cli/main.js'), 'events', 'export', '--data-dir', dataDir], {
    maxBuffer: 2 ** 31,
  }).toString();
  for (const line of exported.split('\n')) {
    if (line === '') continue;
    expected.delete((JSON.parse(line) as { uuid: string }).uuid);
  }
  await daemon.stop();

  const secondHalf = samples.filter((s) => s.minute >= o.minutes / 2);
  const anonSlope = slope(secondHalf.map((s) => [s.minute, s.anonMiB]));
  const fileSlope = slope(secondHalf.map((s) => [s.minute, s.dataFileMiB]));
  const maxBehind = Math.max(0, ...samples.map((s) => s.eventsBehind));
  const checks: Array<[string, boolean, string]> = [
    ['no error answers', errors.length === 0, `${errors.length} (${errors.filter(Boolean).slice(0, 3).join('; ')})`],
    ['person backlog bounded', maxBehind < MAX_EVENTS_BEHIND, `max ${maxBehind} events behind (limit ${MAX_EVENTS_BEHIND})`],
    [
      'anonymous memory flat',
      anonSlope < MAX_ANON_MIB_PER_MIN,
      `${anonSlope.toFixed(2)} MiB/min over the second half (limit ${MAX_ANON_MIB_PER_MIN})`,
    ],
    [
      'data file flat',
      fileSlope < MAX_FILE_MIB_PER_MIN,
      `${fileSlope.toFixed(2)} MiB/min over the second half (limit ${MAX_FILE_MIB_PER_MIN})`,
    ],
    ['retained events present', expected.size === 0, `${expected.size} acknowledged events of the retained window missing`],
  ];
  mkdirSync(o.out, { recursive: true });
  writeFileSync(path.join(o.out, 'soak.json'), JSON.stringify({ options: o, samples, checks }, null, 2));
  writeFileSync(path.join(o.out, 'soak.svg'), plot(samples, o));
  rmSync(dataDir, { recursive: true, force: true });
  console.log(`\n${acked} events acknowledged in ${o.minutes} min; samples and plot in ${o.out}`);
  for (const [name, ok, detail] of checks) console.log(`${ok ? 'pass' : 'FAIL'}  ${name}: ${detail}`);
  process.exitCode = checks.every(([, ok]) => ok) ? 0 : 1;
}

/** The memory and data-file samples over time, one line each, as a standalone SVG. */
function plot(samples: Sample[], o: { minutes: number; rate: number; flagsRate: number; retentionMinutes: number }): string {
  const W = 760;
  const H = 360;
  const left = 60;
  const right = 150;
  const top = 40;
  const bottom = 40;
  const series: Array<{ name: string; color: string; value: (s: Sample) => number }> = [
    { name: 'resident', color: COLORS.blue, value: (s) => s.rssMiB },
    { name: 'anonymous', color: COLORS.red, value: (s) => s.anonMiB },
    { name: 'file-backed', color: COLORS.green, value: (s) => s.fileMiB },
    { name: 'data file', color: COLORS.purple, value: (s) => s.dataFileMiB },
  ];
  const maxY = Math.max(1, ...samples.flatMap((s) => series.map((x) => x.value(s)))) * 1.1;
  const x = (minute: number) => left + (minute / o.minutes) * (W - left - right);
  const y = (v: number) => H - bottom - (v / maxY) * (H - top - bottom);
  const out: string[] = [line(left, H - bottom, W - right, H - bottom, 'black'), line(left, top, left, H - bottom, 'black')];
  for (let i = 0; i <= 4; i++) {
    const v = (maxY / 4) * i;
    out.push(text(left - 6, y(v) + 4, v.toFixed(0), { 'text-anchor': 'end' }));
    out.push(line(left, y(v), W - right, y(v), '#eee'));
    const m = (o.minutes / 4) * i;
    out.push(text(x(m), H - bottom + 16, m.toFixed(0), { 'text-anchor': 'middle' }));
  }
  for (const s of series) {
    const points = samples.map((p): [number, number] => [x(p.minute), y(s.value(p))]);
    out.push(polyline(points, s.color));
  }
  out.push(...legend(W - right + 12, top, series));
  return svgDocument(
    {
      width: W,
      height: H,
      title: 'Soak samples: resident, anonymous and file-backed memory and the data file, in MiB over minutes',
      heading: `Soak: ${o.rate} events/s, ${o.flagsRate} /flags/s, retention ${o.retentionMinutes} min (MiB over minutes)`,
      headingX: left,
    },
    out,
  );
}

process.on('SIGINT', () => {
  killServers();
  process.exit(130);
});
main().catch((err: unknown) => {
  killServers();
  console.error(err);
  process.exit(1);
});

/**
 * Summarizes V8 .cpuprofile files (from `npm run bench -- --cpu-prof <dir>`, one per thread):
 * share of samples per function (self time) and per source file, idle and GC included.
 * With `--inclusive`, also per function with its callees (each function counted once per
 * sample however deep it recurses): where a phase's time goes as a whole.
 * `--focus <name>` keeps only the samples with that function on the stack (shares stay of all
 * samples), e.g. `--focus step` for the person processor's batches without the set-up around them.
 * Usage: node dist/bench/profile-summary.js <file.cpuprofile>... [--top N] [--inclusive] [--focus <name>]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples?: number[];
  startTime: number;
  endTime: number;
}

function where(url: string): string {
  if (url === '') return '';
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1] as string;
  if (url.startsWith('node:')) return url;
  return path.relative(process.cwd(), url.replace(/^file:\/\//, ''));
}

function label(cf: ProfileNode['callFrame']): string {
  const loc = where(cf.url);
  return `${cf.functionName || '(anonymous)'}${loc ? ` ${loc}:${cf.lineNumber + 1}` : ''}`;
}

function summarize(file: string, top: number, inclusive: boolean, focus: string | undefined): void {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const hits = new Map<number, number>();
  for (const id of p.samples ?? []) hits.set(id, (hits.get(id) ?? 0) + 1);
  if (focus !== undefined) {
    const parent = new Map<number, ProfileNode>();
    for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n);
    for (const id of [...hits.keys()]) {
      let on = false;
      for (let n = byId.get(id); n !== undefined && !on; n = parent.get(n.id)) on = n.callFrame.functionName === focus;
      if (!on) hits.delete(id);
    }
  }
  const total = p.samples?.length ?? 0;
  const fns = new Map<string, number>();
  const files = new Map<string, number>();
  for (const [id, n] of hits) {
    const cf = (byId.get(id) as ProfileNode).callFrame;
    const loc = where(cf.url);
    const fn = label(cf);
    fns.set(fn, (fns.get(fn) ?? 0) + n);
    const f = loc || cf.functionName; // (idle), (program), (garbage collector) have no url
    files.set(f, (files.get(f) ?? 0) + n);
  }
  const pct = (n: number) => `${((100 * n) / total).toFixed(1).padStart(5)}%`;
  const list = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, n]) => `  ${pct(n)}  ${k}`)
      .join('\n');
  console.log(`${path.basename(file)}: ${total} samples over ${((p.endTime - p.startTime) / 1e6).toFixed(1)} s`);
  console.log(`by file/package:\n${list(files)}\nby function (self):\n${list(fns)}\n`);
  if (inclusive) console.log(`by function (with callees):\n${list(inclusiveShares(p, hits))}\n`);
}

/** Samples per function label, counting every sample whose stack contains it (once). */
function inclusiveShares(p: Profile, hits: Map<number, number>): Map<string, number> {
  const parent = new Map<number, ProfileNode>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n);
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const out = new Map<string, number>();
  for (const [id, count] of hits) {
    const seen = new Set<string>();
    for (let n = byId.get(id); n !== undefined; n = parent.get(n.id)) seen.add(label(n.callFrame));
    for (const fn of seen) out.set(fn, (out.get(fn) ?? 0) + count);
  }
  return out;
}

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args.splice(topAt, 2)[1]) : 15;
const inclusiveAt = args.indexOf('--inclusive');
if (inclusiveAt >= 0) args.splice(inclusiveAt, 1);
const focusAt = args.indexOf('--focus');
const focus = focusAt >= 0 ? args.splice(focusAt, 2)[1] : undefined;
if (args.length === 0) {
  console.error('usage: node dist/bench/profile-summary.js <file.cpuprofile>... [--top N] [--inclusive] [--focus <name>]');
  process.exit(2);
}
for (const f of args) summarize(f, top, inclusiveAt >= 0, focus);

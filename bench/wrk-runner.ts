/**
 * Runs wrk with one of the bench/wrk/*.lua scripts and parses what it reports: the JSON line the
 * scripts' `done()` prints (requests, errors, latency percentiles) and wrk's own
 * "Non-2xx or 3xx responses" line.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';

export interface WrkSettings {
  threads: number;
  connections: number;
  durationSeconds: number;
}

export interface WrkResult {
  requests: number;
  seconds: number;
  requestsPerSecond: number;
  /** Socket errors (connect, read, write, timeout) plus responses with status > 399. */
  errors: { connect: number; read: number; write: number; status: number; timeout: number };
  /** wrk's count of responses outside 2xx/3xx (0 when wrk printed no such line). */
  non2xx3xx: number;
  /** Answers the script's own response check refused (bench/wrk/flags.lua with `check`); else 0. */
  wrong: number;
  latencyMs: { mean: number; p50: number; p90: number; p99: number; p999: number; max: number };
  /** The exact command, for the report. */
  command: string;
}

const running = new Set<ChildProcess>();

/** For a signal handler: stops every wrk this process started. */
export function killWrk(): void {
  for (const child of running) child.kill('SIGKILL');
}

/** Throws with install instructions when wrk is not on the PATH. */
export function checkWrk(): string {
  const r = spawnSync('wrk', ['--version'], { encoding: 'utf8' });
  if (r.error) {
    throw new Error(
      'wrk is not installed (needed to generate load). On Debian/Ubuntu: `sudo apt-get install -y wrk` ' +
        '(as root: `apt-get update && apt-get install -y wrk`); elsewhere see https://github.com/wg/wrk',
    );
  }
  return `${r.stdout}${r.stderr}`.split('\n')[0]?.trim() ?? 'wrk';
}

export function startWrk(
  url: string,
  script: string,
  scriptArgs: string[],
  s: WrkSettings,
): { child: ChildProcess; done: Promise<WrkResult> } {
  const args = [`-t${s.threads}`, `-c${s.connections}`, `-d${s.durationSeconds}s`, '--latency', '-s', script, url, '--', ...scriptArgs];
  const command = `wrk ${args.map(shellQuote).join(' ')}`;
  const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const done = new Promise<WrkResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('WRK_RESULT '));
      if (code !== 0 || !line) {
        reject(new Error(`${command} failed (exit ${code}):\n${out}${err}`));
        return;
      }
      resolve(parse(line.slice('WRK_RESULT '.length), out, command));
    });
  });
  return { child, done };
}

/** Quotes an argument for the printed command (URLs with `&`, ETags with `"`), so it can be pasted. */
function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]*$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

function parse(json: string, text: string, command: string): WrkResult {
  const r = JSON.parse(json) as {
    duration_us: number;
    requests: number;
    wrong: number;
    errors: WrkResult['errors'];
    latency_us: Record<'mean' | 'p50' | 'p90' | 'p99' | 'p999' | 'max', number>;
  };
  const ms = (us: number) => us / 1000;
  const seconds = r.duration_us / 1e6;
  return {
    requests: r.requests,
    seconds,
    requestsPerSecond: r.requests / seconds,
    errors: r.errors,
    non2xx3xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(text)?.[1] ?? 0),
    wrong: r.wrong,
    latencyMs: {
      mean: ms(r.latency_us.mean),
      p50: ms(r.latency_us.p50),
      p90: ms(r.latency_us.p90),
      p99: ms(r.latency_us.p99),
      p999: ms(r.latency_us.p999),
      max: ms(r.latency_us.max),
    },
    command,
  };
}

/** Total of socket errors, bad statuses and answers the script refused: anything but 0 makes a run invalid. */
export function failures(r: WrkResult): number {
  const e = r.errors;
  return e.connect + e.read + e.write + e.timeout + Math.max(e.status, r.non2xx3xx) + r.wrong;
}

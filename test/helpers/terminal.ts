/**
 * Runs `hedgerow serve` as an operator does by hand, with a terminal for its stdout and stderr:
 * `script` (util-linux) gives it a pseudo-terminal, so `isTTY` holds as it does in a shell. What
 * the terminal shows comes back as one text, with the log's JSON lines and whatever went to
 * stderr in the order they appeared.
 */
import { spawn } from 'node:child_process';
import { CLI_MAIN, baseEnv } from './daemon.js';

export interface TerminalRun {
  /** What the terminal has shown so far (line ends as `\n`). */
  output(): string;
  /** Resolves with the output once `pattern` appears in it; rejects when the process ends first or after `ms`. */
  waitFor(pattern: RegExp, ms?: number): Promise<string>;
  /** The exit code, once the process has ended. */
  readonly exited: Promise<number | null>;
  /** SIGTERM to the daemon (not to `script`, which would leave it a SIGHUP), then waits for the end. */
  stop(): Promise<number | null>;
}

const running = new Set<TerminalRun>();

/** Stops every daemon still running in a terminal (call in `afterAll`): a failed test may leave one. */
export async function stopTerminals(): Promise<void> {
  await Promise.all([...running].map((run) => run.stop()));
}

/** `hedgerow serve` in a terminal, with `env` over the test environment (no HEDGEROW_* of the parent's). */
export function serveInTerminal(env: Record<string, string>): TerminalRun {
  const command = [process.execPath, CLI_MAIN, 'serve'].map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(' ');
  // -q: no "Script started" lines, -f: flush as it comes, -e: the command's exit code, -c: the command.
  const child = spawn('script', ['-qfec', command, '/dev/null'], { env: { ...baseEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  const listeners = new Set<() => void>();
  const append = (chunk: Buffer) => {
    text += chunk.toString('utf8').replaceAll('\r\n', '\n');
    for (const l of listeners) l();
  };
  child.stdout.on('data', append);
  child.stderr.on('data', append);
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));

  /** The daemon's pid, from its first log line. */
  const daemonPid = (): number | undefined => {
    const m = /"pid":(\d+)/.exec(text);
    return m ? Number(m[1]) : undefined;
  };

  const run: TerminalRun = {
    output: () => text,
    exited,
    waitFor(pattern, ms = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!pattern.test(text)) return;
          done();
          resolve(text);
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`${pattern} did not appear within ${ms} ms; the terminal showed:\n${text}`));
        }, ms);
        const done = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        void exited.then(() => {
          if (!pattern.test(text)) {
            done();
            reject(new Error(`the process ended before ${pattern} appeared; the terminal showed:\n${text}`));
          }
        });
        listeners.add(check);
        check();
      });
    },
    async stop() {
      const pid = daemonPid();
      if (pid !== undefined) {
        try {
          process.kill(pid, 'SIGTERM');
        } catch {
          // already gone
        }
      }
      const timer = setTimeout(() => {
        if (pid !== undefined) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // already gone
          }
        }
        child.kill('SIGKILL');
      }, 20_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
  running.add(run);
  void exited.then(() => running.delete(run));
  return run;
}

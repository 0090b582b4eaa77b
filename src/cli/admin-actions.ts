/**
 * `hedgerow admin` actions that change records, by command path (`admin users create`), so that
 * in cluster mode every node can apply one as a command of the stream (cluster/command-applier.ts)
 * with what the operator typed, and the output it would have printed goes back to them. An action
 * runs synchronously against a store; `out()` writes to the run in progress when there is one (and
 * `fail()` ends it: exit-codes.ts), and to the process otherwise.
 */
import type { Config } from '../config/schema.js';
import { AuthStore } from '../store/auth-store.js';
import type { StoreDatabases } from '../store/open-store.js';
import { isTransientStoreError } from '../store/store-errors.js';
import { CommandRefusal, EXIT_REFUSED, type ExitCode, failThrows } from './exit-codes.js';

export type Opts = Record<string, unknown>;

export type AdminRun = (auth: AuthStore, opts: Opts, dbs: StoreDatabases, args: string[], config: Readonly<Config>) => void;

/** What an action printed and how it ended. */
export interface AdminOutcome {
  readonly code: 0 | ExitCode;
  readonly stdout: string;
  readonly stderr: string;
}

const actions = new Map<string, AdminRun>();

/** Where output goes while an action runs captured (undefined: the process's stdout). */
let captured: string[] | undefined;
/** The exit code a captured action asked for without failing (`setExitCode`). */
let capturedCode: 0 | ExitCode = 0;

export function registerAdminAction(path: string, run: AdminRun): void {
  actions.set(path, run);
}

/** Output of an admin action. */
export function out(text: string): void {
  if (captured) captured.push(text);
  else process.stdout.write(text);
}

/** How an action that did its work ends (1: it skipped something); the process's exit code when not captured. */
export function setExitCode(code: 0 | ExitCode): void {
  if (captured) capturedCode = code;
  else process.exitCode = code;
}

/** Runs the action at `path` against `dbs`, its output and ending captured. */
export function runAdminAction(path: string, args: string[], opts: Opts, dbs: StoreDatabases, config: Readonly<Config>): AdminOutcome {
  const run = actions.get(path);
  if (run === undefined)
    return { code: EXIT_REFUSED, stdout: '', stderr: `hedgerow: this node cannot run \`hedgerow ${path}\` (another release?)\n` };
  const printed: string[] = [];
  captured = printed;
  capturedCode = 0;
  try {
    failThrows(() => run(new AuthStore(dbs), opts, dbs, args, config));
    return { code: capturedCode, stdout: printed.join(''), stderr: '' };
  } catch (err) {
    // A store refusing writes now (a full disk) is not the action's outcome: the node tries it again.
    if (isTransientStoreError(err)) throw err;
    if (err instanceof CommandRefusal) return { code: err.code, stdout: printed.join(''), stderr: `hedgerow: ${err.message}\n` };
    // As withStore ends a command whose action threw.
    return { code: EXIT_REFUSED, stdout: printed.join(''), stderr: `hedgerow: ${err instanceof Error ? err.message : String(err)}\n` };
  } finally {
    captured = undefined;
  }
}

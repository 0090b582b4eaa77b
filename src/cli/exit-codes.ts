/**
 * The command line's exit codes, one per class of failure, so that scripts and systemd can tell a
 * command that needs fixing from one that failed at run time (docs/operations.md#exit-codes), and
 * `fail()`, the one way a command ends with a message.
 */

/** It ran, but failed: the daemon could not start (port taken, data directory served or damaged), or a command failed while working. */
export const EXIT_FAILED = 1;

/** Refused before doing anything: the configuration, the command line or an argument must change. */
export const EXIT_REFUSED = 2;

export type ExitCode = typeof EXIT_FAILED | typeof EXIT_REFUSED;

/** How `fail()` ends an admin action a cluster node runs for the operator (admin-actions.ts). */
export class CommandRefusal extends Error {
  constructor(
    message: string,
    readonly code: ExitCode,
  ) {
    super(message);
  }
}

let throwInstead = false;

/** Runs `fn` with `fail()` throwing CommandRefusal instead of ending the process. */
export function failThrows<T>(fn: () => T): T {
  const before = throwInstead;
  throwInstead = true;
  try {
    return fn();
  } finally {
    throwInstead = before;
  }
}

/** Ends the command with `hedgerow: <message>` on stderr; by default it was refused (exit 2). */
export function fail(message: string, code: ExitCode = EXIT_REFUSED): never {
  if (throwInstead) throw new CommandRefusal(message, code);
  process.stderr.write(`hedgerow: ${message}\n`);
  process.exit(code);
}

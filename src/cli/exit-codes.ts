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

/** Ends the command with `hedgerow: <message>` on stderr; by default it was refused (exit 2). */
export function fail(message: string, code: ExitCode = EXIT_REFUSED): never {
  process.stderr.write(`hedgerow: ${message}\n`);
  process.exit(code);
}

/**
 * How `hedgerow serve` ends when it cannot start. A known reason (an invalid setting, the port in
 * use, the data directory served by another daemon or damaged: ConfigError and StartError) is the
 * operator's to fix, so it is one `hedgerow: <message>` line on stderr and an exit code per class
 * (docs/operations.md#exit-codes), and no stack. Where the logs are not a terminal (a journal, a
 * shipper reading stdout), the same goes out as one JSON line too, since those readers may see
 * only the JSON. Anything else is a bug: its stack stays, in the log line and on stderr.
 */
import { ConfigError } from '../config/load-config.js';
import { createLogger, type Logger } from '../observability/logger.js';
import { StartError } from '../start-error.js';
import { EXIT_FAILED, EXIT_REFUSED, type ExitCode } from './exit-codes.js';

/** Reports `err` as serve's start failure and exits. `log` is the daemon's logger, once the configuration gave one. */
export function exitWithStartFailure(err: unknown, log?: Logger): never {
  const known = knownFailure(err);
  const code = known?.code ?? EXIT_FAILED;
  const stack = err instanceof Error ? (err.stack ?? err.message) : String(err);
  process.stderr.write(known ? `hedgerow: ${known.message}\n` : `hedgerow: failed to start, unexpectedly (a bug): ${stack}\n`);
  if (!process.stdout.isTTY) {
    // Before the configuration is read there is no log level yet: the default's.
    const logger = log ?? createLogger('info');
    if (known) logger.fatal({ exit_code: code }, `failed to start: ${known.message}`);
    else logger.fatal({ err, exit_code: code }, 'failed to start: unexpected error');
  }
  process.exit(code);
}

function knownFailure(err: unknown): { message: string; code: ExitCode } | undefined {
  if (err instanceof ConfigError) return { message: err.message, code: EXIT_REFUSED };
  if (err instanceof StartError) return { message: err.message, code: EXIT_FAILED };
  return undefined;
}

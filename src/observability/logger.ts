/**
 * Structured JSON logs on stdout (pino). Writes are synchronous so a startup or fatal line is
 * on stdout before the next statement runs; that is affordable because hot paths never log
 * per event (the access log, src/http/access-log.ts, writes a line per request at `debug`, in
 * batches). The level can be changed at runtime (SIGHUP reload), and what depends on it follows
 * (`followLogLevel`).
 */

import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from '../config/schema.js';

export type { Logger };

/** `destination` defaults to a synchronous stdout; tests pass a stream to capture lines. */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination ?? pino.destination({ dest: 1, sync: true }),
  );
}

export function setLogLevel(logger: Logger, level: LogLevel): void {
  logger.level = level;
}

/**
 * Calls `listener` with the logger's level now and after every change of it, so that what
 * depends on the level (the access log, here and in the HTTP front-end threads) follows a SIGHUP
 * reload without the reload knowing about it.
 */
export function followLogLevel(logger: Logger, listener: (level: LogLevel) => void): void {
  // Only setLogLevel and createLogger set it, with a LogLevel.
  listener(logger.level as LogLevel);
  logger.on('level-change', (level) => listener(level as LogLevel));
}

/**
 * Logs an uncaught error, or an unhandled promise rejection, as one `fatal` line before Node's
 * own handling prints the stack and ends the process with code 1. Exiting stays right (the state
 * is unknown; systemd restarts the service); the line is what a journal reader can parse.
 */
export function logUncaughtErrors(logger: Logger): void {
  process.on('uncaughtExceptionMonitor', (err, origin) => {
    const what = origin === 'unhandledRejection' ? 'unhandled promise rejection' : 'uncaught error';
    logger.fatal({ err, origin }, `${what}: exiting`);
  });
}

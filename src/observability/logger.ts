/**
 * Structured JSON logs on stdout (pino). Writes are synchronous so a startup or fatal line is
 * on stdout before the next statement runs; that is affordable because hot paths never log
 * per event. The level can be changed at runtime (SIGHUP reload).
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

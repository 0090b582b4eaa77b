/**
 * `hedgerow serve`: load and freeze the configuration, start the daemon, and stop it cleanly on
 * SIGTERM/SIGINT within a bounded time; SIGHUP reloads the log level (the daemon follows the
 * logger's level: its access log, in the HTTP front-end threads too). With `--env-file`, that
 * file's `HEDGEROW_*` lines are read over the environment at start and again on SIGHUP (a
 * process's own environment cannot change, so this is how a reload sees an edited setting).
 */
import type { Command } from 'commander';
import { ConfigError, loadConfig, loadConfigWithWarnings } from '../config/load-config.js';
import { packageVersion } from '../config/package-version.js';
import type { Daemon } from '../daemon.js';
import { createLogger, logUncaughtErrors, setLogLevel } from '../observability/logger.js';
import { dataDirProblem } from '../store/data-dir.js';
import { collectWhenQuiet, QUIET_COLLECTION } from '../util/heap-release.js';
import { addConfigFlags, commandEnv, configFlags } from './config-flags.js';
import { firstStartBanner } from './first-start-banner.js';
import { connectHost } from './service-commands.js';
import { EXIT_REFUSED } from './exit-codes.js';
import { exitWithStartFailure } from './start-failure.js';

/** Past the drain timeout, give closing the pool and LMDB this long before exiting anyway. */
const CLOSE_GRACE_MS = 5000;

export function addServeCommand(program: Command): void {
  const cmd = program
    .command('serve')
    .description('run the daemon (HTTP front end, worker pool, LMDB store)')
    .option('--env-file <path>', 'read HEDGEROW_* settings from this file over the environment, at start and on SIGHUP');
  addConfigFlags(cmd).action(async (opts: Record<string, unknown>) => {
    const flags = configFlags(opts);
    const load = () => loadConfig({ flags, env: commandEnv(opts) });
    let config;
    let warnings: readonly string[];
    try {
      ({ config, warnings } = loadConfigWithWarnings({ flags, env: commandEnv(opts) }));
      const problem = dataDirProblem(config.dataDir);
      if (problem !== undefined) {
        throw new ConfigError([`data directory ${JSON.stringify(config.dataDir)} (HEDGEROW_DATA_DIR, --data-dir): ${problem}`]);
      }
    } catch (err) {
      exitWithStartFailure(err);
    }
    const log = createLogger(config.logLevel);
    logUncaughtErrors(log);
    // First, so that every start in a journal says which release and runtime it was.
    const version = packageVersion();
    log.info({ version, node_version: process.versions.node }, `starting Hedgerow ${version} on Node.js ${process.version}`);
    for (const warning of warnings) log.warn(warning);
    // Signals are handled from before the daemon starts: one arriving during startup stops it
    // as soon as it is up, never with the default action (an unclean exit).
    let daemon: Daemon | undefined;
    let requested: string | undefined;
    let stopping = false;
    const stop = (signal: string) => {
      requested ??= signal;
      if (daemon === undefined || stopping) return; // startup finishes first; repeats change nothing
      stopping = true;
      log.info({ signal }, 'stopping: no new connections, finishing requests in flight');
      const force = setTimeout(() => {
        log.error('shutdown took too long; exiting');
        process.exit(1);
      }, config.shutdownTimeoutMs + CLOSE_GRACE_MS);
      force.unref();
      daemon.stop().then(
        () => process.exit(0),
        (err: unknown) => {
          log.error({ err }, 'error while stopping');
          process.exit(1);
        },
      );
    };
    process.on('SIGTERM', () => stop('SIGTERM'));
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGHUP', () => {
      try {
        const reloaded = load();
        setLogLevel(log, reloaded.logLevel);
        log.info({ log_level: reloaded.logLevel }, 'SIGHUP: reloaded the log level');
      } catch (err) {
        log.error({ err: err instanceof Error ? err.message : String(err) }, 'SIGHUP: configuration invalid, kept the old one');
      }
    });
    try {
      // Loaded here, not with the command line: the other commands start without the daemon's
      // modules (~0.15 s of every `hedgerow admin …`).
      const { startDaemon } = await import('../daemon.js');
      // Keys go to a person at a terminal only; stderr, because stdout carries the log.
      daemon = await startDaemon(config, log, { keysOnTerminal: process.stderr.isTTY === true });
    } catch (err) {
      exitWithStartFailure(err, log);
    }
    if (requested !== undefined) stop(requested);
    // The daemon's own thread, as its worker threads do: garbage is given back once quiet.
    collectWhenQuiet(QUIET_COLLECTION);
    const running = daemon;
    const url = `http://${connectHost(config.host)}:${running.port}`;
    void running.ready.then((keys) => {
      if (keys) process.stderr.write(firstStartBanner(keys, url));
    });
    void running.fatal.then(async (err) => {
      // A setting of the cluster the node cannot work with: the operator has to act, so a
      // restart by systemd would not help (refused, as an invalid configuration is).
      log.fatal({ exit_code: EXIT_REFUSED }, `failed to start: ${err.message}`);
      process.stderr.write(`hedgerow: ${err.message}\n`);
      stopping = true;
      await running.stop().catch(() => undefined);
      process.exit(EXIT_REFUSED);
    });
  });
}

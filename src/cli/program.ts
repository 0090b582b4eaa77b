/**
 * The `hedgerow` command line: `serve`, `admin …`, `events …`, `backup`, `restore`, `wait-ready`, `install-service`,
 * each with `--help` (commander). Shared by `main.ts` (the npm path) and the single executable.
 */
import { Command } from 'commander';
import { addAdminCommands } from './admin-command.js';
import { addBackupCommands } from './backup-commands.js';
import { addEventsCommands } from './events-command.js';
import { addServeCommand } from './serve-command.js';
import { EXIT_REFUSED } from './exit-codes.js';
import { addServiceCommands } from './service-commands.js';
import { packageVersion } from '../config/package-version.js';

export async function runCli(argv: readonly string[]): Promise<void> {
  const program = new Command()
    .name('hedgerow')
    .description("A self-hosted daemon that speaks PostHog's public wire protocol")
    .version(packageVersion(), '-V, --version');

  addServeCommand(program);
  addAdminCommands(program);
  addEventsCommands(program);
  addBackupCommands(program);
  addServiceCommands(program);
  reportUsageErrors(program, 'hedgerow');

  await program.parseAsync([...argv]);
}

/**
 * A usage error (an unknown option, a missing argument) is a refusal like an invalid setting: one
 * `hedgerow: …` line and exit 2, not commander's `error: …` and exit 1, and a pointer to the
 * command's help rather than all of it.
 */
function reportUsageErrors(cmd: Command, name: string): void {
  cmd
    .configureOutput({ outputError: (text, write) => write(`hedgerow: ${text.replace(/^error: /, '')}`) })
    .showHelpAfterError(`(${name} --help shows its usage)`)
    // Help and --version exit 0; everything else commander ends is a usage error.
    .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : EXIT_REFUSED));
  for (const sub of cmd.commands) reportUsageErrors(sub, `${name} ${sub.name()}`);
}

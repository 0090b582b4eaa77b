/**
 * The `hedgerow` command line: `serve`, `admin …`, `events …`, `backup`, `restore`, `wait-ready`, `install-service`,
 * each with `--help` (commander). Shared by `main.ts` (the npm path) and the single executable.
 */
import { Command } from 'commander';
import { addAdminCommands } from './admin-command.js';
import { addBackupCommands } from './backup-commands.js';
import { addEventsCommands } from './events-command.js';
import { addServeCommand } from './serve-command.js';
import { addServiceCommands } from './service-commands.js';
import { packageVersion } from '../config/package-version.js';

export async function runCli(argv: readonly string[]): Promise<void> {
  const program = new Command()
    .name('hedgerow')
    .description("A self-hosted daemon that speaks PostHog's public wire protocol")
    .version(packageVersion(), '-V, --version')
    .showHelpAfterError();

  addServeCommand(program);
  addAdminCommands(program);
  addEventsCommands(program);
  addBackupCommands(program);
  addServiceCommands(program);

  await program.parseAsync([...argv]);
}

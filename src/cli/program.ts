/**
 * The `hedgerow` command line: `serve`, `admin …`, `events …`, `backup`, `restore`, `wait-ready`, `install-service`,
 * each with `--help` (commander). Shared by `main.ts` (the npm path) and the single executable.
 */
import { Command } from 'commander';
import { EXIT_REFUSED } from './exit-codes.js';
import { addCommandGroups, type CommandGroup } from './command-groups.js';
import { packageVersion } from '../config/package-version.js';

/**
 * The top-level commands, by the module that declares them, in the order `--help` lists them.
 * Only the module of the command named on the command line is loaded: each brings its own
 * dependencies (the store, the flag engine, the logger), and a command run by a script or a test
 * should not pay for the others'.
 */
const COMMANDS: readonly CommandGroup[] = [
  { names: ['serve'], add: async (program) => (await import('./serve-command.js')).addServeCommand(program) },
  { names: ['admin'], add: async (program, rest) => (await import('./admin-command.js')).addAdminCommands(program, rest) },
  { names: ['events'], add: async (program) => (await import('./events-command.js')).addEventsCommands(program) },
  { names: ['backup', 'restore'], add: async (program) => (await import('./backup-commands.js')).addBackupCommands(program) },
  {
    names: ['wait-ready', 'install-service'],
    add: async (program) => (await import('./service-commands.js')).addServiceCommands(program),
  },
];

export async function runCli(argv: readonly string[]): Promise<void> {
  const program = new Command()
    .name('hedgerow')
    .description("A self-hosted daemon that speaks PostHog's public wire protocol")
    .version(packageVersion(), '-V, --version');

  // argv: node (or the single executable), the script, then what the user typed.
  await addCommandGroups(program, COMMANDS, argv.slice(2));
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

/**
 * For a cluster node's daemon: runs the `hedgerow admin` actions the stream carries against the
 * node's store (cluster/command-applier.ts), with the actions the command line registers for
 * itself (admin-actions.ts), so that an action does on every node what it does on one.
 */
import { Command } from 'commander';
import type { Config } from '../config/schema.js';
import type { StoreDatabases } from '../store/open-store.js';
import { addAdminCommands } from './admin-command.js';
import { type AdminOutcome, runAdminAction } from './admin-actions.js';

/** Declaring the commands registers their actions; this program is never run. */
let registered: Promise<void> | undefined;

export async function clusterAdminRunner(
  dbs: StoreDatabases,
  config: Readonly<Config>,
): Promise<(path: string, args: string[], opts: Record<string, unknown>) => AdminOutcome> {
  registered ??= addAdminCommands(new Command('hedgerow'));
  await registered;
  return (path, args, opts) => runAdminAction(path, args, opts, dbs, config);
}

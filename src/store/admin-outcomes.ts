/**
 * Cluster mode: what an `hedgerow admin` command applied from the stream printed and how it ended,
 * kept in `meta` by its stream position, so that the command line that published it can show it
 * once the node on its data directory has applied it (cli/cluster-admin.ts). Every node keeps the
 * same outcomes (a command's output depends only on the records before it). The command line
 * removes its own once shown (a command of the stream too: it may hold a new key in clear), and
 * the oldest are removed as new ones come, alike on every node.
 */
import type { StoreDatabases } from './open-store.js';

const PREFIX = 'cluster_admin_outcome:';
/** Outcomes kept: those of commands at most this many stream messages old. */
const KEPT_MESSAGES = 100_000;

export interface StoredAdminOutcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

const keyOf = (seq: number): string => `${PREFIX}${String(seq).padStart(16, '0')}`;

/** Stores the outcome of the command at `seq` and removes those too old; call inside a write transaction. */
export function putAdminOutcomeSync(dbs: StoreDatabases, seq: number, outcome: StoredAdminOutcome): void {
  dbs.meta.putSync(keyOf(seq), outcome);
  for (const key of dbs.meta.getKeys({ start: PREFIX, end: keyOf(Math.max(0, seq - KEPT_MESSAGES)) })) dbs.meta.removeSync(key);
}

/** Removes the outcome of the command at `seq` (once its command line has shown it); call inside a write transaction. */
export function removeAdminOutcomeSync(dbs: StoreDatabases, seq: number): void {
  dbs.meta.removeSync(keyOf(seq));
}

export function readAdminOutcome(dbs: StoreDatabases, seq: number): StoredAdminOutcome | undefined {
  return dbs.meta.get(keyOf(seq)) as StoredAdminOutcome | undefined;
}

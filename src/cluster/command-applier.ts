/**
 * Applies the stream's commands on every node, in the stream's order (the tail hands each one
 * over once the blocks before it are written): first it waits until the person processor has
 * applied those blocks, so that a command reads the same persons and group types on every node;
 * then it runs the request through the same router a node's own requests take, as a replicated
 * write (util/write-context.ts: the command's time and seed), with the stream cursor written in
 * the command's own transaction, so that a node stopped at any point applies it exactly once.
 * The node that received the request is waiting for the outcome (`expect`) and answers with it.
 */
import type { Logger } from '../observability/logger.js';
import { HedgerowError, isHedgerowError } from '../errors.js';
import { errorResponse } from '../http/respond.js';
import type { Router } from '../http/router.js';
import type { HttpResponse } from '../http/types.js';
import type { AuthStore } from '../store/auth-store.js';
import { createDefaultsIfEmpty, type Defaults } from '../store/bootstrap.js';
import type { StoreDatabases } from '../store/open-store.js';
import { putAdminOutcomeSync, removeAdminOutcomeSync, type StoredAdminOutcome } from '../store/admin-outcomes.js';
import { HashKeyOverrideStore } from '../store/hash-key-override-store.js';
import { isTransientStoreError } from '../store/store-errors.js';
import type { StreamEventLog } from '../store/stream-event-log.js';
import { replicatedWrite, runReplicated } from '../util/write-context.js';
import { linkSecret } from '../auth/signed-link.js';
import { type ClusterCommand, commandRequest, decodeCommand } from './cluster-command.js';

/** What applying a command came to, for the node waiting on it. */
export type Applied =
  | { kind: 'http'; response: HttpResponse }
  | { kind: 'bootstrap'; created: Defaults | undefined }
  | { kind: 'hash_keys' }
  | { kind: 'admin'; outcome: StoredAdminOutcome }
  | { kind: 'admin_shown' };

export interface CommandApplierDeps {
  readonly dbs: StoreDatabases;
  readonly streamLog: StreamEventLog;
  readonly router: Router;
  readonly auth: AuthStore;
  /** Resolves once the person processor has applied every block of the node's event log. */
  readonly processorCaughtUp: () => Promise<void>;
  readonly onApplied: (kind: ClusterCommand['kind']) => void;
  /** Runs an `hedgerow admin` action against this node's store (cli/cluster-admin-runner.ts). */
  readonly runAdmin: (path: string, args: string[], opts: Record<string, unknown>) => StoredAdminOutcome;
  /** True once the node is stopping: waits and retries end (the command is applied after the restart). */
  readonly closing: () => boolean;
  readonly log: Logger;
}

const RETRY_MAX_MS = 10_000;

export class CommandApplier {
  private readonly waiting = new Map<string, (a: Applied) => void>();
  /** Writes to the store itself (the cluster's hash keys arrive here, applied in order). */
  private readonly hashKeys: HashKeyOverrideStore;

  constructor(private readonly deps: CommandApplierDeps) {
    hookWriteTransactions(deps.dbs);
    this.hashKeys = new HashKeyOverrideStore(deps.dbs);
  }

  /**
   * The outcome of the command `id` once this node applies it; rejects after `timeoutMs` (the
   * command may still be applied later, as an unanswered request may have been stored).
   */
  expect(id: string, timeoutMs: number): { outcome: Promise<Applied>; forget: () => void } {
    let timer: NodeJS.Timeout | undefined;
    const outcome = new Promise<Applied>((resolve, reject) => {
      this.waiting.set(id, (a) => {
        clearTimeout(timer);
        resolve(a);
      });
      timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`not applied within ${timeoutMs} ms`));
      }, timeoutMs);
    });
    return {
      outcome,
      forget: () => {
        clearTimeout(timer);
        this.waiting.delete(id);
      },
    };
  }

  /** Applies the command at stream position `seq`; a store refusing writes is waited out (the same command again). */
  async apply(seq: number, data: Uint8Array): Promise<void> {
    const { streamLog, log } = this.deps;
    let command: ClusterCommand;
    try {
      command = decodeCommand(data);
    } catch (err) {
      // Every node passes over it alike (a newer release's command, say).
      log.error({ seq, error: (err as Error).message }, 'cluster: passed over a command this node cannot read');
      streamLog.commitCursor(streamLog.cursorAfterCommand(seq));
      return;
    }
    await this.deps.processorCaughtUp();
    const cursor = streamLog.cursorAfterCommand(seq);
    let applied: Applied;
    for (let attempt = 0; ; attempt++) {
      if (this.deps.closing()) throw new Error('stopping: the command is applied after the restart');
      try {
        applied = await runReplicated(
          { nowMs: command.nowMs, seed: command.seed, onTransaction: () => streamLog.writeCursorSync(cursor) },
          () => this.execute(command, seq),
        );
        break;
      } catch (err) {
        if (!isTransientStoreError(err)) throw err;
        const delay = Math.min(RETRY_MAX_MS, 250 * 2 ** attempt);
        log.error({ seq, error: (err as Error).message, retry_in_ms: delay }, 'cluster: the store refused a command; trying it again');
        await new Promise((r) => setTimeout(r, delay));
      }
    }
    // Written already when the command wrote anything; written alone (the same value) otherwise.
    streamLog.commitCursor(cursor);
    this.deps.onApplied(command.kind);
    const waiter = this.waiting.get(command.id);
    this.waiting.delete(command.id);
    waiter?.(applied);
  }

  private async execute(c: ClusterCommand, seq: number): Promise<Applied> {
    // Synchronous commands run in one transaction (their own become nested ones), with the cursor:
    // a node stopped while applying one applies all of it after the restart, or had all of it.
    if (c.kind === 'admin') {
      return this.inOneTransaction(() => {
        const outcome = this.deps.runAdmin(c.path, [...c.args], { ...c.opts });
        // Kept for the command line that published it, which removes it once shown (`admin_shown`).
        putAdminOutcomeSync(this.deps.dbs, seq, outcome);
        return { kind: 'admin', outcome };
      });
    }
    if (c.kind === 'admin_shown') {
      return this.inOneTransaction(() => {
        removeAdminOutcomeSync(this.deps.dbs, c.seq);
        return { kind: 'admin_shown' };
      });
    }
    if (c.kind === 'hash_keys') {
      return this.inOneTransaction(() => {
        for (const w of c.writes) this.hashKeys.insertMissing(w.projectId, w.personIds, w.flagKeys, w.hashKey);
        return { kind: 'hash_keys' };
      });
    }
    if (c.kind === 'bootstrap') {
      return this.inOneTransaction(() => {
        const created = createDefaultsIfEmpty(this.deps.auth, c.keys);
        // The dashboard links' secret: the same on every node, so a link any node signs opens on all.
        if (created) linkSecret(this.deps.dbs);
        return { kind: 'bootstrap', created };
      });
    }
    const req = commandRequest(c);
    try {
      return { kind: 'http', response: await this.deps.router.match(req).run() };
    } catch (err) {
      if (isTransientStoreError(err)) throw err;
      if (isHedgerowError(err)) {
        // This node is not ready for it (stopping: its pool closed): applied after the restart.
        if (err.hedgerowCode === 'HR_NOT_READY') throw err;
        return { kind: 'http', response: errorResponse(err) };
      }
      this.deps.log.error({ err, method: c.method, path: c.path }, 'unhandled error applying a cluster command');
      return { kind: 'http', response: errorResponse(new HedgerowError('HR_INTERNAL')) };
    }
  }

  /** Runs `fn` in one write transaction, which the replicated write's hook opens with the cursor. */
  private inOneTransaction(fn: () => Applied): Applied {
    return this.deps.dbs.root.transactionSync(fn);
  }
}

/**
 * Every write transaction a replicated write opens begins with its `onTransaction` (the stream
 * cursor): the management API writes through `transactionSync` on the store's root, so the
 * cursor commits with the command's records, or not at all.
 */
function hookWriteTransactions(dbs: StoreDatabases): void {
  const root = dbs.root;
  const plain = root.transactionSync.bind(root);
  root.transactionSync = (<T>(callback: () => T, flags?: number): T => {
    const w = replicatedWrite()?.onTransaction;
    if (w === undefined) return plain(callback, flags);
    return plain(() => {
      w();
      return callback();
    }, flags);
  }) as typeof root.transactionSync;
}

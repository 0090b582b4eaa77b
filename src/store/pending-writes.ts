/**
 * Writes gathered outside a write transaction and applied inside one, in order, so that a batch
 * can be computed without holding LMDB's write lock (which blocks every other writer, the event
 * log's commits included) and then written in a short transaction. Reads do not see the gathered
 * writes: the gatherer remembers what it wrote where it reads it back.
 */
import type { Database } from 'lmdb';
import type { StoreKey } from './open-store.js';

type Db = Database<unknown, StoreKey>;

type Op = { db: Db; key: StoreKey; value: unknown } | { db: Db; key: StoreKey; remove: true } | { run: () => void };

export class PendingWrites {
  private readonly ops: Op[] = [];

  /** How many writes are gathered. */
  get size(): number {
    return this.ops.length;
  }

  put(db: Db, key: StoreKey, value: unknown): void {
    this.ops.push({ db, key, value });
  }

  remove(db: Db, key: StoreKey): void {
    this.ops.push({ db, key, remove: true });
  }

  /** Work that must read and write inside the transaction (records other threads also write). */
  runInTransaction(f: () => void): void {
    this.ops.push({ run: f });
  }

  /** Call inside `transactionSync`. */
  apply(): void {
    for (const op of this.ops) {
      if ('run' in op) op.run();
      else if ('remove' in op) op.db.removeSync(op.key);
      else op.db.putSync(op.key, op.value);
    }
  }
}

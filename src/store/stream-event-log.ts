/**
 * The event log in cluster mode: blocks come from the events stream, in the stream's order, and
 * each node writes them into its own log with keys every node computes alike from the stream
 * alone: `[µs, 0, stream sequence]`, where µs is the publishing node's receive time, moved just
 * past the previous block's when that clock was behind (so keys grow in stream order, which the
 * person processor's cursor needs). The stream position is committed in the same transaction as
 * the blocks: a node stopped at any point resumes after the last block it holds, with nothing
 * skipped or written twice.
 */
import type { EventKey, StoreDatabases } from './open-store.js';

const STREAM_CURSOR_KEY = 'cluster_events_cursor';

/** Where the node is in the events stream: the last sequence written and the µs of its key. */
export interface StreamCursor {
  readonly seq: number;
  readonly micros: number;
}

export interface StreamBlock {
  readonly seq: number;
  /** The publishing node's receive time. */
  readonly micros: number;
  readonly block: Uint8Array;
}

/** The last stream message a node's store holds (0: none), for a reader of the store. */
export function streamPosition(dbs: StoreDatabases): number {
  return (dbs.meta.get(STREAM_CURSOR_KEY) as StreamCursor | undefined)?.seq ?? 0;
}

export class StreamEventLog {
  private committed: StreamCursor;
  /** The cursor after the blocks placed but not yet committed. */
  private placed: StreamCursor;

  constructor(private readonly dbs: StoreDatabases) {
    const stored = dbs.meta.get(STREAM_CURSOR_KEY) as StreamCursor | undefined;
    // A log that holds blocks written before cluster mode: new keys start after its last one.
    let micros = 0;
    for (const key of dbs.events.getKeys({ reverse: true, limit: 1 })) micros = key[0];
    this.committed = stored ?? { seq: 0, micros };
    this.placed = this.committed;
  }

  /** The stream sequence written last (0: none). */
  get position(): StreamCursor {
    return this.committed;
  }

  /** The key of the next block, which must be the one after the last placed. */
  place(b: Pick<StreamBlock, 'seq' | 'micros'>): EventKey {
    if (b.seq <= this.placed.seq) throw new Error(`stream block ${b.seq} is not after ${this.placed.seq}`);
    const micros = b.micros > this.placed.micros ? b.micros : this.placed.micros + 1;
    this.placed = { seq: b.seq, micros };
    return [micros, 0, b.seq];
  }

  /**
   * The cursor after a command at `seq` (which holds no block: the key's µs stay). The command's
   * own transaction writes it (`writeCursorSync`), so that a command is applied exactly once.
   */
  cursorAfterCommand(seq: number): StreamCursor {
    if (seq <= this.placed.seq) throw new Error(`stream command ${seq} is not after ${this.placed.seq}`);
    if (this.placed !== this.committed) throw new Error('blocks are placed and not committed before a command');
    return { seq, micros: this.placed.micros };
  }

  /** Writes `cursor`; call inside a write transaction. */
  writeCursorSync(cursor: StreamCursor): void {
    this.dbs.meta.putSync(STREAM_CURSOR_KEY, cursor);
  }

  /**
   * Writes `cursor` (with `also`'s writes) in a transaction of its own, and takes it as committed:
   * after a command that wrote nothing else, or again (the same value) after one that did.
   */
  commitCursor(cursor: StreamCursor, also?: () => void): void {
    this.dbs.root.transactionSync(() => {
      this.writeCursorSync(cursor);
      also?.();
    });
    this.committed = cursor;
    this.placed = cursor;
  }

  /** Forgets what was placed and not committed (after a failed commit: the stream is read again from the cursor). */
  rewind(): void {
    this.placed = this.committed;
  }

  /**
   * Writes placed blocks and the cursor in one transaction; resolves once it is committed (durable
   * per the store's sync mode).
   */
  async commit(entries: readonly { key: EventKey; block: Uint8Array }[]): Promise<void> {
    const cursor = this.placed;
    await this.dbs.root.transaction(() => {
      for (const e of entries) this.dbs.events.putSync(e.key, e.block as Buffer);
      this.dbs.meta.putSync(STREAM_CURSOR_KEY, cursor);
    });
    this.committed = cursor;
  }
}

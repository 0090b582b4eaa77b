/**
 * The person processor: the single writer of persons and groups, and of the usage dashboards'
 * per-day rollups (src/store/usage-rollups.ts). It tails the event log from a cursor (the key of
 * the last block it applied) and writes each batch of blocks in ONE write transaction that also
 * stores the new cursor, so after a crash it resumes exactly where the last commit left it:
 * nothing applied twice, nothing skipped (but a block whose writes LMDB refuses, see `refused`).
 * Runs in its own thread
 * (workers/person-worker.ts), woken by the daemon after each event-log commit.
 */
import { TransactionFlags } from 'lmdb';
import type { StoredEvent } from '../ingest/types.js';
import { decodeBlock } from '../store/event-log.js';
import { PROCESSOR_CURSOR_KEY } from '../store/event-retention.js';
import type { EventKey, StoreDatabases } from '../store/open-store.js';
import { PendingWrites } from '../store/pending-writes.js';
import { isTransientStoreError } from '../store/store-errors.js';
import { PersonBatch, type BatchChanges } from '../store/person-writer.js';
import { UsageRollupBatch, usageUser } from '../store/usage-rollups.js';
import { usageContribution } from '../dashboards/usage-event.js';
import { applyEvent, type ApplyOutcome } from './apply-event.js';
import { compareEventKeys } from '../store/event-keys.js';
import { HandedOffBlocks, type HandedOffBlock } from './handed-off-blocks.js';

/**
 * The batch's transaction commits without flushing under LMDB's write lock, and the flush follows
 * once the lock is free (lmdb-js's overlapping sync, which its own batched writes use), before the
 * call returns: the event log's commits no longer wait behind the processor's fsync. The cursor is
 * in the same transaction, so a crash never leaves half a batch.
 */
const SYNCED_AFTER_UNLOCK = TransactionFlags.ABORTABLE | TransactionFlags.SYNCHRONOUS_COMMIT | TransactionFlags.NO_SYNC_FLUSH;

/** Blocks are applied whole; a batch stops growing past this many events (~50 ms of work). */
const MAX_EVENTS_PER_BATCH = 5000;

export interface BatchReport {
  /** The cursor after the batch. */
  cursor: EventKey;
  events: number;
  /** Seconds from each applied block's commit (its key's ingest time) to the batch's commit. */
  lagSeconds: number[];
  outcomes: Partial<Record<ApplyOutcome | 'failed', number>>;
  /** Events whose processing threw (a bug): skipped, with the error. */
  failures: { uuid: string; error: string }[];
  /** Blocks that could not be read (a bug): passed over, with the error; their events are still in the log. */
  unreadable: { key: EventKey; error: string }[];
  /** Blocks read since the last report: handed over by the daemon, or read back from the store. */
  blocksRead: BlocksRead;
}

export interface BlocksRead {
  handOff: number;
  store: number;
}

/** A block's events, or undefined when it cannot be read. */
function readBlock(value: Uint8Array): StoredEvent[] | undefined {
  try {
    return decodeBlock(value);
  } catch {
    return undefined;
  }
}

/** Another writer registered a group type the batch was about to register, or its index. */
class GroupTypesMoved extends Error {}

/** A batch's commit failed for a reason of the moment (disk full, I/O error): retry it later. */
export class StoreUnavailableError extends Error {
  constructor(readonly cause: unknown) {
    super(`the store refused the batch for now: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'StoreUnavailableError';
  }
}

export class PersonProcessor {
  private cursor: EventKey | undefined;
  /** After a batch LMDB refused: how many of the next blocks to apply one per batch. */
  private oneBlockAtATime = 0;
  /** Blocks the daemon handed over as it wrote them (handed-off-blocks.ts). */
  private readonly handedOff = new HandedOffBlocks();
  /** A handed-off block is copied here to be decoded (see `blocksAfter`); grown as needed. */
  private scratch = Buffer.allocUnsafe(1024 * 1024);
  /** Counted as batches read blocks, taken by the next report. */
  private blocksRead: BlocksRead = { handOff: 0, store: 0 };

  /** `onCommit` sees what each batch changed, once its transaction has committed. */
  constructor(
    private readonly dbs: StoreDatabases,
    private readonly onCommit?: (changes: BatchChanges) => void,
  ) {
    this.cursor = dbs.meta.get(PROCESSOR_CURSOR_KEY) as EventKey | undefined;
  }

  get position(): EventKey | undefined {
    return this.cursor;
  }

  /** Blocks to apply from memory rather than read back, once committed (those the cursor passed are ignored). */
  handOff(blocks: readonly HandedOffBlock[]): void {
    const cursor = this.cursor;
    for (const block of blocks) {
      if (cursor === undefined || compareEventKeys(block.key, cursor) > 0) this.handedOff.add(block);
    }
  }

  /** Events committed after the cursor (counted once, at start, for the lag gauge). */
  backlog(): number {
    let n = 0;
    for (const { value } of this.blocksAfter(this.cursor)) n += readBlock(value)?.length ?? 0;
    return n;
  }

  /**
   * Applies the next batch; undefined when the log has nothing new. The batch is computed outside
   * any write transaction (the processor is the only writer of what it reads) and written, with
   * the cursor, in one short transaction: LMDB's write lock, which the event log's commits wait
   * for, is held only for the writes. Blocks are decoded one at a time as they are applied, so a
   * batch's events never all live at once: decoded up front, the whole batch survived every
   * young-generation collection during it and was promoted (12.1–12.8 → 8.4–8.8 µs of CPU per
   * event, GC threads included, `npm run bench:processor`).
   */
  step(): BatchReport | undefined {
    // Our previous batch and the event log's latest commits, not this thread's last snapshot.
    this.dbs.root.resetReadTxn();
    const outcomes: Partial<Record<ApplyOutcome | 'failed', number>> = {};
    const failures: { uuid: string; error: string }[] = [];
    const unreadable: { key: EventKey; error: string }[] = [];
    const applied: EventKey[] = [];
    let count = 0;
    const writes = new PendingWrites();
    const batch = new PersonBatch(this.dbs, writes);
    const rollups = new UsageRollupBatch(this.dbs, writes);
    let events: StoredEvent[] = [];
    for (const { key, value, handedOff } of this.blocksAfter(this.cursor)) {
      if (handedOff) this.blocksRead.handOff++;
      else this.blocksRead.store++;
      try {
        events = decodeBlock(value);
      } catch (err) {
        // As for an event, a block that cannot be read must not stop the processor for ever.
        events = [];
        unreadable.push({ key, error: err instanceof Error ? err.message : String(err) });
      }
      for (const e of events) {
        let outcome: ApplyOutcome | 'failed';
        try {
          outcome = applyEvent(batch, e);
          const usage = usageContribution(e);
          if (usage !== undefined) {
            rollups.add(e.project_id, usage, usageUser(batch.personIdOf(e.project_id, e.distinct_id), e.distinct_id));
          }
        } catch (err) {
          // A bug must not stop the processor behind one event for ever: count it and go on.
          outcome = 'failed';
          failures.push({ uuid: e.uuid, error: err instanceof Error ? err.message : String(err) });
        }
        outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
      }
      applied.push(key);
      count += events.length;
      if (count >= MAX_EVENTS_PER_BATCH || this.oneBlockAtATime > 0) break;
    }
    if (applied.length === 0) return undefined;
    const last = applied[applied.length - 1] as EventKey;
    batch.flush();
    rollups.flush();
    writes.put(this.dbs.meta, PROCESSOR_CURSOR_KEY, last);
    try {
      this.dbs.root.transactionSync(() => {
        if (!batch.groupTypesStillFree()) throw new GroupTypesMoved();
        writes.apply();
      }, SYNCED_AFTER_UNLOCK);
    } catch (err) {
      // Computed again from what is stored now (nothing of it was written; the cursor stays).
      if (err instanceof GroupTypesMoved) return this.step();
      // Nothing of the batch was written and the cursor has not moved: a disk that is full or
      // failing now may not be later, so the caller waits and tries the same blocks again.
      if (isTransientStoreError(err)) throw new StoreUnavailableError(err);
      return this.refused(applied, events, err);
    }
    if (this.oneBlockAtATime > 0) this.oneBlockAtATime--;
    this.cursor = last;
    this.handedOff.dropThrough(last);
    this.onCommit?.(batch.changes);
    const nowMicros = Date.now() * 1000;
    return {
      cursor: last,
      events: count,
      lagSeconds: applied.map((key) => Math.max(0, nowMicros - key[0]) / 1e6),
      outcomes,
      failures,
      unreadable,
      blocksRead: this.takeBlocksRead(),
    };
  }

  /**
   * A batch whose writes LMDB refused for a reason the batch carries (not a full or failing disk:
   * `isTransientStoreError`), which no event should be able to cause (a key over LMDB's
   * 1,978 bytes was one: every key built from event values is bounded where it is built). Its
   * blocks are tried again one per batch, and a block refused alone is passed over, its events
   * counted as failed: a restart would meet the same block, so stopping would stop person
   * processing for good. Nothing of a refused batch was written.
   */
  private refused(applied: readonly EventKey[], lastEvents: readonly StoredEvent[], err: unknown): BatchReport | undefined {
    if (applied.length > 1) {
      this.oneBlockAtATime = applied.length;
      return this.step();
    }
    const key = applied[0] as EventKey;
    this.dbs.root.transactionSync(() => this.dbs.meta.putSync(PROCESSOR_CURSOR_KEY, key), SYNCED_AFTER_UNLOCK);
    this.cursor = key;
    this.handedOff.dropThrough(key);
    this.oneBlockAtATime = Math.max(0, this.oneBlockAtATime - 1);
    const error = `the batch's writes were refused, so its events were passed over: ${err instanceof Error ? err.message : String(err)}`;
    return {
      cursor: key,
      events: lastEvents.length,
      lagSeconds: [Math.max(0, Date.now() * 1000 - key[0]) / 1e6],
      outcomes: { failed: lastEvents.length },
      failures: lastEvents.map((e) => ({ uuid: e.uuid, error })),
      unreadable: [],
      blocksRead: this.takeBlocksRead(),
    };
  }

  private takeBlocksRead(): BlocksRead {
    const read = this.blocksRead;
    this.blocksRead = { handOff: 0, store: 0 };
    return read;
  }

  /**
   * The log's blocks after `after`, in order: the keys always come from the store, each block
   * from the handed-off ones when it is there (no pages of the log mapped in, no decompression),
   * else from the store. Each value is valid until the next one is asked for.
   */
  private *blocksAfter(after: EventKey | undefined): Generator<{ key: EventKey; value: Uint8Array; handedOff: boolean }> {
    for (const key of this.dbs.events.getKeys(after ? { start: after } : {})) {
      if (after && compareEventKeys(key, after) === 0) continue;
      const handed = this.handedOff.take(key);
      if (handed !== undefined) {
        yield { key, value: this.copied(handed), handedOff: true };
        continue;
      }
      const stored = this.dbs.events.getBinary(key);
      if (stored !== undefined) yield { key, value: stored, handedOff: false };
    }
  }

  /**
   * A handed-off block, copied out of shared memory into a reused buffer: msgpackr's native
   * string decoding refuses bytes over a SharedArrayBuffer. (~50 µs for a 600 KB block.)
   */
  private copied(bytes: Uint8Array): Buffer {
    if (this.scratch.length < bytes.byteLength) this.scratch = Buffer.allocUnsafe(bytes.byteLength * 2);
    this.scratch.set(bytes);
    return this.scratch.subarray(0, bytes.byteLength);
  }
}

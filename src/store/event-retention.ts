/**
 * Removing old events from the event log (docs/operations.md#retention): blocks received before a
 * horizon, and only those the person processor has applied (at or before its cursor), oldest
 * first, a bounded slice per write transaction so capture's commits, which wait for LMDB's write
 * lock, are held only briefly. Persons, groups, flags and the usage rollups are other databases and
 * stay. LMDB reuses the freed pages for new blocks, so once pruning keeps pace the data file stops
 * growing (it never shrinks: `hedgerow backup --compact` writes a smaller copy).
 */
import { TransactionFlags } from 'lmdb';
import { compareEventKeys } from './event-keys.js';
import { decodeBlock } from './event-log.js';
import type { EventKey, StoreDatabases } from './open-store.js';

/** The processor's cursor: the key of the last block it applied (person-processor.ts). */
export const PROCESSOR_CURSOR_KEY = 'person_processor_cursor';

/**
 * The slice's transaction commits without flushing under the write lock; the flush follows once
 * the lock is free, before the call returns (as the processor's batches do).
 */
const FLUSH_AFTER_UNLOCK = TransactionFlags.ABORTABLE | TransactionFlags.SYNCHRONOUS_COMMIT | TransactionFlags.NO_SYNC_FLUSH;

export interface PruneSlice {
  /** Blocks removed. */
  blocks: number;
  /** Events in them, when asked to count (it decodes each block). */
  events?: number;
  /** Whether blocks that may be removed remain (the slice was full). */
  more: boolean;
  /** Blocks before the horizon kept because the person processor has not applied them yet. */
  waitingForProcessor: boolean;
}

/**
 * Removes up to `maxBlocks` blocks received before `beforeMicros` and at or before `through`
 * (undefined: nothing has been applied, so nothing goes), oldest first, in one transaction.
 */
export function pruneSlice(
  dbs: StoreDatabases,
  beforeMicros: number,
  through: EventKey | undefined,
  maxBlocks: number,
  opts: { countEvents?: boolean } = {},
): PruneSlice {
  if (through === undefined) {
    const first = oldestEventKey(dbs);
    return { blocks: 0, more: false, waitingForProcessor: first !== undefined && first[0] < beforeMicros };
  }
  let waitingForProcessor = false;
  const keys: EventKey[] = [];
  for (const key of dbs.events.getKeys({ end: [beforeMicros], limit: maxBlocks + 1 }) as Iterable<EventKey>) {
    if (compareEventKeys(key, through) > 0) {
      waitingForProcessor = true;
      break;
    }
    keys.push(key);
  }
  const more = keys.length > maxBlocks;
  if (more) keys.length = maxBlocks;
  if (keys.length === 0) return { blocks: 0, more: false, waitingForProcessor };
  let events = 0;
  dbs.root.transactionSync(() => {
    for (const key of keys) {
      if (opts.countEvents) events += countEvents(dbs.events.getBinary(key));
      dbs.events.removeSync(key);
    }
  }, FLUSH_AFTER_UNLOCK);
  return { blocks: keys.length, ...(opts.countEvents ? { events } : {}), more, waitingForProcessor };
}

/** The key of the oldest block in the log, undefined when it is empty. */
export function oldestEventKey(dbs: StoreDatabases): EventKey | undefined {
  for (const key of dbs.events.getKeys({ limit: 1 }) as Iterable<EventKey>) return key;
  return undefined;
}

function countEvents(block: Uint8Array | undefined): number {
  try {
    return block === undefined ? 0 : decodeBlock(block).length;
  } catch {
    return 0; // an unreadable block holds no event anyone can read
  }
}

/** The person processor's stored cursor. */
export function processorCursor(dbs: StoreDatabases): EventKey | undefined {
  return dbs.meta.get(PROCESSOR_CURSOR_KEY) as EventKey | undefined;
}

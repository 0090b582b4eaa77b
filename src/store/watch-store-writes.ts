/**
 * The daemon's watch on whether its store takes writes (write-availability.ts), with the
 * free-space reserve (disk-reserve.ts), its metrics and log lines, and the process-wide listener
 * for lmdb-js's orphaned commit rejections (store-errors.ts): those are the store refusing
 * writes, which capture answers 503 for, not a reason to exit.
 */
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { DiskReserve } from './disk-reserve.js';
import type { StoreDatabases } from './open-store.js';
import { commitFailureReason, isCommitFailure, storeErrorText } from './store-errors.js';
import { WriteAvailability } from './write-availability.js';

/** The meta key the probe rewrites while the store refuses writes. */
const STORE_PROBE_KEY = 'store:last-probe';
const STORE_PROBE_INTERVAL_MS = 1000;

export interface StoreWriteWatch {
  readonly writes: WriteAvailability;
  /** Removes the rejection listener: once the store is closed (commits can fail until then). */
  release(): void;
}

/**
 * Store writes are watched from the first refusal, or the disk's free space falling under the
 * reserve, until a write, or a probe every second once the space is back, commits.
 */
export function watchStoreWrites(dbs: StoreDatabases, reserve: DiskReserve, metrics: Metrics, log: Logger): StoreWriteWatch {
  const writes = new WriteAvailability({
    probe: () => dbs.meta.put(STORE_PROBE_KEY, Date.now()),
    shortfall: () => reserve.shortfall(),
    describe: async (err) => {
      metrics.storeWriteFailures.inc();
      return commitFailureReason(err);
    },
    intervalMs: STORE_PROBE_INTERVAL_MS,
    onUnavailable: (reason) => {
      metrics.storeWritable.set(0);
      log.error({ reason }, 'the store refuses writes: capture answers 503 until a write commits again (tried every second)');
    },
    onAvailable: (ms) => {
      metrics.storeWritable.set(1);
      log.info({ unavailable_ms: ms }, 'the store takes writes again: capture resumed');
    },
  });
  const onRejection = (reason: unknown): void => {
    if (!isCommitFailure(reason)) throw reason;
    void commitFailureReason(reason).then((why) => writes.failed(storeErrorText(why)));
  };
  process.on('unhandledRejection', onRejection);
  return {
    writes,
    release: () => process.off('unhandledRejection', onRejection),
  };
}

/**
 * Telling the store's failures of the moment (a full disk, an I/O error, a full map) from the
 * rest, and reading what lmdb-js says about a failed commit.
 *
 * LMDB's errors carry a numeric `code`: an OS errno (positive: ENOSPC, EIO, EDQUOT, ENOMEM, …),
 * or one of LMDB's own (-30799 to -30780), of which only a full map depends on the moment rather
 * than on what was written. Errors without a code come from lmdb-js itself (a key over 1,978
 * bytes) or from a bug: the same write would meet them again.
 */

import { catalogueError, type HedgerowError } from '../errors.js';

const MDB_MAP_FULL = -30792;

/** A write refused for a reason of the moment: the same write may succeed later. */
export function isTransientStoreError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'number' && (code > 0 || code === MDB_MAP_FULL);
}

/**
 * An asynchronous commit that failed, as lmdb-js reports it: every write of the transaction is
 * rejected with `Commit failed (see commitError for details)`, and the reason (the errno) comes
 * on a second promise, `commitError`. lmdb-js also rejects promises that no caller holds: the
 * commit promise of the write batch it opens for each event-loop turn
 * (`node_modules/lmdb/write.js`, `writeInstructions` from the event-turn batch), and
 * `commitError` itself when nobody asks for it. Left alone, such a rejection ends the process
 * (Node's default for an unhandled rejection); the daemon recognises them here and survives them.
 */
export function isCommitFailure(reason: unknown): boolean {
  if (!(reason instanceof Error)) return false;
  if ('commitError' in reason) return true;
  // The reason itself (lmdb-js's `lmdbError(status)`), raised by its write thread's callback.
  return isTransientStoreError(reason) && /[\\/]lmdb[\\/]write\.js/.test(reason.stack ?? '');
}

/**
 * Why a commit failed, in words (`No space left on device`, …), from its `commitError` when
 * lmdb-js gives one within `waitMs`; otherwise the error's own message. Also marks the
 * `commitError` promise as handled.
 */
export async function commitFailureReason(err: unknown, waitMs = 100): Promise<string> {
  const fallback = err instanceof Error ? err.message : String(err);
  const detail = (err as { commitError?: unknown } | null)?.commitError;
  if (!(detail instanceof Promise)) return fallback;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(fallback), waitMs);
  });
  const reason = detail.then(
    () => fallback,
    (e: unknown) => storeErrorText(e),
  );
  try {
    return await Promise.race([reason, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A store error in words: its message's first clause (`No space left on device`), without lmdb-js's page details. */
export function storeErrorText(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/:.*$/s, '');
}

/** What a write the store refused, or the free-space reserve held back, is answered: 503 `store_unavailable`. */
export function storeUnavailableError(reason: string): HedgerowError {
  return catalogueError('HR_STORE_UNAVAILABLE', { reason });
}

/**
 * Why a data directory's store could not be opened, in one sentence naming the directory, for
 * the reasons an operator can act on: a file that is not a whole LMDB store (a stray file, a copy
 * cut short), a store written by a newer Hedgerow, or what the system or LMDB refused (a file of
 * another owner, a lock file it cannot create). `serve` and the commands that open the store say
 * them in the same words.
 */
import { StartError } from '../start-error.js';
import { NewerSchemaError } from './open-store.js';
import { StoreFileError } from './store-file-check.js';

/** A StartError for a known reason, or undefined for anything else (a bug keeps its stack). */
export function storeOpenError(dataDir: string, err: unknown): StartError | undefined {
  if (!(err instanceof Error)) return undefined;
  const known = err instanceof StoreFileError || err instanceof NewerSchemaError || hasSystemCode(err);
  return known ? new StartError(`cannot open the data in ${dataDir}: ${err.message}`) : undefined;
}

/** An errno (`EACCES`), or LMDB's numeric code: the system or LMDB refused, not Hedgerow's code. */
function hasSystemCode(err: Error): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'number' || (typeof code === 'string' && /^E[A-Z0-9]+$/.test(code));
}

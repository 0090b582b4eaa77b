/**
 * `/flags` and `/decide` POSTs on the daemon's thread (handle-flags.ts): evaluated in the worker
 * pool (src/pool/flags-pool.ts), which resolves a request not answered in time as a timeout.
 */
import type { HttpRequest } from '../http/types.js';
import type { FlagsPool } from '../pool/flags-pool.js';
import type { FlagsEndpoint, FlagsSide } from './flags-side.js';
import { toFlagsRequest } from './handle-flags.js';
import type { FlagsOutcome } from './run-flags-request.js';

export interface FlagsInPoolDeps {
  /** Undefined until the pool is ready: 503 meanwhile (SDKs retry). */
  pool: () => FlagsPool | undefined;
  /** Hears of every 200 whose body says errorsWhileComputingFlags (metrics). */
  onErrorsAnswered?: (endpoint: FlagsEndpoint) => void;
}

export class FlagsInPool implements FlagsSide {
  readonly handsOn = false;
  readonly onErrorsAnswered: ((endpoint: FlagsEndpoint) => void) | undefined;
  private readonly pool: () => FlagsPool | undefined;

  constructor(deps: FlagsInPoolDeps) {
    this.pool = deps.pool;
    this.onErrorsAnswered = deps.onErrorsAnswered;
  }

  evaluate(req: HttpRequest, endpoint: FlagsEndpoint): Promise<FlagsOutcome> | undefined {
    const pool = this.pool();
    if (!pool) return undefined;
    return pool.submit(toFlagsRequest(req, endpoint));
  }
}

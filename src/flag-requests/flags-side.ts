/** The two sides that answer `/flags` and `/decide` with the one handler (handle-flags.ts). */
import type { HttpRequest } from '../http/types.js';
import type { FlagsOutcome } from './run-flags-request.js';

export type FlagsEndpoint = 'flags' | 'decide';

/** Where a side of the daemon evaluates POSTs, and what becomes of the requests it does not. */
export interface FlagsSide {
  /**
   * True in a front-end thread: a request it does not evaluate (another method, or a POST
   * `evaluate` declines) is handed on to the daemon's thread, and `handleFlags` returns undefined.
   * False in the daemon's thread, which answers every request, a POST it cannot evaluate (no
   * worker pool yet) with 503.
   */
  readonly handsOn: boolean;
  /** A POST's outcome, now or later; undefined when it is not evaluated here. */
  evaluate(req: HttpRequest, endpoint: FlagsEndpoint): FlagsOutcome | Promise<FlagsOutcome> | undefined;
  /** Hears of every 200 whose body says errorsWhileComputingFlags (metrics). */
  readonly onErrorsAnswered: ((endpoint: FlagsEndpoint) => void) | undefined;
}

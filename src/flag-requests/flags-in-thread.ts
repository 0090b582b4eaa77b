/**
 * `/flags` and `/decide` POSTs in an HTTP front-end thread (handle-flags.ts; the thread's routes:
 * src/http/local-routes.ts): evaluated right here, in the same call, from the thread's own handle
 * on the store, with the same answers as the worker pool gives. A body too large to decode here
 * goes to the daemon's thread, as every request of another method does.
 */
import type { HashKeyWrite } from '../store/hash-key-override-store.js';
import type { HttpRequest } from '../http/types.js';
import type { AuthStore } from '../store/auth-store.js';
import type { StoreDatabases } from '../store/open-store.js';
import { flagsRequestDeps } from './flags-deps.js';
import type { FlagsEndpoint, FlagsSide } from './flags-side.js';
import { toFlagsRequest } from './handle-flags.js';
import { runFlagsRequest, type FlagsOutcome, type FlagsRequestDeps } from './run-flags-request.js';
import { isOverDecodedLimit } from '../wire/decompress-payload.js';

/**
 * Larger bodies go to the daemon's worker pool, with its time limit (HEDGEROW_FLAGS_TIMEOUT_MS):
 * decoding one would hold up every other connection of this thread. SDK requests are far smaller.
 */
const LOCAL_FLAGS_MAX_BODY_BYTES = 64 * 1024;

/**
 * Decoded, a body may be no larger here: one that decodes to more (a small gzip or lz64 body can
 * hold megabytes) goes to the worker pool, which applies the daemon's limit. The decoders measure
 * before they build, so finding that out costs this thread nothing.
 */
const LOCAL_FLAGS_MAX_DECODED_BYTES = LOCAL_FLAGS_MAX_BODY_BYTES;

/**
 * Each `/flags` answer is written into this buffer (flags-response.ts `encodeInto`) and goes to
 * the socket before the next request is evaluated: the thread answers a local `/flags` request
 * synchronously, from uWS's data callback to `end()`, which copies what it does not send at
 * once. A larger answer is made as text.
 */
const ANSWER_BUFFER = Buffer.allocUnsafe(256 * 1024);

export interface FlagsInThreadSetup {
  /** The daemon's limit on a decoded body. */
  maxDecompressedBytes: number;
  /** `HEDGEROW_FLAGS_TIMEOUT_MS`: a `/flags` evaluation stops after this long, answering the flags done. */
  flagsTimeoutMs: number;
}

export class FlagsInThread implements FlagsSide {
  readonly handsOn = true;
  private readonly decodedCap: number;
  private readonly deps: FlagsRequestDeps;

  constructor(
    dbs: StoreDatabases,
    auth: AuthStore,
    private readonly setup: FlagsInThreadSetup,
    readonly onErrorsAnswered: ((endpoint: FlagsEndpoint) => void) | undefined,
    replicateHashKeys?: (w: HashKeyWrite) => void,
  ) {
    this.decodedCap = Math.min(setup.maxDecompressedBytes, LOCAL_FLAGS_MAX_DECODED_BYTES);
    this.deps = flagsRequestDeps(dbs, auth, this.decodedCap, replicateHashKeys);
  }

  evaluate(req: HttpRequest, endpoint: FlagsEndpoint): FlagsOutcome | undefined {
    if (req.body.byteLength > LOCAL_FLAGS_MAX_BODY_BYTES) return undefined;
    const now = new Date();
    const request = toFlagsRequest(req, endpoint, now.getTime() + this.setup.flagsTimeoutMs);
    const outcome = runFlagsRequest(request, this.deps, now, ANSWER_BUFFER);
    if (!outcome.ok && isOverDecodedLimit(outcome.error.hedgerowCode) && this.decodedCap < this.setup.maxDecompressedBytes) {
      return undefined; // the pool decodes it, with the daemon's own limit
    }
    return outcome;
  }
}

/**
 * Runs one request through the router and records its answer (its count and duration by route,
 * and its access-log line when the level takes them); answers a body over the cap with 413,
 * recorded the same way. A management write is refused, once its caller is authenticated, while
 * the disk is short of half the free-space reserve (store/disk-reserve.ts); a store refusal (a
 * full disk) is answered 503, as capture answers it, and marks the store unavailable until a write
 * commits again; any other thrown error is logged and answered 500.
 */
import { catalogueError } from '../errors.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { DiskReserve } from '../store/disk-reserve.js';
import { isTransientStoreError, storeErrorText, storeUnavailableError } from '../store/store-errors.js';
import type { WriteAvailability } from '../store/write-availability.js';
import { monotonicMs } from '../util/monotonic-ms.js';
import type { AccessLog } from './access-log.js';
import { parseContentLength } from './backend-common.js';
import { corsHeaders } from './cors.js';
import { errorResponse, toErrorResponse } from './respond.js';
import type { Router } from './router.js';
import type { BackendOptions, HttpRequest, HttpResponse } from './types.js';

/** Where answers are recorded. */
interface Recorders {
  readonly metrics: Metrics;
  readonly accessLog: AccessLog;
}

export interface RequestHandlerDeps extends Recorders {
  readonly router: Router;
  readonly log: Logger;
  readonly storeWrites: WriteAvailability;
  readonly reserve: DiskReserve;
  /**
   * Cluster mode: a management write goes to the cluster's stream and is answered with this
   * node's outcome of applying it (cluster/replicated-writes.ts).
   */
  readonly replicate?: (req: HttpRequest) => Promise<HttpResponse>;
  /**
   * Throws the answer to a request whose credentials do not authenticate it: a management write
   * the disk's reserve refuses is refused so only to a caller who may write, as the disk's state
   * is no one else's business (a caller without a key gets 401, as when there is room).
   */
  readonly authenticate: (req: HttpRequest) => void;
}

/** Methods that never write: every other request to the management API may. */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Management routes whose POST only reads (a count), or is refused whatever the disk. */
const READ_ONLY_POSTS = new Set(['api:feature_flags_user_blast_radius', 'api:persons']);

/** A request to the management API that may write (in cluster mode, replicated). */
function isManagementWrite(route: string, method: string): boolean {
  return route.startsWith('api:') && !READ_METHODS.has(method) && !READ_ONLY_POSTS.has(route);
}

/**
 * Synchronous handlers are answered in the same call (no promise, no microtask: the 304 path of
 * flag definitions is bound by this thread).
 */
export function requestHandler(deps: RequestHandlerDeps): (req: HttpRequest) => HttpResponse | Promise<HttpResponse> {
  const { router, metrics, log, storeWrites, reserve, replicate } = deps;
  const refused = (reason: string): HttpResponse => {
    metrics.storeWriteFailures.inc();
    storeWrites.failed(reason);
    return errorResponse(storeUnavailableError(reason));
  };
  const failed = (req: HttpRequest, err: unknown): HttpResponse => {
    if (!isTransientStoreError(err)) {
      return toErrorResponse(err, (e) => log.error({ err: e, method: req.method, path: req.path }, 'unhandled error'));
    }
    // A management write the store refused (a full disk): 503, as capture answers, and
    // /_readyz says so until a write commits again.
    return refused(storeErrorText(err));
  };
  const counted = (route: string, req: HttpRequest, res: HttpResponse): HttpResponse => {
    record(deps, route, req, req.body.byteLength, res);
    if (req.body.byteLength > 0) metrics.bodyBytes.observe(req.body.byteLength);
    return res;
  };
  return (req) => {
    let route = 'unmatched';
    let out: HttpResponse | Promise<HttpResponse>;
    try {
      const matched = router.match(req);
      route = matched.name;
      if (isManagementWrite(route, req.method)) {
        // A management write keeps half the reserve free (store/disk-reserve.ts says why half).
        // It does not mark the store unavailable: capture has its own look at the reserve.
        const short = reserve.shortfall('management', 0);
        if (short !== undefined) {
          deps.authenticate(req);
          metrics.storeWriteFailures.inc();
          return counted(route, req, errorResponse(storeUnavailableError(short)));
        }
        out = replicate ? replicate(req) : matched.run();
      } else {
        out = matched.run();
      }
    } catch (err) {
      return counted(route, req, failed(req, err));
    }
    if (!(out instanceof Promise)) return counted(route, req, out);
    return out.then(
      (res) => counted(route, req, res),
      (err: unknown) => counted(route, req, failed(req, err)),
    );
  };
}

/** The answer to a body over `maxBodyBytes` (the backend calls it instead of the handler). */
export function tooLargeHandler(deps: Recorders & { readonly maxBodyBytes: number }): BackendOptions['tooLarge'] {
  const { maxBodyBytes } = deps;
  return (req) => {
    const res = errorResponse(catalogueError('HR_BODY_TOO_LARGE', { max_bytes: maxBodyBytes }), corsHeaders(req));
    // The body was not read: its declared length, when it has one.
    record(deps, 'too_large', req, parseContentLength(req.header('content-length')), res);
    return res;
  };
}

/** Counts an answer, observes its duration from the request's head being read, and logs it when the level says so. */
function record(to: Recorders, route: string, req: Omit<HttpRequest, 'body'>, requestBytes: number | undefined, res: HttpResponse): void {
  const ms = monotonicMs() - req.receivedAt;
  to.metrics.countRequest(route, req.method, res.status);
  to.metrics.requestDurations.observe(route, req.method, ms / 1000);
  if (to.accessLog.enabled) to.accessLog.write(req, requestBytes, res, ms);
}

/**
 * The thin adapter between Hedgerow's routers and an HTTP server implementation.
 * Two backends implement `HttpBackend` (uWebSockets.js and node:http) with the same
 * behaviour; test/http-backend/backend.case.ts is the shared suite both must pass.
 */

export interface HttpRequest {
  /** Upper-case method, e.g. `POST`. */
  readonly method: string;
  /** URL path as sent (not percent-decoded), without the query. */
  readonly path: string;
  /** Raw query string without '?', '' when none. */
  readonly query: string;
  /** Header value by lower-case name; '' when absent. Repeated headers are joined with ", ". */
  header(name: string): string;
  /** First X-Forwarded-For hop if present, else the peer address (IPv4-mapped IPv6 shown as IPv4). */
  readonly ip: string;
  /** The body as sent, fully read, at most maxBodyBytes (GET/HEAD/OPTIONS normally carry none). */
  readonly body: Uint8Array;
  /**
   * When the front end read the request's head (util/monotonic-ms.ts, comparable between threads):
   * a request's duration in metrics and the access log counts from here.
   */
  readonly receivedAt: number;
}

export interface HttpResponse {
  status: number;
  /** Content-Length is computed by the backend; a handler's own value for it is ignored. */
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /**
   * The project the request turned out to be for, when its handler learned it on the way
   * (`/flags`, capture, flag definitions): for the access log, never sent.
   */
  projectId?: number;
}

export type Handler = (req: HttpRequest) => Promise<HttpResponse> | HttpResponse;

export interface BackendOptions {
  handler: Handler;
  maxBodyBytes: number;
  /** A request body that stalls this long (no bytes arriving) is answered 408 and its connection closed. */
  bodyIdleTimeoutMs: number;
  /** Answer for a body over maxBodyBytes (the backend calls it instead of the handler). */
  tooLarge: (req: Omit<HttpRequest, 'body'>) => Promise<HttpResponse> | HttpResponse;
  /** Called for errors the handler threw (should not happen: the handler maps errors itself). */
  onError: (err: unknown) => HttpResponse;
}

export interface HttpBackend {
  readonly name: 'uws' | 'node';
  /** Resolves with the bound port (port 0 = random). */
  listen(host: string, port: number): Promise<number>;
  /**
   * Close the listening socket; in-flight requests continue, later answers close their connection.
   * Resolves once new connections are refused (front-end threads close theirs asynchronously).
   */
  stopAccepting(): Promise<void>;
  /** Requests read or being handled but not yet answered. */
  readonly inFlight: number;
  /** Resolves true when inFlight reaches 0, false on timeout. */
  drained(timeoutMs: number): Promise<boolean>;
  /** Force-close everything; resolves once the backend's threads, if any, have exited. */
  close(): Promise<void>;
}

/**
 * The configuration: its TypeScript shape, one entry per setting (how it is named in the
 * environment and on the command line, what it accepts, what it does and what changing it
 * costs), and the JSON schema built from those entries. Defaults live in config/default.json;
 * src/config/load-config.ts merges, validates and freezes.
 */
import { MAX_CARRIED_KEY_CHARS } from '../limits.js';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const HTTP_BACKENDS = ['auto', 'uws', 'node'] as const;
type HttpBackend = (typeof HTTP_BACKENDS)[number];

const SYNC_MODES = ['durable', 'async', 'none'] as const;
export type SyncMode = (typeof SYNC_MODES)[number];

export interface BootstrapConfig {
  readonly projectApiKey?: string;
  readonly personalApiKey?: string;
}

/** The validated, resolved configuration (deep-frozen once loaded). */
export interface Config {
  readonly host: string;
  readonly port: number;
  /** Absolute path. */
  readonly dataDir: string;
  /** 1–256: a configured 0 is resolved to one per core. */
  readonly workers: number;
  readonly logLevel: LogLevel;
  readonly httpBackend: HttpBackend;
  /** 1–64: a configured 0 is resolved to one per core. */
  readonly httpThreads: number;
  readonly maxBodyBytes: number;
  readonly bodyIdleTimeoutMs: number;
  readonly sync: SyncMode;
  readonly shutdownTimeoutMs: number;
  readonly tasksPerWorker: number;
  readonly workerNice: number;
  readonly maxPersonBacklog: number;
  readonly maxCaptureBytesInFlight: number;
  readonly batchWindowMs: number;
  readonly maxPropertyValues: number;
  readonly flagsTimeoutMs: number;
  /** 0: keep every event; fractions allowed. */
  readonly retentionDays: number;
  /** 0: no reserve. */
  readonly minFreeDiskBytes: number;
  /** Comma-separated `nats://host:port` URLs; '' runs the embedded single-box mode. */
  readonly clusterNats: string;
  /** Resolved: the host name when configured ''. */
  readonly nodeName: string;
  readonly clusterReplicas: number;
  readonly clusterStreamMaxAgeHours: number;
  readonly clusterPublishTimeoutMs: number;
  /** `host:port` that serves `/metrics` alone (listen-address.ts reads it); '' serves it on the main port. */
  readonly metricsAddress: string;
  readonly bootstrap: BootstrapConfig;
}

/** How one setting is named, checked and documented. */
export interface SettingSpec {
  /** Path inside Config: `port`, or `bootstrap.projectApiKey`. */
  readonly path: string;
  /** Environment variable that sets it. */
  readonly env: string;
  /** Command-line flag as the user types it. */
  readonly flag: string;
  /** Key of the parsed flag value (commander's camelCase of `flag`). */
  readonly flagKey: string;
  /** How an environment string is coerced: strictly, "8x" stays a string and fails. */
  readonly kind: 'integer' | 'number' | 'string';
  readonly schema: Readonly<Record<string, unknown>>;
  /** Completes "must be …" in error messages. */
  readonly expect: string;
  /** Never echo the value in error messages. */
  readonly secret: boolean;
  /** What it does, in a sentence or two: `--help` and the README's configuration table show it (depth and measurements live in docs/operations.md). */
  readonly doc: string;
}

function setting(
  path: string,
  kind: SettingSpec['kind'],
  schema: Record<string, unknown>,
  expect: string,
  doc: string,
  secret = false,
): SettingSpec {
  const words = path.split(/\.|(?=[A-Z])/).map((w) => w.toLowerCase());
  const flagKey = words.map((w, i) => (i === 0 ? w : w.charAt(0).toUpperCase() + w.slice(1))).join('');
  return Object.freeze({
    path,
    env: `HEDGEROW_${words.join('_').toUpperCase()}`,
    flag: `--${words.join('-')}`,
    flagKey,
    kind,
    schema: Object.freeze(schema),
    expect,
    secret,
    doc,
  });
}

/** One NATS server URL: nats://host:port (or tls://, with the server's TLS). */
const NATS_URL = '(nats|tls)://[^\\s,/]+';
/** A TCP port, 0–65535, as text. */
const PORT_TEXT = '(?:6553[0-5]|655[0-2]\\d|65[0-4]\\d{2}|6[0-4]\\d{3}|[1-5]\\d{4}|[1-9]\\d{0,3}|0)';

/** One character of a key an operator brings (auth/keys.ts says why each rule). */
const CARRIED_KEY_CHARS = '[^\\s\\p{Cc}]';

const int = (minimum: number, maximum?: number): Record<string, unknown> =>
  maximum === undefined ? { type: 'integer', minimum } : { type: 'integer', minimum, maximum };
const oneOf = (values: readonly string[]): Record<string, unknown> => ({ type: 'string', enum: [...values] });
const quoted = (values: readonly string[]): string => values.map((v) => `"${v}"`).join(', ');

/** Every setting, in the order errors and docs list them. */
export const SETTINGS: readonly SettingSpec[] = Object.freeze([
  setting(
    'host',
    'string',
    { type: 'string', minLength: 1 },
    'a non-empty host name or address',
    'Address to listen on. 127.0.0.1 keeps Hedgerow private to the box; 0.0.0.0 exposes it (put TLS and a firewall in front).',
  ),
  setting(
    'port',
    'integer',
    int(0, 65535),
    'an integer between 0 and 65535',
    'TCP port to listen on; 0 picks a free port. SDKs must be pointed at it.',
  ),
  setting(
    'dataDir',
    'string',
    { type: 'string', minLength: 1 },
    'a non-empty path',
    'Directory of the LMDB store, resolved against the working directory; keep it on a local disk. A new directory starts an empty store.',
  ),
  setting(
    'workers',
    'integer',
    int(0, 256),
    'an integer between 0 and 256 (0 = one per core)',
    'Worker threads that decode and validate captured events (and evaluate flags on the node:http backend); 0 = one per core. They start on demand and end after 30 s with nothing to do.',
  ),
  setting(
    'logLevel',
    'string',
    oneOf(LOG_LEVELS),
    `one of ${quoted(LOG_LEVELS)}`,
    'Lowest level logged; debug and trace add an access-log line per answered request (method, path, status, duration, sizes; never keys or bodies), at a small cost in throughput.',
  ),
  setting(
    'httpBackend',
    'string',
    oneOf(HTTP_BACKENDS),
    `one of ${quoted(HTTP_BACKENDS)}`,
    'HTTP front end: auto uses uWebSockets.js when its native addon loads, else node:http, which needs no native code but serves fewer requests per core.',
  ),
  setting(
    'httpThreads',
    'integer',
    int(0, 64),
    'an integer between 0 and 64 (0 = one per core)',
    "Front ends that serve HTTP with uWebSockets.js on the one port, each answering flag requests itself: the daemon's main thread and `N − 1` threads; 0 = one per core. Ignored by the node:http backend.",
  ),
  setting(
    'maxBodyBytes',
    'integer',
    int(1024),
    'an integer of at least 1024',
    'Largest request body accepted (decompressed payloads up to 5 times this). Lowering it makes large SDK batches fail with 413.',
  ),
  setting(
    'bodyIdleTimeoutMs',
    'integer',
    int(1000, 600000),
    'an integer between 1000 and 600000',
    'How long a request body may stall, no byte arriving, before the request is answered 408 and its connection closed.',
  ),
  setting(
    'sync',
    'string',
    oneOf(SYNC_MODES),
    `one of ${quoted(SYNC_MODES)}`,
    'durable: fsync every group commit (acknowledged events survive power loss); async: survives a daemon crash, not a machine crash; none: never synced, for benchmarks.',
  ),
  setting(
    'shutdownTimeoutMs',
    'integer',
    int(100),
    'an integer of at least 100',
    'How long shutdown waits for requests and commits in flight before closing.',
  ),
  setting(
    'tasksPerWorker',
    'integer',
    int(1, 64),
    'an integer between 1 and 64',
    'Tasks queued on each worker before earlier ones finish, so workers never idle between tasks. Higher raises memory and tail latency.',
  ),
  setting(
    'workerNice',
    'integer',
    int(0, 19),
    'an integer between 0 and 19',
    'How much lower the worker threads are scheduled than the rest of the daemon (a Linux nice value); 0 schedules all threads alike.',
  ),
  setting(
    'maxPersonBacklog',
    'integer',
    int(0, 100_000_000),
    'an integer between 0 and 100000000',
    'How many events the person processor may be behind before capture waits for it (0: never). Bounds how stale persons are under overload, at the cost of slower acknowledgements.',
  ),
  setting(
    'maxCaptureBytesInFlight',
    'integer',
    int(0, 2 ** 40),
    'an integer between 0 and 1099511627776',
    'Most bytes of capture requests held between arrival and answer; past it capture answers 503 and SDKs retry (0: no limit).',
  ),
  setting(
    'batchWindowMs',
    'number',
    { type: 'number', minimum: 0, maximum: 50 },
    'a number between 0 and 50',
    'How long the front end gathers requests into one worker task; 0 groups those of one event-loop turn. A larger window delays every acknowledgement by up to that much.',
  ),
  setting(
    'maxPropertyValues',
    'integer',
    int(1, 100000),
    'an integer between 1 and 100000',
    "Most values a list-valued property filter of a feature flag may hold (PostHog's MAX_PROPERTY_VALUES).",
  ),
  setting(
    'flagsTimeoutMs',
    'integer',
    int(1, 60000),
    'an integer between 1 and 60000',
    'Time budget of one /flags or /decide evaluation; past it the flags done by then are answered with errorsWhileComputingFlags: true.',
  ),
  setting(
    'retentionDays',
    'number',
    { type: 'number', minimum: 0, maximum: 36500 },
    'a number of days between 0 and 36500 (0.25 is six hours)',
    'Events received more than this many days ago (fractions allowed) are removed from the event log once persons have been applied from them; 0 keeps every event. Persons, groups, flags and usage rollups stay.',
  ),
  setting(
    'minFreeDiskBytes',
    'integer',
    int(0, 2 ** 50),
    'an integer between 0 and 1125899906842624',
    "Free space kept on the data directory's disk: below it capture answers 503 and /_readyz says why, so that the store never fills the disk (0: no reserve). The disk holds that much less data.",
  ),
  setting(
    'clusterNats',
    'string',
    { type: 'string', pattern: `^(|${NATS_URL}(\\s*,\\s*${NATS_URL})*)$` },
    'empty, or comma-separated nats://host:port URLs',
    'NATS JetStream servers of a cluster (nats://host:port, comma-separated); set, the node runs in cluster mode: captures are acknowledged once the cluster holds them, and every node applies every event and change. Empty: the embedded single-box mode.',
  ),
  setting(
    'nodeName',
    'string',
    { type: 'string', pattern: '^[A-Za-z0-9._-]{0,64}$' },
    'up to 64 letters, digits, ".", "_" or "-"',
    "This node's name in cluster mode (logs, metrics, the cluster's connection list); empty: the host name. Each node of a cluster needs its own.",
  ),
  setting(
    'clusterReplicas',
    'integer',
    int(1, 5),
    'an integer between 1 and 5',
    "Copies the NATS cluster keeps of Hedgerow's streams, set when they are created: 3 survives one server lost; each copy costs the events' size in disk on one more server.",
  ),
  setting(
    'clusterStreamMaxAgeHours',
    'number',
    { type: 'number', exclusiveMinimum: 0, maximum: 87600 },
    'a number of hours above 0, at most 87600',
    "How long the NATS cluster keeps events and changes, set when the streams are created: a node with an empty data directory catches up from the stream within it, or starts from another node's backup. Costs that much of the event stream's size on each NATS server.",
  ),
  setting(
    'clusterPublishTimeoutMs',
    'integer',
    int(100, 60000),
    'an integer between 100 and 60000',
    "How long a capture waits for the NATS cluster's acknowledgement before answering 503 (SDKs retry): a stream leader's election takes several seconds.",
  ),
  setting(
    'metricsAddress',
    'string',
    // A host name or IPv4 address, or an IPv6 address in brackets, then a port.
    { type: 'string', pattern: `^$|^(?:\\[[0-9A-Fa-f:.]+\\]|[^\\s:/\\[\\]]+):${PORT_TEXT}$` },
    'empty, or host:port with a port between 0 and 65535 (an IPv6 address in brackets: [::1]:9464)',
    'Address (host:port, e.g. 127.0.0.1:9464) where GET /metrics is served on its own, and the main port answers /metrics with 404, so a public port need not expose it. Empty: /metrics is served on the main port.',
  ),
  setting(
    'bootstrap.projectApiKey',
    'string',
    { type: 'string', pattern: `^(?!phx_)${CARRIED_KEY_CHARS}{1,${MAX_CARRIED_KEY_CHARS}}$` },
    'a project API key: 1 to 200 characters, no whitespace or control characters, not starting with "phx_"',
    'Project API key given to project 1 on first start, instead of a generated one: any key a PostHog project holds (phc_… or older forms). Public by design: SDKs embed it.',
  ),
  setting(
    'bootstrap.personalApiKey',
    'string',
    { type: 'string', pattern: `^phx_${CARRIED_KEY_CHARS}{1,${MAX_CARRIED_KEY_CHARS - 4}}$` },
    'a personal API key: "phx_" then up to 196 characters, no whitespace or control characters',
    'Personal API key (phx_…) given to the admin user on first start, instead of a generated one: a key carried over from PostHog works as given. A secret: prefer the environment to the command line.',
    true,
  ),
]);

/**
 * The project's own `HEDGEROW_*` variables that are not settings, so a start does not warn about
 * them: the single binary's cache directory and its build's staging (src/binary/), and the test
 * tooling's browser, nats-server and posthog-js overrides.
 */
export const OTHER_ENV_NAMES: readonly string[] = Object.freeze([
  'HEDGEROW_CACHE_DIR',
  'HEDGEROW_SEA_STAGE',
  'HEDGEROW_SEA_DEBUG',
  'HEDGEROW_CHROMIUM',
  'HEDGEROW_NATS_SERVER',
  'HEDGEROW_POSTHOG_JS_DIR',
]);

/** Completes "must be …" for the `bootstrap` object itself. */
export const BOOTSTRAP_EXPECT = 'an object with optional projectApiKey and personalApiKey';

function buildSchema(): Record<string, unknown> {
  const top: Record<string, unknown> = {};
  const nested: Record<string, unknown> = {};
  for (const s of SETTINGS) {
    if (s.path.startsWith('bootstrap.')) nested[s.path.slice('bootstrap.'.length)] = s.schema;
    else top[s.path] = s.schema;
  }
  return {
    type: 'object',
    properties: { ...top, bootstrap: { type: 'object', properties: nested, additionalProperties: false } },
    required: Object.keys(top),
    additionalProperties: false,
  };
}

/**
 * JSON schema of the merged settings, before workers and dataDir are resolved; load-config.ts
 * checks with the validator scripts/build-schemas.mjs compiles from it (config.validate.ts).
 * @public (read by that script, which knip does not follow)
 */
export const CONFIG_SCHEMA: Readonly<Record<string, unknown>> = Object.freeze(buildSchema());

/**
 * The configuration: its TypeScript shape, one entry per setting (how it is named in the
 * environment and on the command line, what it accepts, what it does and what changing it
 * costs), and the JSON schema built from those entries. Defaults live in config/default.json;
 * src/config/load-config.ts merges, validates and freezes.
 */

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
  /** What it does and the cost of changing it (the README table is written from these). */
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

const int = (minimum: number, maximum?: number): Record<string, unknown> =>
  maximum === undefined ? { type: 'integer', minimum } : { type: 'integer', minimum, maximum };
const oneOf = (values: readonly string[]): Record<string, unknown> => ({ type: 'string', enum: [...values] });
const quoted = (values: readonly string[]): string => values.map((v) => `"${v}"`).join(', ');

/** Every setting, in the order errors and docs list them. */
export const SETTINGS: readonly SettingSpec[] = Object.freeze([
  setting('host', 'string', { type: 'string', minLength: 1 }, 'a non-empty host name or address',
    'Address to listen on. 127.0.0.1 keeps Hedgerow private to the box; 0.0.0.0 exposes it, so put TLS and a firewall in front.'),
  setting('port', 'integer', int(0, 65535), 'an integer between 0 and 65535',
    'TCP port to listen on; 0 picks a free port (tests). Ports below 1024 need privileges; SDKs must be pointed at the new port.'),
  setting('dataDir', 'string', { type: 'string', minLength: 1 }, 'a non-empty path',
    'Directory of the LMDB environment, resolved against the working directory. Changing it starts from an empty store unless the files move too; keep it on a local disk (LMDB needs mmap and file locks).'),
  setting('workers', 'integer', int(0, 256), 'an integer between 0 and 256 (0 = one per core)',
    'Worker threads for decoding and validating captured events (and for flag evaluation on the node:http backend); 0 = one per core. More than the cores adds memory and context switches, fewer leaves cores idle under load.'),
  setting('logLevel', 'string', oneOf(LOG_LEVELS), `one of ${quoted(LOG_LEVELS)}`,
    'Lowest level logged. debug and trace log per request and cost throughput; hot paths never log per event.'),
  setting('httpBackend', 'string', oneOf(HTTP_BACKENDS), `one of ${quoted(HTTP_BACKENDS)}`,
    'HTTP front end: auto uses uWebSockets.js when its native addon loads, else node:http. node:http needs no native code but serves far fewer requests per core.'),
  setting('httpThreads', 'integer', int(0, 64), 'an integer between 0 and 64 (0 = one per core)',
    'Threads that serve HTTP with uWebSockets.js, all on the one port (the kernel spreads connections over them); 0 = one per core. Each answers /flags, /decide and the flag definitions polls itself from its own handle on the store and hands every other request to the daemon\'s thread. More threads than cores add memory and context switches. With port 0 (tests) one thread serves: uWS shares only a port given by number. The node:http backend always serves from the daemon\'s thread.'),
  setting('maxBodyBytes', 'integer', int(1024), 'an integer of at least 1024',
    'Largest request body accepted on the wire (the decompressed limit is 5x this); PostHog uses 20 MiB. Raising it raises memory per request in flight; lowering it makes large SDK batches fail with 413.'),
  setting('bodyIdleTimeoutMs', 'integer', int(1000, 600000), 'an integer between 1000 and 600000',
    'How long a request body may stall, no byte arriving, before the request is answered 408 and its connection closed (a body may arrive as slowly as it likes otherwise, within 300 s in all). Longer keeps connections of stalled clients open longer; shorter cuts clients on bad networks.'),
  setting('sync', 'string', oneOf(SYNC_MODES), `one of ${quoted(SYNC_MODES)}`,
    'durable: fsync on every group commit, acknowledged events survive power loss. async: the OS flushes later, survives a daemon crash but not a machine crash. none: never synced, for benchmarks only.'),
  setting('shutdownTimeoutMs', 'integer', int(100), 'an integer of at least 100',
    'How long shutdown waits for requests and commits in flight. Too short cuts off unacknowledged requests (clients retry them); too long delays restarts.'),
  setting('tasksPerWorker', 'integer', int(1, 64), 'an integer between 1 and 64',
    'Tasks handed to each worker before earlier ones finish, so a worker never idles waiting for the main thread between tasks (measured on /batch/: 1 → 151k, 2 → 165k, 8 → 210k events/s). Higher raises memory and tail latency.'),
  setting('workerNice', 'integer', int(0, 19), 'an integer between 0 and 19',
    'How much lower the worker threads are scheduled than the rest of the daemon (Linux nice values, added to the daemon\'s own). Under full load the front end and the person processor then run first, so ingestion slows towards what the box can also apply to persons (measured with saturating load before HEDGEROW_MAX_PERSON_BACKLOG existed: 10 took the processing lag p99 from 4.9 s to 1.7 s, but /batch/ from 144k to 94k events/s and /flags alone from 13–15k to 12k req/s, whose workers then wait behind the front end). The backlog limit bounds the lag without that cost; 0 schedules all threads alike, and idle cores are used either way.'),
  setting('maxPersonBacklog', 'integer', int(0, 100_000_000), 'an integer between 0 and 100000000',
    'How many ingested events the person processor may be behind before capture waits for it (0: never). From a quarter of it capture runs one worker task at a time, past it none, until the processor catches up: under sustained overload capture slows to what the box can also apply to persons and the processing lag stays bounded, while clients wait longer for acknowledgements (measured with saturating /batch/ load of the persons scenario: lag p99 0.20–0.23 s with 107–114k events/s processed; throttling from half of 5,000 instead left 16–20% of the CPU idle, 90–100k; with 0 the lag grows for as long as the overload lasts, past 5 s in 10 s). Raising it lets bursts in faster and flags see new person properties later; a large import runs at the processor\'s pace. Small uncompressed requests handled on the main thread never wait (one thread of them cannot outrun the processor).'),
  setting('maxCaptureBytesInFlight', 'integer', int(0, 2 ** 40), 'an integer between 0 and 1099511627776',
    'Most bytes of capture requests (their decoded size) between arrival and answer, waiting for a worker, in one or waiting for their commit (0: no limit). Past it a capture is answered 503 (SDKs retry) instead of waiting in memory: a slow or stalled disk, or a person processor held past its backlog limit, otherwise lets memory grow with every request that arrives. A request alone is always taken, whatever its size. Normal load holds a few MB.'),
  setting('batchWindowMs', 'number', { type: 'number', minimum: 0, maximum: 50 }, 'a number between 0 and 50',
    'How long the front end gathers requests into one worker task. 0 groups the requests that arrive in the same event-loop turn (no added latency; groups grow under load). A larger window amortizes the ~40 µs pool round trip over more requests but delays every acknowledgement by up to that much.'),
  setting('maxPropertyValues', 'integer', int(1, 100000), 'an integer between 1 and 100000',
    'Most values a list-valued property filter of a feature flag may hold (PostHog\'s MAX_PROPERTY_VALUES, 1000; its own tests use 10). Larger lists cost memory and time in every evaluation of the flag.'),
  setting('flagsTimeoutMs', 'integer', int(1, 60000), 'an integer between 1 and 60000',
    'Time budget of a /flags or /decide evaluation. Past it the evaluation stops and the flags done by then are answered, with errorsWhileComputingFlags: true (SDKs keep their cached values for the others), as PostHog answers a partial failure. Pool workers stop at half of it; a request still waiting for a worker at the full budget is answered without flags.'),
  setting('bootstrap.projectApiKey', 'string', { type: 'string', pattern: '^phc_[A-Za-z0-9_-]{10,60}$' },
    'a project API key: "phc_" then 10 to 60 letters, digits, "_" or "-"',
    'Project API key (phc_…) given to project 1 on first start (empty data directory), instead of a generated one. Public by design: SDKs embed it.'),
  setting('bootstrap.personalApiKey', 'string', { type: 'string', pattern: '^phx_[A-Za-z0-9_-]{10,80}$' },
    'a personal API key: "phx_" then 10 to 80 letters, digits, "_" or "-"',
    'Personal API key (phx_…) given to the admin user on first start, instead of a generated one. A secret: prefer the environment to the command line, where ps shows it.',
    true),
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

/** JSON schema of the merged settings, before workers and dataDir are resolved. */
export const CONFIG_SCHEMA: Readonly<Record<string, unknown>> = Object.freeze(buildSchema());

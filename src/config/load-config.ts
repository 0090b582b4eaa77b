/**
 * Loads the configuration once at boot: the defaults file, then HEDGEROW_* environment
 * variables, then command-line flags. Validates the merge once with its JSON schema (an Ajv validator
 * compiled at build time: config.validate.ts, from scripts/build-schemas.mjs) and throws one
 * ConfigError naming every bad setting the way the user set it; returns a deep-frozen Config,
 * and (loadConfigWithWarnings) a warning for each HEDGEROW_* variable that is no setting.
 */

import { readFileSync, existsSync } from 'node:fs';
import { availableParallelism, hostname } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ErrorObject } from 'ajv';
import validateGenerated from './config.validate.js';
import { BOOTSTRAP_EXPECT, OTHER_ENV_NAMES, SETTINGS, type Config, type SettingSpec } from './schema.js';
import { nearestNames } from '../util/nearest-names.js';
import { isPlainObject } from '../util/plain-object.js';

interface CompiledValidator {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}
/** CONFIG_SCHEMA's validator, with every error (`allErrors`), precompiled by scripts/build-schemas.mjs. */
const validateConfig = validateGenerated as unknown as CompiledValidator;

/** Upper bounds of `workers` and `httpThreads` once 0 is resolved to the core count. */
const MAX_WORKERS = 256;
const MAX_HTTP_THREADS = 64;

export interface LoadConfigOptions {
  /** Parsed flag values keyed by field name (or commander's camelCase); undefined = not given. */
  flags?: Record<string, unknown>;
  /** Defaults to process.env. Empty variables count as unset. */
  env?: NodeJS.ProcessEnv;
  /** Defaults to config/default.json in the package root. */
  defaultsPath?: string;
}

/** Every problem found in the configuration, one line each. */
export class ConfigError extends Error {
  readonly code = 'HR_CONFIG_INVALID';
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    const n = problems.length;
    super(`invalid configuration (${n} problem${n === 1 ? '' : 's'}):\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
    this.problems = Object.freeze([...problems]);
  }
}

/** Where a setting's value came from, to name it the way the user set it. */
type Origin = { from: 'file'; raw: unknown } | { from: 'env'; raw: string } | { from: 'flag'; raw: unknown };

type Json = Record<string, unknown>;

const INTEGER = /^[+-]?\d+$/;
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

export function loadConfig(opts: LoadConfigOptions = {}): Readonly<Config> {
  return loadConfigWithWarnings(opts).config;
}

export interface LoadedConfig {
  config: Readonly<Config>;
  /** One line per `HEDGEROW_*` variable Hedgerow does not know (a typo goes unnoticed otherwise). */
  warnings: readonly string[];
}

/** loadConfig, with the warnings a start should show; the warnings never stop a start. */
export function loadConfigWithWarnings(opts: LoadConfigOptions = {}): LoadedConfig {
  const env = opts.env ?? process.env;
  const flags = opts.flags ?? {};
  const defaultsPath = opts.defaultsPath ?? join(findPackageRoot(), 'config', 'default.json');
  const fileLabel = opts.defaultsPath ?? 'config/default.json';

  const merged = readDefaults(defaultsPath, fileLabel);
  const origins = new Map<string, Origin>([['bootstrap', { from: 'file', raw: merged['bootstrap'] }]]);
  for (const s of SETTINGS) {
    const fromFile = getPath(merged, s.path);
    if (fromFile !== undefined) origins.set(s.path, { from: 'file', raw: fromFile });

    const fromEnv = env[s.env];
    if (fromEnv !== undefined && fromEnv !== '') {
      setPath(merged, s.path, coerce(s, fromEnv));
      origins.set(s.path, { from: 'env', raw: fromEnv });
    }

    const fromFlag = flagValue(flags, s);
    if (fromFlag !== undefined) {
      setPath(merged, s.path, typeof fromFlag === 'string' ? coerce(s, fromFlag) : fromFlag);
      origins.set(s.path, { from: 'flag', raw: fromFlag });
    }
  }

  if (!validateConfig(merged)) {
    throw new ConfigError(describeErrors(validateConfig.errors ?? [], origins, fileLabel));
  }
  return { config: deepFreeze(resolveConfig(merged as unknown as Config)), warnings: unknownEnvWarnings(env) };
}

const KNOWN_ENV_NAMES: readonly string[] = [...SETTINGS.map((s) => s.env), ...OTHER_ENV_NAMES];

/**
 * A warning for each set (non-empty) variable named like Hedgerow's (`HEDGEROW_`, any case) that is neither a
 * setting nor one of the project's other variables, naming the nearest known one when it is close
 * (at most 2 edits: `HEDGEROW_PROT` → `HEDGEROW_PORT`).
 */
export function unknownEnvWarnings(env: NodeJS.ProcessEnv): string[] {
  const out: string[] = [];
  for (const name of Object.keys(env).sort()) {
    if (!name.toUpperCase().startsWith('HEDGEROW_') || KNOWN_ENV_NAMES.includes(name) || !env[name]) continue;
    const [near] = nearestNames(name.toUpperCase(), KNOWN_ENV_NAMES);
    out.push(`unknown environment variable ${name}${near === undefined ? '' : ` (did you mean ${near}?)`}; it is ignored`);
  }
  return out;
}

/** Walks up from this module (src/config/ or dist/src/config/) to the directory holding package.json. */
export function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new ConfigError(['cannot find the package root (no package.json above the config module)']);
    dir = parent;
  }
}

/** The defaults file's values by setting path (`--help` shows them); an unreadable file gives none. */
export function defaultValues(): ReadonlyMap<string, unknown> {
  const out = new Map<string, unknown>();
  let file: Json;
  try {
    file = readDefaults(join(findPackageRoot(), 'config', 'default.json'), 'config/default.json');
  } catch {
    return out;
  }
  for (const s of SETTINGS) {
    const value = getPath(file, s.path);
    if (value !== undefined) out.set(s.path, value);
  }
  return out;
}

function readDefaults(path: string, label: string): Json {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new ConfigError([`${label}: cannot read defaults: ${(err as Error).message}`]);
  }
  if (!isPlainObject(parsed)) throw new ConfigError([`${label}: must hold a JSON object`]);
  const out: Json = { ...parsed };
  out['bootstrap'] = isPlainObject(parsed['bootstrap']) ? { ...parsed['bootstrap'] } : (parsed['bootstrap'] ?? {});
  return out;
}

/** A flag given as `bootstrapProjectApiKey`, as `projectApiKey` inside `bootstrap`, or by field name. */
function flagValue(flags: Record<string, unknown>, s: SettingSpec): unknown {
  const direct = flags[s.flagKey];
  if (direct !== undefined || !s.path.startsWith('bootstrap.')) return direct;
  const nested = flags['bootstrap'];
  return isPlainObject(nested) ? nested[s.path.slice('bootstrap.'.length)] : undefined;
}

/**
 * Strict: the whole string must be a number of the right kind, else it stays a string and fails
 * validation. A choice among names (log level, backend, sync) is read in any case.
 */
function coerce(s: SettingSpec, raw: string): unknown {
  if (s.kind === 'integer' && INTEGER.test(raw)) return Number(raw);
  if (s.kind === 'number' && NUMBER.test(raw)) return Number(raw);
  if (Array.isArray(s.schema['enum'])) return raw.toLowerCase();
  return raw;
}

function describeErrors(errors: readonly ErrorObject[], origins: Map<string, Origin>, fileLabel: string): string[] {
  const problems = new Map<string, string>();
  for (const e of errors) {
    const at = e.instancePath.split('/').slice(1).map(unescapePointer);
    const params = e.params as { missingProperty?: string; additionalProperty?: string };
    if (e.keyword === 'additionalProperties' && params.additionalProperty !== undefined) {
      const path = [...at, params.additionalProperty].join('.');
      problems.set(path, `${fileLabel}: ${path}: unknown setting`);
      continue;
    }
    const missing = e.keyword === 'required' && params.missingProperty !== undefined;
    const path = missing ? [...at, params.missingProperty].join('.') : at.join('.');
    if (problems.has(path)) continue;
    const spec = SETTINGS.find((s) => s.path === path);
    const expect = spec?.expect ?? (path === 'bootstrap' ? BOOTSTRAP_EXPECT : (e.message ?? 'valid'));
    problems.set(path, `${subject(path, spec, origins.get(path), fileLabel)}: must be ${expect}`);
  }
  const rank = (path: string): number => {
    const i = SETTINGS.findIndex((s) => s.path === path);
    return i === -1 ? SETTINGS.length : i;
  };
  return [...problems.entries()].sort((a, b) => rank(a[0]) - rank(b[0])).map(([, line]) => line);
}

function subject(path: string, spec: SettingSpec | undefined, origin: Origin | undefined, fileLabel: string): string {
  const shown = (raw: unknown): string => (spec?.secret ? '(value hidden)' : show(raw));
  if (spec && origin?.from === 'env') return `${spec.env}=${shown(origin.raw)}`;
  if (spec && origin?.from === 'flag') return `${spec.flag}=${shown(origin.raw)}`;
  return origin === undefined ? `${fileLabel}: ${path} (missing)` : `${fileLabel}: ${path}=${shown(origin.raw)}`;
}

function show(raw: unknown): string {
  const text = JSON.stringify(raw) ?? String(raw);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function unescapePointer(part: string): string {
  return part.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** workers and httpThreads 0 → one per core; dataDir → absolute. Copies only known fields. */
function resolveConfig(c: Config): Config {
  const bootstrap: { projectApiKey?: string; personalApiKey?: string } = {};
  if (c.bootstrap.projectApiKey !== undefined) bootstrap.projectApiKey = c.bootstrap.projectApiKey;
  if (c.bootstrap.personalApiKey !== undefined) bootstrap.personalApiKey = c.bootstrap.personalApiKey;
  return {
    host: c.host,
    port: c.port,
    dataDir: resolve(c.dataDir),
    workers: c.workers === 0 ? Math.min(MAX_WORKERS, availableParallelism()) : c.workers,
    logLevel: c.logLevel,
    httpBackend: c.httpBackend,
    httpThreads: c.httpThreads === 0 ? Math.min(MAX_HTTP_THREADS, availableParallelism()) : c.httpThreads,
    maxBodyBytes: c.maxBodyBytes,
    bodyIdleTimeoutMs: c.bodyIdleTimeoutMs,
    sync: c.sync,
    shutdownTimeoutMs: c.shutdownTimeoutMs,
    tasksPerWorker: c.tasksPerWorker,
    workerNice: c.workerNice,
    maxPersonBacklog: c.maxPersonBacklog,
    maxCaptureBytesInFlight: c.maxCaptureBytesInFlight,
    batchWindowMs: c.batchWindowMs,
    maxPropertyValues: c.maxPropertyValues,
    flagsTimeoutMs: c.flagsTimeoutMs,
    retentionDays: c.retentionDays,
    minFreeDiskBytes: c.minFreeDiskBytes,
    clusterNats: c.clusterNats,
    nodeName:
      c.nodeName === ''
        ? hostname()
            .replace(/[^A-Za-z0-9._-]/g, '-')
            .slice(0, 64)
        : c.nodeName,
    clusterReplicas: c.clusterReplicas,
    clusterStreamMaxAgeHours: c.clusterStreamMaxAgeHours,
    clusterPublishTimeoutMs: c.clusterPublishTimeoutMs,
    metricsAddress: c.metricsAddress,
    bootstrap,
  };
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

function getPath(obj: Json, path: string): unknown {
  const [head, tail] = splitPath(path);
  if (tail === undefined) return obj[head];
  const inner = obj[head];
  return isPlainObject(inner) ? inner[tail] : undefined;
}

function setPath(obj: Json, path: string, value: unknown): void {
  const [head, tail] = splitPath(path);
  if (tail === undefined) {
    obj[head] = value;
    return;
  }
  const inner = obj[head];
  if (isPlainObject(inner)) inner[tail] = value;
  else if (inner === undefined) obj[head] = { [tail]: value };
  // A non-object `bootstrap` in the file stays as is, so validation reports it against the file.
}

function splitPath(path: string): [string, string | undefined] {
  const dot = path.indexOf('.');
  return dot === -1 ? [path, undefined] : [path.slice(0, dot), path.slice(dot + 1)];
}

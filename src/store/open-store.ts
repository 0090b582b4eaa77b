/**
 * Opens the LMDB environment under the data directory with its named databases, and runs
 * forward migrations. Every thread (main, workers) and every process (daemon, `hedgerow admin`)
 * opens the same environment this way; LMDB serializes their writes.
 */
import { chmodSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { open, type Database, type DatabaseOptions, type RootDatabase, type RootDatabaseOptionsWithPath } from 'lmdb';
import type { SyncMode } from '../config/schema.js';
import { jsonValueEncoder } from './json-values.js';
import { checkStoreFile } from './store-file-check.js';

/** Bumped when the on-disk layout changes; `migrate` moves older directories forward. */
export const SCHEMA_VERSION = 4;

export interface StoreDatabases {
  readonly root: RootDatabase;
  /** `[ingest µs, writer id, counter]` → msgpack-encoded StoredEvent (we encode it ourselves). */
  readonly events: Database<Buffer, EventKey>;
  /** String keys → small records: schema version, id counters, cursors. */
  readonly meta: Database<unknown, string>;
  /** String keys (`project:1`, `project_token:phc_…`, `pak:<sha256>`, …) → auth records. */
  readonly auth: Database<unknown, string>;
  /** Feature flags: `['flag', project, id]` → record, `['flag_key', project, key]` → id of the live flag with that key. */
  readonly flags: Database<unknown, StoreKey>;
  /** Activity log: `['log', project, seq]` → entry, `['item', project, scope, item id, seq]` → null (per-item index). */
  readonly activity: Database<unknown, StoreKey>;
  /** Roles, role memberships, organization resource access and flag role access records. */
  readonly rbac: Database<unknown, StoreKey>;
  /** Dashboards (a flag's usage dashboard): `['dashboard', project, id]` → record. */
  readonly dashboards: Database<unknown, StoreKey>;
  /** `[project, person id]` → PersonRecord (written by the person processor). */
  readonly persons: Database<unknown, StoreKey>;
  /** `[project, distinct id]` → person id. */
  readonly distinctIds: Database<unknown, StoreKey>;
  /** `[project, person id, distinct id]` → null: the reverse of `distinctIds`, kept in the same transactions. */
  readonly personDistinctIds: Database<unknown, StoreKey>;
  /** `[project, group type index, group key]` → GroupRecord. */
  readonly groups: Database<unknown, StoreKey>;
  /** `[project, group type name]` → group type index (0–4). */
  readonly groupTypes: Database<unknown, StoreKey>;
  /** `[project, person id, flag key]` → hash key (experience continuity). */
  readonly hashKeyOverrides: Database<unknown, StoreKey>;
  /** Per-day rollups of the usage dashboards' events (src/store/usage-rollups.ts). */
  readonly usageRollups: Database<unknown, StoreKey>;
}

/** Composite keys (ordered-binary sorts arrays element by element, numbers numerically). */
export type StoreKey = string | number | (string | number)[];

export type EventKey = [number, number, number];

export interface OpenStoreOptions {
  dataDir: string;
  sync: SyncMode;
  /** Open read-only (export, listing from the CLI while the daemon runs). */
  readOnly?: boolean;
}

/**
 * Persons and groups hold free-form property maps, stored as JSON text (json-values.ts), which
 * decodes about twice as fast as msgpack. Values written as msgpack by earlier versions still read.
 */
function jsonValues(): DatabaseOptions {
  // A fresh object per database: lmdb-js keeps state on the options it is given. (It takes
  // `encoder` per database; its typings list it on the root options only.)
  return { keyEncoding: 'ordered-binary', encoder: jsonValueEncoder() } as DatabaseOptions;
}

/** The data file's name in the data directory. */
export const STORE_FILE = 'hedgerow.mdb';

export function openStore(opts: OpenStoreOptions): StoreDatabases {
  mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(opts.dataDir, STORE_FILE);
  const created = checkStoreFile(file) === 'absent';
  const options: RootDatabaseOptionsWithPath & { noReadAhead?: boolean } = {
    path: file,
    maxDbs: 32,
    // 1 TiB of address space: LMDB only maps it, the file grows as data is written.
    mapSize: 2 ** 40,
    noSync: opts.sync === 'none',
    // 'async': acknowledge at commit (visible to all readers), flush to disk right after.
    separateFlushed: opts.sync === 'async',
    readOnly: opts.readOnly ?? false,
    // Appends and point reads gain nothing from read-ahead; without it fewer file pages are
    // mapped into the process (measured: ~20% less file-backed memory after a benchmark).
    // (lmdb-js supports the option; its typings do not list it.)
    noReadAhead: true,
  };
  const root = open(options);
  // LMDB creates its files readable by all (0644) in a directory that may be too: they hold the
  // project tokens and secrets, so a new store is its owner's alone, as the directory is when
  // Hedgerow makes it (and as under the systemd unit's UMask=0077).
  if (created) for (const f of [file, `${file}-lock`]) chmodIfPresent(f, 0o600);
  const dbs: StoreDatabases = {
    root,
    // LZ4 in lmdb-js's write thread: blocks shrink several times, so commits write and map less
    // (measured: file-backed memory after the benchmark 418 → 215 MiB; throughput unchanged).
    // A data directory must always be opened with the same setting.
    events: root.openDB<Buffer, EventKey>('events', {
      encoding: 'binary',
      keyEncoding: 'ordered-binary',
      compression: true,
    }),
    meta: root.openDB<unknown, string>('meta', { encoding: 'msgpack', keyEncoding: 'ordered-binary' }),
    auth: root.openDB<unknown, string>('auth', { encoding: 'msgpack', keyEncoding: 'ordered-binary' }),
    flags: root.openDB<unknown, StoreKey>('flags', { encoding: 'msgpack', keyEncoding: 'ordered-binary' }),
    activity: root.openDB<unknown, StoreKey>('activity', { encoding: 'msgpack', keyEncoding: 'ordered-binary' }),
    rbac: root.openDB<unknown, StoreKey>('rbac', { encoding: 'msgpack', keyEncoding: 'ordered-binary' }),
    dashboards: root.openDB<unknown, StoreKey>('dashboards', { encoding: 'msgpack', keyEncoding: 'ordered-binary' }),
    persons: root.openDB<unknown, StoreKey>('persons', jsonValues()),
    distinctIds: root.openDB<unknown, StoreKey>('distinct_ids', { encoding: 'msgpack', keyEncoding: 'ordered-binary' }),
    personDistinctIds: root.openDB<unknown, StoreKey>('person_distinct_ids', {
      encoding: 'msgpack',
      keyEncoding: 'ordered-binary',
    }),
    groups: root.openDB<unknown, StoreKey>('groups', jsonValues()),
    groupTypes: root.openDB<unknown, StoreKey>('group_types', { encoding: 'msgpack', keyEncoding: 'ordered-binary' }),
    hashKeyOverrides: root.openDB<unknown, StoreKey>('hash_key_overrides', {
      encoding: 'msgpack',
      keyEncoding: 'ordered-binary',
    }),
    usageRollups: root.openDB<unknown, StoreKey>('usage_rollups', { encoding: 'msgpack', keyEncoding: 'ordered-binary' }),
  };
  if (opts.readOnly) refuseNewerSchema(dbs.meta.get('schema_version') as number | undefined);
  else migrate(dbs);
  return dbs;
}

function chmodIfPresent(file: string, mode: number): void {
  try {
    chmodSync(file, mode);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/** A store written by a newer Hedgerow than this one. */
export class NewerSchemaError extends Error {
  constructor(found: number) {
    super(`data directory has schema version ${found}, newer than this Hedgerow (${SCHEMA_VERSION}); upgrade Hedgerow`);
    this.name = 'NewerSchemaError';
  }
}

/** A directory written by a newer Hedgerow may hold what this one misreads: refused, for reading too. */
function refuseNewerSchema(found: number | undefined): void {
  if (found !== undefined && found > SCHEMA_VERSION) throw new NewerSchemaError(found);
}

function migrate(dbs: StoreDatabases): void {
  // A current store is not written to: opening it commits nothing (a command that only reads, on
  // a full disk, writes nothing either). Anything else is looked at again inside the transaction.
  if (dbs.meta.get('schema_version') === SCHEMA_VERSION) return;
  dbs.root.transactionSync(() => {
    const found = dbs.meta.get('schema_version') as number | undefined;
    if (found === undefined) {
      dbs.meta.putSync('schema_version', SCHEMA_VERSION);
      return;
    }
    refuseNewerSchema(found);
    // Forward migrations, one step per version.
    if (found < 2) {
      // v2: users carry their organization membership level (PostHog's member 1 / admin 8 / owner 15).
      for (const { key, value } of dbs.auth.getRange({ start: 'user:', end: 'user;' })) {
        const user = value as { is_staff?: boolean; organization_level?: number };
        if (user.organization_level === undefined) {
          dbs.auth.putSync(key, { ...user, organization_level: user.is_staff ? 15 : 1 });
        }
      }
    }
    // v3: persons and groups are written as JSON text. The msgpack values already stored still read
    // (json-values.ts), so nothing is rewritten; the version keeps earlier Hedgerows, which cannot
    // read the new values, away from this directory.
    // v4: event-log blocks are one msgpack array with records (event-log.ts); blocks of plain maps
    // still read, and nothing is rewritten.
    dbs.meta.putSync('schema_version', SCHEMA_VERSION);
  });
}

/** Allocates the next id of a counter; call inside a write transaction. */
export function nextId(dbs: StoreDatabases, counter: string): number {
  const key = `counter:${counter}`;
  const next = ((dbs.meta.get(key) as number | undefined) ?? 0) + 1;
  dbs.meta.putSync(key, next);
  return next;
}

/** Makes sure a counter never hands out `id` again (after a record was created with an explicit id). */
export function bumpCounter(dbs: StoreDatabases, counter: string, id: number): void {
  const key = `counter:${counter}`;
  if (((dbs.meta.get(key) as number | undefined) ?? 0) < id) dbs.meta.putSync(key, id);
}

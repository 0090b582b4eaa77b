/**
 * Puts the flag scenarios' data in place: the 100,000 persons go straight into the daemon's LMDB
 * store before it starts (written when the benchmark was added, before person ingestion existed;
 * it is also much faster than ingesting them), in the layout flag evaluation reads;
 * the cohorts and the 50 flags go through the management API once it runs. Then it reads the
 * definitions ETag for the 304 scenario and checks, with a sample of `/flags` requests, that
 * evaluation sees the seeded persons.
 */
import { randomUUID } from 'node:crypto';
import { openStore } from '../src/store/open-store.js';
import type { PersonRecord } from '../src/store/person-store.js';
import { COHORTS, distinctIdOf, flagBodies, PERSONS, personProperties } from './flag-fixtures.js';
import { BENCH_API_KEY, BENCH_PERSONAL_API_KEY } from './payloads.js';

/** The project the daemon bootstraps on first start (writing its persons first is fine). */
const PROJECT_ID = 1;
/** Synchronous transactions of this many persons (lmdb-js's async `transaction()` hangs here). */
const PERSONS_PER_TRANSACTION = 20_000;
/** Persons the evaluation check asks about: enough to see every flag kind match and miss. */
const PROBE_PERSONS = 200;

export const FLAGS_PATH = '/flags/?v=2';
export const DEFINITIONS_PATH = `/flags/definitions?token=${BENCH_API_KEY}&send_cohorts`;

/**
 * Writes `count` persons (default PERSONS) and their distinct ids (both directions, as the person
 * processor keeps them) into the (stopped) daemon's data directory.
 */
export async function seedPersons(dataDir: string, count = PERSONS): Promise<{ persons: number; ms: number }> {
  const started = performance.now();
  const dbs = openStore({ dataDir, sync: 'durable' });
  try {
    const createdAt = Date.parse('2025-01-01T00:00:00Z');
    for (let from = 0; from < count; from += PERSONS_PER_TRANSACTION) {
      dbs.root.transactionSync(() => {
        for (let i = from; i < Math.min(count, from + PERSONS_PER_TRANSACTION); i++) {
          const id = i + 1;
          const record: PersonRecord = {
            id,
            uuid: randomUUID(),
            properties: personProperties(i),
            created_at: new Date(createdAt + i * 60_000).toISOString(),
            is_identified: i % 2 === 0,
            version: 0,
          };
          dbs.persons.putSync([PROJECT_ID, id], record);
          dbs.distinctIds.putSync([PROJECT_ID, distinctIdOf(i)], id);
          dbs.personDistinctIds.putSync([PROJECT_ID, id, distinctIdOf(i)], null);
        }
      });
    }
  } finally {
    await dbs.root.close();
  }
  return { persons: count, ms: performance.now() - started };
}

export interface Answer {
  status: number;
  headers: Headers;
  json: unknown;
  text: string;
}

interface CallOptions {
  body?: unknown;
  headers?: Record<string, string>;
}

export async function call(port: number, method: string, path: string, init: CallOptions = {}): Promise<Answer> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json, text };
}

export const AUTH = { authorization: `Bearer ${BENCH_PERSONAL_API_KEY}` };

/** POSTs to the management API and insists on 201: a flag the daemon refused would be a silent gap. */
async function create(port: number, path: string, body: Record<string, unknown>): Promise<number> {
  const r = await call(port, 'POST', path, { body, headers: AUTH });
  const id = (r.json as { id?: unknown } | undefined)?.id;
  if (r.status !== 201 || typeof id !== 'number') {
    throw new Error(`POST ${path} ${JSON.stringify(body).slice(0, 300)} answered ${r.status}: ${r.text.slice(0, 500)}`);
  }
  return id;
}

export interface FlagSetup {
  flags: number;
  cohorts: number;
  /** The ETag of DEFINITIONS_PATH, for If-None-Match. */
  etag: string;
  definitionsBytes: number;
  /** A `/flags` request body as bench/wrk/flags.lua sends it. */
  requestBytes: number;
  /** What the sample of `/flags` requests saw, in words. */
  probe: string;
}

/** Creates the cohorts and flags in the running daemon, reads the definitions ETag and checks evaluation. */
export async function createFlags(port: number): Promise<FlagSetup> {
  const cohortIds: number[] = [];
  for (const body of COHORTS) cohortIds.push(await create(port, `/api/projects/${PROJECT_ID}/cohorts/`, body));
  const bodies = flagBodies(cohortIds);
  for (const body of bodies) await create(port, `/api/projects/${PROJECT_ID}/feature_flags/`, body);

  const defs = await call(port, 'GET', DEFINITIONS_PATH, { headers: AUTH });
  const etag = defs.headers.get('etag');
  const served = defs.json as { flags?: unknown[]; cohorts?: Record<string, unknown> } | undefined;
  if (defs.status !== 200 || etag === null) {
    throw new Error(`GET ${DEFINITIONS_PATH} answered ${defs.status} (etag ${etag}): ${defs.text.slice(0, 500)}`);
  }
  const servedCohorts = Object.keys(served?.cohorts ?? {}).length;
  if (served?.flags?.length !== bodies.length || servedCohorts !== cohortIds.length) {
    throw new Error(
      `GET ${DEFINITIONS_PATH} served ${served?.flags?.length} flags and ${servedCohorts} cohorts; ` +
        `${bodies.length} and ${cohortIds.length} were created`,
    );
  }
  const again = await call(port, 'GET', DEFINITIONS_PATH, { headers: { ...AUTH, 'if-none-match': etag } });
  if (again.status !== 304) throw new Error(`GET ${DEFINITIONS_PATH} with If-None-Match ${etag} answered ${again.status}, not 304`);

  return {
    flags: bodies.length,
    cohorts: cohortIds.length,
    etag,
    definitionsBytes: Buffer.byteLength(defs.text),
    requestBytes: Buffer.byteLength(JSON.stringify({ token: BENCH_API_KEY, distinct_id: distinctIdOf(0) })),
    probe: await probeEvaluation(port, bodies.length),
  };
}

interface FlagAnswer {
  enabled: boolean;
  reason?: { code?: string };
}

/**
 * Asks `/flags` about PROBE_PERSONS seeded persons and one unknown id: every request must
 * answer every flag without errors, and the property and cohort flags must match some seeded
 * persons and not the unknown one. Otherwise the daemon does not read the seeded persons and the
 * benchmark would measure something else.
 */
async function probeEvaluation(port: number, flagCount: number): Promise<string> {
  const ask = async (distinctId: string) => {
    const r = await call(port, 'POST', FLAGS_PATH, { body: { token: BENCH_API_KEY, distinct_id: distinctId } });
    const body = r.json as { flags?: Record<string, FlagAnswer>; errorsWhileComputingFlags?: boolean } | undefined;
    if (r.status !== 200 || !body?.flags || body.errorsWhileComputingFlags !== false) {
      throw new Error(`POST ${FLAGS_PATH} for ${distinctId} answered ${r.status}: ${r.text.slice(0, 500)}`);
    }
    const n = Object.keys(body.flags).length;
    if (n !== flagCount) throw new Error(`POST ${FLAGS_PATH} for ${distinctId} answered ${n} flags, not ${flagCount}`);
    return body.flags;
  };
  const kinds = ['rollout', 'variant', 'property', 'cohort'] as const;
  type Kind = (typeof kinds)[number];
  const matched = Object.fromEntries(kinds.map((k) => [k, 0])) as Record<Kind, number>;
  const totals = { ...matched };
  let enabled = 0;
  for (let i = 0; i < PROBE_PERSONS; i++) {
    const flags = await ask(distinctIdOf(Math.floor((i * PERSONS) / PROBE_PERSONS)));
    for (const [key, f] of Object.entries(flags)) {
      const kind = kinds.find((k) => key.startsWith(`bench-${k}-`));
      if (!kind) continue;
      totals[kind]++;
      if (f.enabled) {
        matched[kind]++;
        enabled++;
      }
    }
  }
  const problems: string[] = [];
  for (const k of ['property', 'cohort'] as const) {
    if (matched[k] === 0) problems.push(`${k} flags never matched`);
    else if (matched[k] === totals[k]) problems.push(`${k} flags always matched`);
  }
  const unknown = await ask('not-a-seeded-person');
  const unknownMatches = Object.keys(unknown).filter((k) => unknown[k]?.enabled && /^bench-(property|cohort)-/.test(k));
  if (unknownMatches.length > 0) problems.push(`an unknown distinct id matched ${unknownMatches.join(', ')}`);
  if (problems.length > 0) throw new Error(`flag evaluation does not see the seeded persons as expected: ${problems.join('; ')}`);
  const pct = (k: Kind) => `${k} ${((100 * matched[k]) / (totals[k] || 1)).toFixed(0)}%`;
  const perRequest = (enabled / PROBE_PERSONS).toFixed(1);
  return `${PROBE_PERSONS} seeded persons: ${perRequest} of ${flagCount} flags enabled per request (${kinds.map(pct).join(', ')})`;
}

/**
 * A flag whose conditions need V8's backtracking engine (a back-reference), and callers holding
 * only the public project key who send a long property value for it: their requests must be
 * answered within the flags budget, and must not hold up other connections' `/flags` and
 * `/capture/` (in the tests' daemon one uWS thread serves every connection, so any time a hostile
 * request holds that thread is time every other request waits).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/api.js';
import { cleanupDaemons, useDaemon, type DaemonHandle } from '../helpers/daemon.js';
import { postJson, send } from '../helpers/http.js';

afterAll(cleanupDaemons);

const FLAGS = '/api/projects/1/feature_flags/';
/** HEDGEROW_FLAGS_TIMEOUT_MS's default. */
const BUDGET_MS = 2000;
const HEAVY_CLIENTS = 4;
/** Each load's time, in four slices alternating with the other's. */
const LOAD_MS = 2000;
/** Other clients' p99 latency under the hostile load, on a quiet 2-core machine (see below). */
const OTHERS_P99_MS = 50;

interface V2Body {
  flags: Record<string, { enabled: boolean; reason: { code: string } }>;
  errorsWhileComputingFlags: boolean;
}

const JSON_HEADERS = { 'content-type': 'application/json' };

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

async function timed<T>(f: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await f();
  return { ms: performance.now() - started, value };
}

interface Samples {
  heavy: number[];
  flags: number[];
  capture: number[];
}

const noSamples = (): Samples => ({ heavy: [], flags: [], capture: [] });

/** `heavy`, and a flag that an SDK's request (`email` at example.com) matches, for the other clients. */
async function createFlags(d: DaemonHandle, heavy: Record<string, unknown>): Promise<void> {
  const admin = apiClient(d, d.personalKey);
  const created = await admin.post(FLAGS, heavy);
  expect(created.status, created.text).toBe(201);
  const normal = await admin.post(FLAGS, {
    key: 'normal',
    filters: { groups: [{ properties: [{ key: 'email', type: 'person', operator: 'icontains', value: '@example.com' }] }] },
  });
  expect(normal.status, normal.text).toBe(201);
}

/**
 * HEAVY_CLIENTS clients sending `heavyBody` to /flags back to back for `loadMs`, while two other
 * clients send an SDK's /flags request and two a capture, each timed into `into`.
 */
async function underLoad(d: DaemonHandle, heavyBody: string, into: Samples, loadMs: number, onHeavy = (_: V2Body) => {}): Promise<void> {
  const normalBody = JSON.stringify({
    token: d.projectKey,
    distinct_id: 'someone',
    person_properties: { email: 'someone@example.com' },
  });
  const captureBody = JSON.stringify({
    api_key: d.projectKey,
    event: 'pageview',
    distinct_id: 'someone',
    properties: {},
  });
  const until = performance.now() + loadMs;
  const heavyClient = async () => {
    while (performance.now() < until) {
      const { ms, value } = await timed(() => send(d, '/flags/?v=2', { body: heavyBody, headers: JSON_HEADERS }));
      expect(value.status).toBe(200);
      into.heavy.push(ms);
      onHeavy(value.json as V2Body);
    }
  };
  const flagsClient = async () => {
    while (performance.now() < until) {
      const { ms, value } = await timed(() => send(d, '/flags/?v=2', { body: normalBody, headers: JSON_HEADERS }));
      expect(value.status).toBe(200);
      expect((value.json as V2Body).flags.normal?.enabled, value.text.slice(0, 200)).toBe(true);
      into.flags.push(ms);
    }
  };
  const captureClient = async () => {
    while (performance.now() < until) {
      const { ms, value } = await timed(() => send(d, '/capture/', { body: captureBody, headers: JSON_HEADERS }));
      expect(value.status).toBe(200);
      into.capture.push(ms);
    }
  };
  const heavy = Array.from({ length: HEAVY_CLIENTS }, heavyClient);
  await Promise.all([...heavy, flagsClient(), flagsClient(), captureClient(), captureClient()]);
}

function figures(s: Samples) {
  const round = (x: number) => Math.round(x * 10) / 10;
  const of = (ms: number[]) => ({
    n: ms.length,
    p50: round(percentile(ms, 50)),
    p99: round(percentile(ms, 99)),
    max: round(Math.max(...ms)),
  });
  return { heavy: of(s.heavy), flags: of(s.flags), capture: of(s.capture) };
}

/**
 * Measures other clients under the hostile load, and under the same volume of requests carrying a
 * value of the same size that no condition reads (what the volume alone costs), in alternating
 * slices so that both see the same machine, and checks the bounds. Other clients' p99 under the
 * hostile load: below 50 ms (15-31 ms measured on a 2-core machine at load ~2.5), or, where
 * the machine is too busy for that (at load 5-7 the harmless load alone gives 40-120 ms, and a
 * scheduler stall of a hundred ms hits either load), below three times the harmless load's p99.
 * Before each V8 search was bounded, it was seconds.
 */
async function checkOthersUnaffected(d: DaemonHandle, label: string, hostile: string, unread: string): Promise<V2Body[]> {
  // Compile the project's flags, and warm the daemon up, before measuring.
  expect((await send(d, '/flags/?v=2', { body: hostile, headers: JSON_HEADERS })).status).toBe(200);
  await underLoad(d, unread, noSamples(), 1000);
  const harmless = noSamples();
  const hostileSamples = noSamples();
  const answers: V2Body[] = [];
  for (let slice = 0; slice < 4; slice++) {
    await underLoad(d, unread, harmless, LOAD_MS / 4);
    await underLoad(d, hostile, hostileSamples, LOAD_MS / 4, (answer) => answers.push(answer));
  }
  const base = figures(harmless);
  const under = figures(hostileSamples);
  console.info(`${label} under load: ${JSON.stringify({ sameSizeUnread: base, hostile: under })}`);
  expect(under.heavy.max).toBeLessThan(BUDGET_MS);
  const bound = (kind: 'flags' | 'capture') => Math.max(OTHERS_P99_MS, 3 * base[kind].p99);
  expect(under.flags.p99, JSON.stringify(under)).toBeLessThan(bound('flags'));
  expect(under.capture.p99, JSON.stringify(under)).toBeLessThan(bound('capture'));
  return answers;
}

describe('a flag of back-reference conditions and a long value for them', () => {
  // Not `durable`: a capture's answer would wait for the disk's flush, whose latency on a shared
  // machine says nothing of the front-end thread's.
  const d = useDaemon({ backend: 'uws', env: { HEDGEROW_SYNC: 'async' } });
  const email = 'a'.repeat(60_000);
  const hostile = () => ({ token: d.projectKey, distinct_id: 'x', person_properties: { email } });

  beforeAll(async () => {
    // Twenty conditions with a back-reference (RE2 cannot run them), each searched in the value:
    // 1.5 s a request before each V8 search was bounded.
    const groups = Array.from({ length: 20 }, (_, i) => ({
      properties: [{ key: 'email', type: 'person', operator: 'regex', value: `^(a+)\\1+b${i}$` }],
      rollout_percentage: 100,
    }));
    await createFlags(d, { key: 'hostile', filters: { groups } });
  });

  it('is answered within the budget, and other connections are not held up', async () => {
    const unread = JSON.stringify({ token: d.projectKey, distinct_id: 'x', person_properties: { name: email } });
    const answers = await checkOthersUnaffected(d, 'back-references', JSON.stringify(hostile()), unread);
    // Each answer either correct (no condition can match a value without a `b`) or saying that
    // flags are missing.
    for (const answer of answers) {
      if (!answer.errorsWhileComputingFlags) expect(answer.flags.hostile?.enabled).toBe(false);
    }
  });

  it('is answered the same way by /decide and, for a body over 64 KiB, by the worker pool', async () => {
    const decide = await timed(() => postJson(d, '/decide/?v=3', hostile()));
    const padded = { ...hostile(), person_properties: { email, pad: 'p'.repeat(10_000) } };
    const pooled = await timed(() => postJson(d, '/flags/?v=2', padded));
    console.info(`hostile /decide: ${decide.ms.toFixed(0)} ms; in the pool: ${pooled.ms.toFixed(0)} ms`);
    // Well within the budget: a pool worker answers at half of it what it has done by then, and
    // before each V8 search was bounded both took 1.7-1.9 s.
    expect(decide.value.status).toBe(200);
    expect(decide.ms).toBeLessThan(BUDGET_MS / 2);
    expect((decide.value.json as { featureFlags: Record<string, unknown> }).featureFlags.hostile ?? false).toBe(false);
    expect(pooled.value.status).toBe(200);
    expect(pooled.ms).toBeLessThan(BUDGET_MS / 2);
    expect((pooled.value.json as V2Body).flags.hostile?.enabled ?? false).toBe(false);
  });
});

describe('a flag of a thousand lookaround conditions and a value each of them searches', () => {
  const d = useDaemon({ backend: 'uws', env: { HEDGEROW_SYNC: 'async' } });

  beforeAll(async () => {
    // `(?=a*a*b…)` on 1,000 `a`s: each search is run (values up to 1,024 characters always are)
    // and takes ~0.6 ms, as V8 does not count a greedy loop's steps back; 1,000 of them would
    // hold the thread for ~0.6 s without the evaluation's 5 ms allowance.
    const groups = Array.from({ length: 1000 }, (_, i) => ({
      properties: [{ key: 'email', type: 'person', operator: 'regex', value: `(?=a*a*b${i})` }],
      rollout_percentage: 100,
    }));
    await createFlags(d, { key: 'lookarounds', filters: { groups } });
  });

  it('stops once the allowance is spent: answered at once, the flag left out, errorsWhileComputingFlags', async () => {
    const body = { token: d.projectKey, distinct_id: 'x', person_properties: { email: 'a'.repeat(1000) } };
    await postJson(d, '/flags/?v=2', body); // compiles the patterns (not charged)
    for (let i = 0; i < 3; i++) {
      const answer = await timed(() => postJson(d, '/flags/?v=2', body));
      expect(answer.value.status).toBe(200);
      expect(answer.value.json).toMatchObject({ errorsWhileComputingFlags: true });
      expect((answer.value.json as V2Body).flags.lookarounds).toBeUndefined();
      expect(answer.ms).toBeLessThan(BUDGET_MS / 4);
    }
    // A value none of them can match early is still answered right when short.
    const short = await postJson(d, '/flags/?v=2', { ...body, person_properties: { email: 'aab7' } });
    expect(short.json).toMatchObject({ errorsWhileComputingFlags: false, flags: { lookarounds: { enabled: true } } });
  });
});

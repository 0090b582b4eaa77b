/**
 * The real posthog-node client evaluating flags against the daemon: remotely through `/flags`
 * (values, payloads, person property overrides, inactive flags), and locally from the
 * definitions it polls from `/flags/definitions` (the second poll is a 304). Local and remote
 * answers agree over 1,000 distinct ids for a rollout flag, a multivariate flag and a flag
 * with `early_exit` (a 30 % condition before a 100 % one: out of the first, the flag is off).
 */
import { PostHog } from 'posthog-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bucketHash } from '../../src/flags/engine/hash.js';
import { apiClient, type ApiClient } from '../helpers/api.js';
import { BACKENDS, cleanupDaemons, useDaemon } from '../helpers/daemon.js';

afterAll(cleanupDaemons);

const FLAGS = '/api/projects/1/feature_flags/';
const POPULATION = 1000;
const MULTI_VARIANTS: Array<[string, number]> = [
  ['first-variant', 50],
  ['second-variant', 20],
  ['third-variant', 20],
  ['fourth-variant', 5],
  ['fifth-variant', 5],
];

/** What PostHog answers, by its bucketing formula (docs/compatibility.md#hashing-and-bucketing). */
function expectedRollout(id: string): boolean {
  return bucketHash('rollout.', id, '') <= 0.45;
}
function expectedEarly(id: string): boolean {
  return bucketHash('early.', id, '') <= 0.3;
}
function expectedMulti(id: string): string | false {
  if (bucketHash('multi.', id, '') > 0.55) return false;
  const h = bucketHash('multi.', id, 'variant');
  let hi = 0;
  for (const [key, pct] of MULTI_VARIANTS) {
    hi += pct / 100;
    if (h < hi) return key;
  }
  return false;
}
function firstId(predicate: (id: string) => boolean): string {
  for (let i = 0; ; i++) if (predicate(`distinct_id_${i}`)) return `distinct_id_${i}`;
}

interface Seen {
  url: string;
  status: number;
}

function recordingFetch(log: Seen[]) {
  return async (url: string, options: RequestInit) => {
    const res = await fetch(url, options);
    log.push({ url, status: res.status });
    return res;
  };
}

describe.each(BACKENDS)('posthog-node flags (%s)', (backend) => {
  const d = useDaemon({ backend });
  let admin: ApiClient;
  const clients: PostHog[] = [];

  function client(options: Record<string, unknown> = {}): PostHog {
    const ph = new PostHog(d.projectKey, { host: d.baseUrl, flushAt: 1, fetchRetryCount: 0, ...options });
    clients.push(ph);
    return ph;
  }

  beforeAll(async () => {
    admin = apiClient(d, d.personalKey);
    const create = async (body: Record<string, unknown>) => {
      const r = await admin.post(FLAGS, body);
      expect(r.status, r.text).toBe(201);
    };
    await create({
      key: 'rollout',
      filters: { groups: [{ properties: [], rollout_percentage: 45 }], payloads: { true: '{"limit":10}' } },
    });
    await create({
      key: 'multi',
      filters: {
        groups: [{ properties: [], rollout_percentage: 55 }],
        multivariate: {
          variants: MULTI_VARIANTS.map(([key, rollout_percentage]) => ({ key, rollout_percentage })),
        },
        payloads: { 'second-variant': '[1,2]' },
      },
    });
    await create({
      key: 'for-pros',
      filters: { groups: [{ properties: [{ key: 'plan', value: 'pro', type: 'person' }], rollout_percentage: 100 }] },
    });
    await create({
      key: 'early',
      filters: {
        groups: [
          { properties: [], rollout_percentage: 30 },
          { properties: [], rollout_percentage: 100 },
        ],
        early_exit: true,
      },
    });
    await create({ key: 'paused', active: false, filters: { groups: [{ rollout_percentage: 100 }] } });
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.shutdown()));
  });

  it('evaluates remotely: values, payloads, overrides and inactive flags', async () => {
    const ph = client();
    const inside = firstId((id) => expectedRollout(id) && expectedMulti(id) === 'second-variant');
    const outside = firstId((id) => !expectedRollout(id) && expectedMulti(id) === false);
    expect(await ph.getFeatureFlag('rollout', inside)).toBe(true);
    expect(await ph.getFeatureFlag('multi', inside)).toBe('second-variant');
    expect(await ph.getFeatureFlagPayload('rollout', inside)).toEqual({ limit: 10 });
    expect(await ph.getFeatureFlagPayload('multi', inside)).toEqual([1, 2]);
    expect(await ph.getFeatureFlag('rollout', outside)).toBe(false);
    expect(await ph.getFeatureFlag('multi', outside)).toBe(false);
    expect(await ph.isFeatureEnabled('for-pros', 'someone')).toBe(false);
    expect(await ph.isFeatureEnabled('for-pros', 'someone', { personProperties: { plan: 'pro' } })).toBe(true);
    expect(await ph.getFeatureFlag('paused', 'someone')).toBeUndefined();
    const all = await ph.getAllFlags(inside, { personProperties: { plan: 'pro' } });
    expect(all).toEqual({ rollout: true, multi: 'second-variant', 'for-pros': true, early: expectedEarly(inside) });
    // The newer single-request API.
    const flags = await ph.evaluateFlags(inside, { personProperties: { plan: 'pro' } });
    expect([flags.getFlag('multi'), flags.getFlagPayload('multi'), flags.getFlag('for-pros'), flags.getFlag('paused')]).toEqual([
      'second-variant',
      [1, 2],
      true,
      undefined,
    ]);
  });

  it('evaluates locally from polled definitions, revalidating with a 304', async () => {
    const seen: Seen[] = [];
    const local = client({ personalApiKey: d.personalKey, featureFlagsPollingInterval: 100, fetch: recordingFetch(seen) });
    expect(await local.waitForLocalEvaluationReady(10_000)).toBe(true);
    await waitFor(() => seen.filter((s) => s.url.includes('/flags/definitions')).length >= 2);
    const polls = seen.filter((s) => s.url.includes('/flags/definitions'));
    expect(polls[0]!.status).toBe(200);
    expect(polls[1]!.status).toBe(304);
    expect(polls[0]!.url).toContain(`token=${d.projectKey}`);

    const remote = client();
    let disagreements = 0;
    let compared = 0;
    const compare = async (id: string) => {
      const opts = { onlyEvaluateLocally: true };
      const [lr, lm] = [await local.getFeatureFlag('rollout', id, opts), await local.getFeatureFlag('multi', id, opts)];
      const le = await local.getFeatureFlag('early', id, opts);
      const r = await remote.getAllFlags(id);
      if (lr !== r.rollout || lm !== r.multi || lr !== expectedRollout(id) || lm !== expectedMulti(id)) disagreements++;
      if (le !== r.early || le !== expectedEarly(id)) disagreements++;
      compared++;
    };
    // The remote calls are independent: 25 at a time, not one round trip after another.
    for (let start = 0; start < POPULATION; start += 25) {
      await Promise.all(Array.from({ length: Math.min(25, POPULATION - start) }, (_, i) => compare(`distinct_id_${start + i}`)));
    }
    expect(compared).toBe(POPULATION);
    expect(disagreements).toBe(0);
    expect(await local.getFeatureFlag('paused', 'anyone', { onlyEvaluateLocally: true })).toBe(false);
    expect(await local.getFeatureFlag('for-pros', 'x', { onlyEvaluateLocally: true, personProperties: { plan: 'pro' } })).toBe(true);
    // No remote call was needed for the local answers.
    expect(seen.filter((s) => s.url.includes('/flags/?')).length).toBe(0);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for condition');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * `/flags` and `/decide` against the real daemon: flags made through the management API are
 * evaluated in the worker pool, every response version has its shape, bodies may be compressed
 * or form-encoded, bad input gets PostHog's errors (docs/compatibility.md#errors), and a change to
 * a flag is seen by the next request (the workers' snapshots follow the project's flag version).
 */
import { compressToBase64 } from 'lz-string';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type StoreKey } from '../../src/store/open-store.js';
import { apiClient, type ApiClient } from '../helpers/api.js';
import { BACKENDS, cleanupDaemons, useDaemon } from '../helpers/daemon.js';
import { b64, gzip, metricSample, postJson, send, waitForPersons } from '../helpers/http.js';

afterAll(cleanupDaemons);

const FLAGS = '/api/projects/1/feature_flags/';

interface FlagDetail {
  key: string;
  enabled: boolean;
  variant: string | null;
  failed?: boolean;
  reason: { code: string; condition_index: number | null; description?: string };
  metadata: { id: number; version: number; payload: unknown };
}
interface V2Body {
  flags: Record<string, FlagDetail>;
  errorsWhileComputingFlags: boolean;
  requestId: string;
  [k: string]: unknown;
}

describe.each(BACKENDS)('/flags and /decide (%s)', (backend) => {
  const d = useDaemon({ backend });
  let admin: ApiClient;
  const ids: Record<string, number> = {};

  async function createFlag(body: Record<string, unknown>): Promise<number> {
    const r = await admin.post(FLAGS, body);
    expect(r.status, r.text).toBe(201);
    return (r.json as { id: number }).id;
  }

  beforeAll(async () => {
    admin = apiClient(d, d.personalKey);
    ids.on = await createFlag({
      key: 'always-on',
      filters: { groups: [{ properties: [], rollout_percentage: 100 }], payloads: { true: '{"color":"blue"}' } },
    });
    ids.variants = await createFlag({
      key: 'checkout',
      filters: {
        groups: [{ properties: [], rollout_percentage: 100 }],
        multivariate: {
          variants: [
            { key: 'control', rollout_percentage: 50 },
            { key: 'test', rollout_percentage: 50 },
          ],
        },
        payloads: { test: '"green"' },
      },
    });
    ids.pro = await createFlag({
      key: 'pro-only',
      filters: { groups: [{ properties: [{ key: 'plan', value: ['pro'], operator: 'exact', type: 'person' }], rollout_percentage: 100 }] },
    });
    ids.off = await createFlag({ key: 'switched-off', active: false, filters: { groups: [{ rollout_percentage: 100 }] } });
  });

  const flagsBody = (extra: Record<string, unknown> = {}) => ({ token: d.projectKey, distinct_id: 'user-1', ...extra });

  it('answers /flags?v=2 with every active flag, reasons, metadata and payloads', async () => {
    const r = await postJson(d, '/flags/?v=2', flagsBody({ person_properties: { plan: 'pro' } }));
    expect(r.status, r.text).toBe(200);
    const body = r.json as V2Body;
    expect(body.errorsWhileComputingFlags).toBe(false);
    expect(body.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(Object.keys(body.flags).sort()).toEqual(['always-on', 'checkout', 'pro-only']);
    expect(body.flags['always-on']).toMatchObject({
      key: 'always-on',
      enabled: true,
      variant: null,
      reason: { code: 'condition_match', condition_index: 0 },
      metadata: { id: ids.on, version: 1, payload: '{"color":"blue"}' },
    });
    expect(['control', 'test']).toContain(body.flags.checkout!.variant);
    expect(body.flags['pro-only']!.enabled).toBe(true);
    const without = (await postJson(d, '/flags/?v=2', flagsBody())).json as V2Body;
    expect(without.flags['pro-only']).toMatchObject({ enabled: false, reason: { code: 'no_condition_match', condition_index: 0 } });
  });

  it('gives each version its shape', async () => {
    const variant = ((await postJson(d, '/flags/?v=2', flagsBody())).json as V2Body).flags.checkout!.variant;
    const decide1 = (await postJson(d, '/decide/', flagsBody())).json as Record<string, unknown>;
    expect(decide1.featureFlags).toEqual(expect.arrayContaining(['always-on', 'checkout']));
    expect(decide1.featureFlags).not.toContain('pro-only');
    const decide2 = (await postJson(d, '/decide/?v=2', flagsBody())).json as Record<string, unknown>;
    expect(decide2.featureFlags).toEqual({ 'always-on': true, checkout: variant });
    for (const path of ['/decide/?v=3', '/flags/?v=1']) {
      const body = (await postJson(d, path, flagsBody())).json as Record<string, unknown>;
      expect(body.featureFlags, path).toEqual({ 'always-on': true, checkout: variant, 'pro-only': false });
      expect(body.errorsWhileComputingFlags, path).toBe(false);
      expect(body.featureFlagPayloads, path).toEqual({
        'always-on': '{"color":"blue"}',
        ...(variant === 'test' ? { checkout: '"green"' } : {}),
      });
    }
    const decide3 = (await postJson(d, '/decide?v=3', flagsBody())).json as Record<string, unknown>;
    // The /decide response fields PostHog's API documentation lists.
    expect(decide3).toMatchObject({
      config: { enable_collect_everything: true },
      editorParams: {},
      errorComputingFlags: false,
      isAuthenticated: false,
    });
    expect(decide3.supportedCompression).toEqual(expect.arrayContaining(['gzip']));
    const decide4 = (await postJson(d, '/decide/?v=4', flagsBody())).json as V2Body;
    expect(Object.keys(decide4.flags).sort()).toEqual(['always-on', 'checkout', 'pro-only']);
    expect(decide4.supportedCompression).toBeDefined();
    const plain = (await postJson(d, '/flags/?v=2', flagsBody())).json as V2Body;
    expect(plain.supportedCompression).toBeUndefined();
    const withConfig = (await postJson(d, '/flags/?v=2&config=true', flagsBody())).json as V2Body;
    expect(withConfig).toMatchObject({ hasFeatureFlags: true, config: { enable_collect_everything: true } });
    const noParams = (await postJson(d, '/flags', flagsBody())).json as V2Body;
    expect(noParams.flags).toBeDefined();
    expect(noParams.supportedCompression).toBeDefined();
    // An unknown version picks a shape as the Rust service does; it is not an error.
    const unknown = await postJson(d, '/flags/?v=banana', flagsBody());
    expect(unknown.status).toBe(200);
    expect((unknown.json as Record<string, unknown>).featureFlags).toBeDefined();
  });

  it('reads gzip, lz64, base64 form and whole-body base64 bodies', async () => {
    const text = JSON.stringify(flagsBody());
    const expected = ((await postJson(d, '/flags/?v=2', flagsBody())).json as V2Body).flags.checkout!.variant;
    const variants = await Promise.all([
      send(d, '/flags/?v=2', { body: gzip(text), headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } }),
      send(d, '/flags/?v=2&compression=gzip-js', { body: gzip(text), headers: { 'content-type': 'text/plain' } }),
      send(d, '/flags/?v=2&compression=lz64', {
        body: `data=${encodeURIComponent(compressToBase64(text))}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
      send(d, '/flags/?v=2&compression=base64', {
        body: `data=${encodeURIComponent(b64(text))}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
      send(d, '/flags/?v=2', { body: b64(text), headers: { 'content-type': 'text/plain' } }),
    ]);
    for (const r of variants) {
      expect(r.status, r.text).toBe(200);
      expect((r.json as V2Body).flags.checkout!.variant).toBe(expected);
    }
  });

  it('answers bad input with 400 or 401 and PostHog error bodies (docs/compatibility.md#errors)', async () => {
    const malformed = await send(d, '/flags/?v=2', { body: '{"token": ', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(malformed.json).toMatchObject({ type: 'validation_error' });
    const wrongKey = await postJson(d, '/flags/?v=2', { token: 'phc_not_a_real_key', distinct_id: 'x' });
    expect(wrongKey.status).toBe(401);
    expect(wrongKey.json).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
    const noKey = await postJson(d, '/flags/?v=2', { distinct_id: 'x' });
    expect(noKey.status).toBe(401);
    expect(noKey.json).toMatchObject({ type: 'authentication_error' });
    const noDistinctId = await postJson(d, '/decide/?v=3', { api_key: d.projectKey });
    expect(noDistinctId.status).toBe(400);
    expect(noDistinctId.json).toMatchObject({ type: 'validation_error' });
    expect((noDistinctId.json as { detail: string }).detail).toMatch(/distinct_id/);
    const empty = await send(d, '/flags/?v=2', { method: 'POST', headers: { 'content-type': 'application/json' } });
    expect(empty.status).toBe(400);
  });

  it('answers GET, HEAD and OPTIONS as the flags service does', async () => {
    const get = await send(d, '/flags/?v=2');
    expect(get.status).toBe(200);
    expect((get.json as V2Body).flags).toEqual({});
    expect((await send(d, '/flags/', { method: 'HEAD' })).status).toBe(200);
    const options = await send(d, '/flags/', { method: 'OPTIONS', headers: { origin: 'https://app.example' } });
    expect(options.status).toBe(204);
    expect(options.headers.get('allow')).toBe('GET, POST, OPTIONS, HEAD');
    expect(options.headers.get('access-control-allow-origin')).toBe('https://app.example');
  });

  it('sees flag changes on the next request and leaves inactive and deleted flags out', async () => {
    const id = await createFlag({ key: 'soon-gone', filters: { groups: [{ rollout_percentage: 100 }] } });
    const keys = async () => Object.keys(((await postJson(d, '/flags/?v=2', flagsBody())).json as V2Body).flags);
    expect(await keys()).toContain('soon-gone');
    expect((await admin.patch(`${FLAGS}${id}/`, { active: false })).status).toBe(200);
    expect(await keys()).not.toContain('soon-gone');
    expect((await admin.patch(`${FLAGS}${id}/`, { active: true })).status).toBe(200);
    expect(await keys()).toContain('soon-gone');
    expect((await admin.patch(`${FLAGS}${id}/`, { deleted: true })).status).toBe(200);
    expect(await keys()).not.toContain('soon-gone');
    expect(await keys()).not.toContain('switched-off');
  });

  it('evaluates only the requested keys (and their dependencies)', async () => {
    const r = (await postJson(d, '/flags/?v=2', flagsBody({ flag_keys_to_evaluate: ['always-on', 'nope'] }))).json as V2Body;
    expect(Object.keys(r.flags)).toEqual(['always-on']);
  });

  it('answers the flags it can compute when others fail, with errorsWhileComputingFlags set (and counted)', async () => {
    const errorsCounted = async (endpoint: string) =>
      metricSample((await send(d, '/metrics')).text, 'hedgerow_flags_errors_total', { endpoint }) ?? NaN;
    const [flagsBefore, decideBefore] = [await errorsCounted('flags'), await errorsCounted('decide')];
    const cohort = await admin.post('/api/projects/1/cohorts/', {
      name: 'Soon deleted',
      filters: { properties: { type: 'AND', values: [{ key: 'plan', value: 'pro', type: 'person' }] } },
    });
    expect(cohort.status, cohort.text).toBe(201);
    const cohortId = (cohort.json as { id: number }).id;
    await createFlag({
      key: 'needs-cohort',
      filters: { groups: [{ properties: [{ key: 'id', type: 'cohort', value: cohortId }], rollout_percentage: 100 }] },
    });
    expect((await admin.patch(`/api/projects/1/cohorts/${cohortId}/`, { deleted: true })).status).toBe(200);
    const r = await postJson(d, '/flags/?v=2', flagsBody({ person_properties: { plan: 'pro' } }));
    expect(r.status).toBe(200);
    const body = r.json as V2Body;
    expect(body.errorsWhileComputingFlags).toBe(true);
    expect(body.flags['needs-cohort']).toMatchObject({ enabled: false, failed: true });
    expect(body.flags['always-on']).toMatchObject({ enabled: true });
    const decide = (await postJson(d, '/decide/?v=3', flagsBody())).json as Record<string, unknown>;
    expect(decide).toMatchObject({ errorsWhileComputingFlags: true, errorComputingFlags: true });
    expect(await errorsCounted('flags')).toBe(flagsBefore + 1);
    expect(await errorsCounted('decide')).toBe(decideBefore + 1);
    expect((await admin.patch(`/api/projects/1/cohorts/${cohortId}/`, { deleted: false })).status).toBe(200);
    expect(((await postJson(d, '/flags/?v=2', flagsBody())).json as V2Body).errorsWhileComputingFlags).toBe(false);
  });

  it('fills a missing $initial_ property from its current value, as the flags service does', async () => {
    await createFlag({
      key: 'from-newsletter',
      filters: { groups: [{ properties: [{ key: '$initial_utm_source', value: 'news', operator: 'exact', type: 'person' }] }] },
    });
    const enabled = async (props: Record<string, unknown>) =>
      ((await postJson(d, '/flags/?v=2', flagsBody({ person_properties: props }))).json as V2Body).flags['from-newsletter']!.enabled;
    expect(await enabled({ utm_source: 'news' })).toBe(true);
    expect(await enabled({ utm_source: 'news', $initial_utm_source: 'ads' })).toBe(false);
    expect(await enabled({})).toBe(false);
  });

  it('bounds a lookaround pattern: a crafted property value is answered at once, as no match', async () => {
    await createFlag({
      key: 'lookahead-gate',
      filters: { groups: [{ properties: [{ key: 'handle', value: '^(?=(a+)+$)', operator: 'regex', type: 'person' }] }] },
    });
    const flag = async (handle: string) =>
      ((await postJson(d, '/flags/?v=2', flagsBody({ person_properties: { handle } }))).json as V2Body).flags['lookahead-gate'];
    // Unbounded, V8 would try 2^40 ways to split the a's while the thread served nothing else.
    expect(await flag(`${'a'.repeat(40)}!`)).toMatchObject({ enabled: false, reason: { code: 'no_condition_match' } });
    expect(await flag('aaaa')).toMatchObject({ enabled: true, reason: { code: 'condition_match' } });
  });

  it('bounds a lookaround whose greedy loop V8 repeats at every position of a long value', async () => {
    await createFlag({
      key: 'lookahead-loop',
      filters: { groups: [{ properties: [{ key: 'name', value: '(?=a*b)', operator: 'regex', type: 'person' }] }] },
    });
    const started = Date.now();
    const r = await postJson(d, '/flags/?v=2', flagsBody({ person_properties: { name: 'a'.repeat(300_000) } }));
    expect(Date.now() - started).toBeLessThan(2000); // unbounded: 16 s
    expect((r.json as V2Body).flags['lookahead-loop']).toMatchObject({ enabled: false });
    expect((await postJson(d, '/flags/?v=2', flagsBody({ person_properties: { name: 'aab' } }))).json).toMatchObject({
      flags: { 'lookahead-loop': { enabled: true } },
    });
  });

  it("answers only the flags the caller's runtime, evaluation contexts and survey mode may see", async () => {
    const on = { groups: [{ properties: [], rollout_percentage: 100 }] };
    await createFlag({ key: 'server-side', evaluation_runtime: 'server', filters: on });
    await createFlag({ key: 'client-side', evaluation_runtime: 'client', filters: on });
    await createFlag({ key: 'prod-tagged', tags: ['prod'], evaluation_tags: ['prod'], filters: on });
    await createFlag({ key: 'survey-targeting-visible', filters: on });
    const keys = async (query: string, extra: Record<string, unknown>, headers: Record<string, string> = {}) => {
      const r = await postJson(d, `/flags/?v=2${query}`, flagsBody(extra), headers);
      expect(r.status, r.text).toBe(200);
      return Object.keys((r.json as V2Body).flags);
    };
    const node = await keys('', {}, { 'user-agent': 'posthog-node/5.9.1' });
    expect(node).toContain('server-side');
    expect(node).not.toContain('client-side');
    expect(node).toContain('prod-tagged'); // no contexts asked: tags do not filter
    const browser = await keys('', {}, { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/120' });
    expect(browser).toContain('client-side');
    expect(browser).not.toContain('server-side');
    const stated = await keys('', { evaluation_runtime: 'server' }, { 'user-agent': 'Mozilla/5.0' });
    expect(stated).toContain('server-side');
    expect(stated).not.toContain('client-side');
    expect(await keys('', { evaluation_contexts: ['staging'] })).not.toContain('prod-tagged');
    expect(await keys('', { evaluation_environments: ['prod'] })).toContain('prod-tagged');
    expect(await keys('&only_evaluate_survey_feature_flags=true', {})).toEqual(['survey-targeting-visible']);
  });

  it('answers from the request when the stored person cannot be read, with errorsWhileComputingFlags set', async () => {
    // A real store failure: a person record that is not JSON, written beside the daemon.
    const dbs = openStore({ dataDir: d.dataDir, sync: 'durable' });
    try {
      const raw = dbs.root.openDB<Buffer, StoreKey>('persons', { encoding: 'binary', keyEncoding: 'ordered-binary' });
      dbs.root.transactionSync(() => {
        raw.putSync([1, 999_999], Buffer.from('{"id": 999999, not json'));
        dbs.distinctIds.putSync([1, 'unreadable-person'], 999_999);
      });
    } finally {
      await dbs.root.close();
    }
    const r = await postJson(d, '/flags/?v=2', flagsBody({ distinct_id: 'unreadable-person', person_properties: { plan: 'pro' } }));
    expect(r.status).toBe(200);
    const body = r.json as V2Body;
    expect(body.errorsWhileComputingFlags).toBe(true);
    expect(body.flags['always-on']).toMatchObject({ enabled: true });
    expect(body.flags['pro-only']).toMatchObject({ enabled: true, reason: { code: 'condition_match' } });
  });

  it("matches static cohort members uploaded as CSV, once they have a person (membership is a person's)", async () => {
    const seen = (id: string) => ({ event: '$pageview', distinct_id: id });
    expect((await postJson(d, '/batch/', { api_key: d.projectKey, batch: [seen('listed-1'), seen('listed-2')] })).status).toBe(200);
    await waitForPersons(d);
    const form = new FormData();
    form.append('name', 'Early access list');
    form.append('is_static', 'true');
    form.append('csv', new Blob(['distinct_id\nlisted-1\nlisted-2\nlisted-3\n']), 'members.csv');
    const res = await fetch(`${d.baseUrl}/api/projects/1/cohorts/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${d.personalKey}` },
      body: form,
    });
    expect(res.status).toBe(201);
    const cohortId = ((await res.json()) as { id: number }).id;
    await createFlag({
      key: 'early-access',
      filters: { groups: [{ properties: [{ key: 'id', type: 'cohort', value: cohortId }], rollout_percentage: 100 }] },
    });
    const enabled = async (distinctId: string) =>
      ((await postJson(d, '/flags/?v=2', { token: d.projectKey, distinct_id: distinctId })).json as V2Body).flags['early-access']!.enabled;
    // listed-3 has no person: PostHog's upload skips it, and an id without a person is in no static cohort.
    expect([await enabled('listed-1'), await enabled('listed-2'), await enabled('listed-3'), await enabled('not-listed')]).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });

  it('keeps the anonymous bucket of continuity flags after identify ($anon_distinct_id)', async () => {
    await createFlag({
      key: 'continuous',
      ensure_experience_continuity: true,
      filters: {
        groups: [{ rollout_percentage: 100 }],
        multivariate: {
          variants: [
            { key: 'one', rollout_percentage: 25 },
            { key: 'two', rollout_percentage: 25 },
            { key: 'three', rollout_percentage: 25 },
            { key: 'four', rollout_percentage: 25 },
          ],
        },
      },
    });
    const variantOf = async (extra: Record<string, unknown>) =>
      ((await postJson(d, '/flags/?v=2', { token: d.projectKey, ...extra })).json as V2Body).flags.continuous!.variant;
    for (let i = 0; i < 8; i++) {
      const anon = `anon-${i}`;
      const asAnon = await variantOf({ distinct_id: anon });
      expect(await variantOf({ distinct_id: `identified-${i}`, $anon_distinct_id: anon }), anon).toBe(asAnon);
    }
    // Without the anonymous id the identified user hashes on its own id: some of them differ.
    const own = await Promise.all([...Array(8).keys()].map((i) => variantOf({ distinct_id: `identified-${i}` })));
    const anonymous = await Promise.all([...Array(8).keys()].map((i) => variantOf({ distinct_id: `anon-${i}` })));
    expect(own).not.toEqual(anonymous);
  });

  it('buckets a flag with bucketing_identifier device_id by the request device id (docs/compatibility.md#hashing-and-bucketing)', async () => {
    const created = await admin.post(FLAGS, {
      key: 'per-device',
      bucketing_identifier: 'device_id',
      filters: {
        groups: [{ properties: [], rollout_percentage: 50 }],
        multivariate: { variants: ['a', 'b', 'c', 'd'].map((key) => ({ key, rollout_percentage: 25 })) },
      },
    });
    expect(created.status, created.text).toBe(201);
    const flag = created.json as { id: number; bucketing_identifier: unknown };
    expect(flag.bucketing_identifier).toBe('device_id');
    expect(((await admin.get(`${FLAGS}${flag.id}/`)).json as { bucketing_identifier: unknown }).bucketing_identifier).toBe('device_id');
    const definitions = (await admin.get(`${FLAGS}local_evaluation/`)).json as { flags: { key: string; bucketing_identifier: unknown }[] };
    expect(definitions.flags.find((f) => f.key === 'per-device')?.bucketing_identifier).toBe('device_id');
    expect(definitions.flags.find((f) => f.key === 'always-on')?.bucketing_identifier).toBe('distinct_id');

    const answer = async (extra: Record<string, unknown>) =>
      ((await postJson(d, '/flags/?v=2', { token: d.projectKey, flag_keys_to_evaluate: ['per-device'], ...extra })).json as V2Body).flags[
        'per-device'
      ]!;
    const seen = new Set<string>();
    for (const device of ['device-1', 'device-2', 'device-3', 'device-4', 'device-5', 'device-6']) {
      const answers = new Set<string>();
      for (let i = 0; i < 20; i++) {
        const r = await answer({ distinct_id: `device-user-${i}`, $device_id: device });
        answers.add(JSON.stringify([r.enabled, r.variant]));
      }
      // The request's person_properties.$device_id stands in for a missing top-level one.
      const viaProperty = await answer({ distinct_id: 'device-user-x', person_properties: { $device_id: device } });
      answers.add(JSON.stringify([viaProperty.enabled, viaProperty.variant]));
      expect([...answers], device).toHaveLength(1);
      seen.add([...answers][0]!);
    }
    // Different devices do get different answers: the device id is what is hashed.
    expect(seen.size).toBeGreaterThan(1);
    // Without a device id the person condition is skipped as out of rollout, as the flags service does.
    expect(await answer({ distinct_id: 'device-user-0' })).toMatchObject({
      enabled: false,
      variant: null,
      reason: { code: 'out_of_rollout_bound', condition_index: 0 },
    });

    // Device bucketing and experience continuity may not be combined.
    const refused = await admin.patch(`${FLAGS}${flag.id}/`, { ensure_experience_continuity: true });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.json).toMatchObject({ type: 'validation_error', code: 'invalid_input', attr: null });
    // filters.bucketing_identifier is not PostHog's field: stored and served as sent, never read.
    const legacy = await admin.patch(`${FLAGS}${flag.id}/`, {
      bucketing_identifier: null,
      filters: { bucketing_identifier: 'device_id', groups: [{ properties: [], rollout_percentage: 50 }] },
    });
    expect(legacy.status, legacy.text).toBe(200);
    expect(legacy.json).toMatchObject({ bucketing_identifier: null, filters: { bucketing_identifier: 'device_id' } });
    const perUser = new Set<boolean>();
    for (let i = 0; i < 20; i++) perUser.add((await answer({ distinct_id: `device-user-${i}`, $device_id: 'device-1' })).enabled);
    expect(perUser).toEqual(new Set([true, false]));
  });

  it('does not store a continuity hash key over 400 characters: errorsWhileComputingFlags, as PostHog’s insert fails', async () => {
    await createFlag({ key: 'continuous-long', ensure_experience_continuity: true, filters: { groups: [{ rollout_percentage: 50 }] } });
    const user = 'continuity-long-user';
    expect((await postJson(d, '/capture/', { api_key: d.projectKey, event: 'seen', distinct_id: user })).status).toBe(200);
    await waitForPersons(d);
    const ask = async (extra: Record<string, unknown>) =>
      (await postJson(d, '/flags/?v=2', { token: d.projectKey, ...extra })).json as V2Body;
    // Hashed on the anonymous id, as the Rust service does when it has no stored key (as for an
    // id without a person, where nothing is written; a distinct_id itself is cut to 200 characters).
    const onAnonymousId = async (anon: string) =>
      (await ask({ distinct_id: 'continuity-nobody', $anon_distinct_id: anon })).flags['continuous-long']!.enabled;
    const tooLong = 'a'.repeat(401);
    const refused = await ask({ distinct_id: user, $anon_distinct_id: tooLong });
    expect(refused.errorsWhileComputingFlags).toBe(true);
    expect(refused.flags['continuous-long']!.enabled).toBe(await onAnonymousId(tooLong));
    // 400 characters are stored, and then used without the anonymous id.
    const longest = '😀'.repeat(400);
    const stored = await ask({ distinct_id: user, $anon_distinct_id: longest });
    expect(stored.errorsWhileComputingFlags).toBe(false);
    const later = await ask({ distinct_id: user });
    expect(later.errorsWhileComputingFlags).toBe(false);
    expect(later.flags['continuous-long']!.enabled).toBe(await onAnonymousId(longest));
  });

  it('reads ids and group keys too long to be stored as unknown, without an error', async () => {
    // Longer than any stored distinct id (400 code points) or group key (400), and than an LMDB key.
    const long = '😀'.repeat(600);
    for (const extra of [
      { distinct_id: long },
      { distinct_id: 'user-1', $anon_distinct_id: long },
      { distinct_id: 'user-1', groups: { company: long } },
    ]) {
      const r = await postJson(d, '/flags/?v=2', flagsBody(extra));
      expect(r.status).toBe(200);
      expect((r.json as V2Body).errorsWhileComputingFlags, JSON.stringify(Object.keys(extra))).toBe(false);
    }
  });

  it('serves remote config for posthog-js at /array/:token/config and config.js', async () => {
    const config = await send(d, `/array/${d.projectKey}/config`);
    expect(config.status).toBe(200);
    expect(config.json).toMatchObject({ token: d.projectKey, hasFeatureFlags: true });
    expect((config.json as { supportedCompression: string[] }).supportedCompression).toContain('gzip-js');
    const script = await send(d, `/array/${d.projectKey}/config.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    expect(script.text).toContain(d.projectKey);
    expect((await send(d, '/array/phc_unknown/config')).status).toBe(404);
  });
});

describe('/flags when evaluation does not finish in time', () => {
  // A 1 ms budget and a body that takes far longer to decompress and parse in the worker (a body
  // this large goes to the worker pool even where the uWS threads answer /flags themselves).
  const d = useDaemon({ backend: 'uws', env: { HEDGEROW_FLAGS_TIMEOUT_MS: '1' } });

  it('answers 200 without flags and with the error flag, in the requested shape', async () => {
    const big = {
      token: d.projectKey,
      distinct_id: 'slow',
      person_properties: Object.fromEntries([...Array(200_000).keys()].map((i) => [`p${i}`, `value-${i}`])),
    };
    const body = gzip(JSON.stringify(big));
    const headers = { 'content-type': 'application/json', 'content-encoding': 'gzip' };
    const v2 = await send(d, '/flags/?v=2', { body, headers });
    expect(v2.status).toBe(200);
    expect(v2.json).toMatchObject({ flags: {}, errorsWhileComputingFlags: true });
    const v3 = await send(d, '/decide/?v=3', { body, headers });
    expect(v3.json).toMatchObject({ featureFlags: {}, errorsWhileComputingFlags: true, errorComputingFlags: true });
  });
});

describe.each(BACKENDS)('/flags when the flags take longer than the budget (%s)', (backend) => {
  // Flags whose conditions are a regex over a ~600 KB property (a few ms per condition), against a
  // 1,000 ms budget. A body this large goes to the pool on both backends, whose workers stop at
  // half the budget. Flags are evaluated in the order they were made: first 50 of one condition
  // (~3 ms apiece), so that a busy machine still evaluates some flags in time, then 30 of 50
  // conditions (~150 ms apiece): ~4 s in all, eight times the worker's half, from 80 writes.
  const d = useDaemon({ backend, env: { HEDGEROW_FLAGS_TIMEOUT_MS: '1000' } });
  const QUICK = 50;
  const SLOW = 30;
  const FLAG_COUNT = QUICK + SLOW;

  beforeAll(async () => {
    const admin = apiClient(d, d.personalKey);
    // Groups are alternatives: none matches, so every one of them is searched.
    const condition = { properties: [{ key: 'text', value: '(\\w+\\s?)+\\d', operator: 'regex', type: 'person' }] };
    const create = async (key: string, conditions: number) => {
      const r = await admin.post(FLAGS, { key, filters: { groups: Array.from({ length: conditions }, () => condition) } });
      expect(r.status, r.text).toBe(201);
    };
    await Promise.all(Array.from({ length: QUICK }, (_, i) => create(`a-quick-${i}`, 1)));
    await Promise.all(Array.from({ length: SLOW }, (_, i) => create(`b-slow-${i}`, 50)));
  });

  it('answers the flags evaluated in time, with errorsWhileComputingFlags set', async () => {
    const body = { token: d.projectKey, distinct_id: 'patient', person_properties: { text: 'ab '.repeat(200_000) } };
    await postJson(d, '/flags/?v=2', body); // the evaluating thread compiles the 80 flags first
    const r = await postJson(d, '/flags/?v=2', body);
    expect(r.status).toBe(200);
    const answer = r.json as V2Body;
    expect(answer.errorsWhileComputingFlags).toBe(true);
    const answered = Object.values(answer.flags);
    expect(answered.length).toBeGreaterThan(0);
    expect(answered.length).toBeLessThan(FLAG_COUNT);
    expect(answered.every((f) => f.enabled === false && f.reason.code === 'no_condition_match')).toBe(true);
  });
});

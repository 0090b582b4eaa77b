/**
 * Persons and groups from ingested events, through the real posthog-node client: anonymous
 * events, then identify with properties, then alias; a flag on a `$set` property turns on for
 * the merged person through `/flags` (stored properties, no overrides sent), and
 * `groupIdentify` makes a group flag match (the request's group properties overlaid on the
 * stored ones). Waits use `/_persons/caught_up`, never sleeps.
 */
import { PostHog } from 'posthog-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type ApiClient } from '../helpers/api.js';
import { BACKENDS, cleanupDaemons, useDaemon } from '../helpers/daemon.js';
import { postJson, send, uniqueId, waitForPersons } from '../helpers/http.js';

afterAll(cleanupDaemons);

const FLAGS = '/api/projects/1/feature_flags/';

interface V2Body {
  flags: Record<string, { enabled: boolean; variant: string | null; reason: { code: string } }>;
}

describe.each(BACKENDS)('persons from events (%s)', (backend) => {
  const d = useDaemon({ backend });
  let admin: ApiClient;

  beforeAll(async () => {
    admin = apiClient(d, d.personalKey);
    for (const body of [
      { key: 'vip-only', filters: { groups: [{ properties: [{ key: 'tier', value: 'vip', type: 'person' }], rollout_percentage: 100 }] } },
      {
        key: 'big-companies',
        filters: {
          aggregation_group_type_index: 0,
          groups: [
            {
              properties: [{ key: 'employees', value: '100', operator: 'gt', type: 'group', group_type_index: 0 }],
              rollout_percentage: 100,
            },
          ],
        },
      },
    ]) {
      const r = await admin.post(FLAGS, body);
      expect(r.status, r.text).toBe(201);
    }
  });

  const flagsFor = async (distinctId: string, extra: Record<string, unknown> = {}) =>
    ((await postJson(d, '/flags/?v=2', { token: d.projectKey, distinct_id: distinctId, ...extra })).json as V2Body).flags;

  it('merges anonymous, identified and aliased ids into one person whose properties feed /flags', async () => {
    const ph = new PostHog(d.projectKey, { host: d.baseUrl, flushAt: 1, fetchRetryCount: 0 });
    const anon = uniqueId('anon');
    const user = uniqueId('user');
    const alias = uniqueId('alias');
    ph.capture({ distinctId: anon, event: 'page viewed' });
    await ph.flush();
    ph.identify({ distinctId: user, properties: { $anon_distinct_id: anon, tier: 'vip', email: 'vip@example.com' } });
    await ph.flush();
    ph.alias({ distinctId: user, alias });
    await ph.shutdown();
    await waitForPersons(d);

    for (const id of [anon, user, alias]) expect((await flagsFor(id))['vip-only']!.enabled, id).toBe(true);
    expect((await flagsFor(uniqueId('stranger')))['vip-only']!.enabled).toBe(false);
    // Request properties still win over stored ones.
    expect((await flagsFor(user, { person_properties: { tier: 'basic' } }))['vip-only']!.enabled).toBe(false);
  });

  it('stores experience-continuity hash keys and keeps them for the identified person', async () => {
    const r = await admin.post(FLAGS, {
      key: 'sticky',
      ensure_experience_continuity: true,
      filters: {
        groups: [{ rollout_percentage: 100 }],
        multivariate: { variants: ['a', 'b', 'c', 'd'].map((key) => ({ key, rollout_percentage: 25 })) },
      },
    });
    expect(r.status, r.text).toBe(201);
    const ph = new PostHog(d.projectKey, { host: d.baseUrl, flushAt: 1, fetchRetryCount: 0 });
    const pairs = [...Array(8).keys()].map(() => ({ anon: uniqueId('sticky-anon'), user: uniqueId('sticky-user') }));
    for (const { anon } of pairs) ph.capture({ distinctId: anon, event: 'landed' });
    await ph.flush();
    await waitForPersons(d);
    const anonVariants = [];
    for (const { anon, user } of pairs) {
      const asAnon = (await flagsFor(anon)).sticky!.variant;
      // The first call after identify carries the anonymous id: the hash key is stored for its person.
      expect((await flagsFor(user, { $anon_distinct_id: anon })).sticky!.variant).toBe(asAnon);
      anonVariants.push(asAnon);
      ph.identify({ distinctId: user, properties: { $anon_distinct_id: anon } });
    }
    await ph.shutdown();
    await waitForPersons(d);
    // Later calls no longer send it: the stored key of the merged person keeps the bucket.
    const later = [];
    for (const { user } of pairs) later.push((await flagsFor(user)).sticky!.variant);
    expect(later).toEqual(anonVariants);
  });

  it('adds stored persons to a static cohort by UUID (add_persons_to_static_cohort)', async () => {
    const ph = new PostHog(d.projectKey, { host: d.baseUrl, flushAt: 1, fetchRetryCount: 0 });
    const anon = uniqueId('listed-anon');
    const user = uniqueId('listed-user');
    ph.identify({ distinctId: user, properties: { $anon_distinct_id: anon } });
    await ph.shutdown();
    await waitForPersons(d);
    const listed = await admin.get(`/api/projects/1/persons/?distinct_id=${user}`);
    const person = listed.json as { results: Array<{ uuid: string }> };
    expect(person.results, listed.text).toHaveLength(1);
    const uuid = person.results[0]!.uuid;
    const cohort = await admin.post('/api/projects/1/cohorts/', { name: 'Hand-picked', is_static: true });
    const dynamic = await admin.post('/api/projects/1/cohorts/', {
      name: 'Dynamic',
      filters: { properties: { type: 'AND', values: [{ key: 'x', value: 'y', type: 'person' }] } },
    });
    const id = (cohort.json as { id: number }).id;
    const path = `/api/projects/1/cohorts/${id}/add_persons_to_static_cohort/`;
    const detail = async (p: string, body: unknown) => {
      const r = await admin.patch(p, body);
      expect(r.status, r.text).toBe(400);
      return (r.json as { detail: string }).detail;
    };
    expect(
      await detail(`/api/projects/1/cohorts/${(dynamic.json as { id: number }).id}/add_persons_to_static_cohort/`, { person_ids: [uuid] }),
    ).toBe('Can only add users to static cohorts');
    expect(await detail(path, { person_ids: 'nope' })).toBe('person_ids must be a list');
    expect(await detail(path, { person_ids: [] })).toBe('person_ids cannot be empty');
    expect(await detail(path, { person_ids: ['00000000-0000-4000-8000-000000000000'] })).toBe('No valid users to add to cohort');
    const added = await admin.patch(path, { person_ids: [uuid] });
    expect([added.status, added.json]).toEqual([200, { success: true }]);
    // Both of the person's distinct ids are members; `count` is persons, as PostHog's.
    expect(((await admin.get(`/api/projects/1/cohorts/${id}/`)).json as { count: number }).count).toBe(1);
    const flag = await admin.post(FLAGS, {
      key: 'hand-picked',
      filters: { groups: [{ properties: [{ key: 'id', type: 'cohort', value: id }], rollout_percentage: 100 }] },
    });
    expect(flag.status, flag.text).toBe(201);
    for (const distinctId of [anon, user]) expect((await flagsFor(distinctId))['hand-picked']!.enabled).toBe(true);
    expect((await flagsFor(uniqueId('other')))['hand-picked']!.enabled).toBe(false);
  });

  it('registers group types and keeps group properties from groupIdentify', async () => {
    const ph = new PostHog(d.projectKey, { host: d.baseUrl, flushAt: 1, fetchRetryCount: 0 });
    const user = uniqueId('member');
    ph.groupIdentify({ groupType: 'company', groupKey: 'acme', properties: { name: 'Acme', employees: 500 } });
    ph.groupIdentify({ groupType: 'company', groupKey: 'tiny', properties: { name: 'Tiny', employees: 3 } });
    ph.capture({ distinctId: user, event: 'signed up', groups: { company: 'acme' } });
    await ph.shutdown();
    await waitForPersons(d);

    expect((await flagsFor(user, { groups: { company: 'acme' } }))['big-companies']!.enabled).toBe(true);
    expect((await flagsFor(user, { groups: { company: 'tiny' } }))['big-companies']!.enabled).toBe(false);
    expect((await flagsFor(user))['big-companies']).toMatchObject({ enabled: false, reason: { code: 'no_group_type' } });
    // The request's group_properties overlay the stored ones, key by key.
    const withProps = (company: string, props: Record<string, unknown>) =>
      flagsFor(user, { groups: { company }, group_properties: { company: props } });
    expect((await withProps('tiny', { employees: 1000 }))['big-companies']!.enabled).toBe(true);
    expect((await withProps('acme', { employees: 5 }))['big-companies']!.enabled).toBe(false);
    expect((await withProps('acme', { name: 'Renamed' }))['big-companies']!.enabled).toBe(true);
    expect((await withProps('unknown-co', { employees: 101 }))['big-companies']!.enabled).toBe(true);

    const remote = new PostHog(d.projectKey, { host: d.baseUrl, fetchRetryCount: 0 });
    expect(await remote.getFeatureFlag('big-companies', user, { groups: { company: 'acme' } })).toBe(true);
    const tinyGrown = { groups: { company: 'tiny' }, groupProperties: { company: { employees: 1000 } } };
    expect(await remote.getFeatureFlag('big-companies', user, tinyGrown)).toBe(true);
    await remote.shutdown();

    const defs = await send(d, `/flags/definitions?token=${d.projectKey}&send_cohorts`, {
      headers: { authorization: `Bearer ${d.personalKey}` },
    });
    expect((defs.json as { group_type_mapping: Record<string, string> }).group_type_mapping).toEqual({ '0': 'company' });
  });
});

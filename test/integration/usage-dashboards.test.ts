/**
 * Feature flag usage dashboards against the real daemon (docs/compatibility.md#usage-dashboards;
 * management vectors 31, 32, 49): the dashboard made with each flag, its series computed from
 * `$feature_flag_called` events that the real posthog-node client sends (and dated events sent to
 * `/batch/`), the `dashboard` and `enrich_usage_dashboard` actions with their checks in order, and
 * the HTML page behind a personal key or a signed link.
 */
import { PostHog } from 'posthog-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, checkVector, createProject, createUser, managementVector, type ApiClient, type TestProject } from '../helpers/api.js';
import { cleanupDaemons, useDaemon } from '../helpers/daemon.js';
import { errorBody, postJson, send, uniqueId, waitForPersons } from '../helpers/http.js';

afterAll(cleanupDaemons);

interface Series {
  label: string;
  breakdown_value: string | null;
  data: number[];
  days: string[];
  count: number;
  aggregated_value: number;
}

interface Dashboard {
  id: number;
  name: string;
  tiles: { id: number; insight: { name: string; result: Series[]; filters: Record<string, unknown> } }[];
  hedgerow_page_url: string;
}

const DAY = 86_400_000;
const dayOf = (msAgo: number) => new Date(Date.now() - msAgo).toISOString().slice(0, 10);

describe('usage dashboards', () => {
  const d = useDaemon({ backend: 'uws' });
  let admin: ApiClient;
  let project: TestProject;
  let flagsPath: string;

  beforeAll(async () => {
    admin = apiClient(d, d.personalKey);
    project = await createProject(d, 'usage dashboards');
    flagsPath = `/api/projects/${project.id}/feature_flags/`;
  });

  const createFlag = async (body: Record<string, unknown>) => {
    const r = await admin.post(flagsPath, body);
    expect(r.status, r.text).toBe(201);
    return r.json as { id: number; key: string; usage_dashboard: number };
  };
  const dashboard = async (id: number): Promise<Dashboard> => {
    const r = await admin.get(`/api/projects/${project.id}/dashboards/${id}/`);
    expect(r.status, r.text).toBe(200);
    return r.json as Dashboard;
  };

  it('computes the usage tiles from $feature_flag_called events per day and variant', async () => {
    const flag = await createFlag({
      key: 'checkout-redesign',
      filters: {
        groups: [{ rollout_percentage: 100 }],
        multivariate: {
          variants: [
            { key: 'control', rollout_percentage: 50 },
            { key: 'test', rollout_percentage: 50 },
          ],
        },
      },
    });
    const list = await send(d, `/api/projects/${project.id}/dashboards/?personal_api_key=${d.personalKey}`);
    expect(list.status, list.text).toBe(200);
    expect((list.json as { results: { id: number; name: string }[] }).results).toContainEqual(
      expect.objectContaining({ id: flag.usage_dashboard, name: 'Generated Dashboard: checkout-redesign Usage' }),
    );

    // The real client evaluates the flag and reports each user's answer once.
    const ph = new PostHog(project.api_token, { host: d.baseUrl, flushAt: 1, fetchRetryCount: 0 });
    const users = [...Array(12).keys()].map(() => uniqueId('shopper'));
    const answers = new Map<string, string>();
    for (const u of users) answers.set(u, String(await ph.getFeatureFlag('checkout-redesign', u)));
    await ph.shutdown();
    // Older, dated calls: the first user twice three days ago, once a week ago.
    const first = users[0]!;
    const dated = (msAgo: number) => ({
      event: '$feature_flag_called',
      distinct_id: first,
      timestamp: new Date(Date.now() - msAgo).toISOString(),
      properties: { $feature_flag: 'checkout-redesign', $feature_flag_response: answers.get(first) },
    });
    const r = await postJson(d, '/batch/', { api_key: project.api_token, batch: [dated(3 * DAY), dated(3 * DAY), dated(7 * DAY)] });
    expect(r.status, r.text).toBe(200);
    await waitForPersons(d);

    const board = await dashboard(flag.usage_dashboard);
    expect(board.tiles.map((t) => t.insight.name)).toEqual([
      'Feature Flag Called Total Volume',
      'Feature Flag calls made by unique users per variant',
    ]);
    const [volume, uniques] = board.tiles.map((t) => t.insight.result) as [Series[], Series[]];
    const expected = (variant: string) => users.filter((u) => answers.get(u) === variant).length;
    const firstVariant = answers.get(first)!;
    for (const variant of ['control', 'test']) {
      const extra = variant === firstVariant ? 3 : 0;
      const line = volume.find((s) => s.label === variant);
      if (expected(variant) === 0) continue;
      expect(line, variant).toBeDefined();
      expect(line!.days).toHaveLength(31);
      expect(line!.days.at(-1)).toBe(dayOf(0));
      expect(line!.count).toBe(expected(variant) + extra);
      expect(line!.data.at(-1)).toBe(expected(variant));
      const unique = uniques.find((s) => s.label === variant)!;
      // Unique users over the 30 days: the first user is counted once.
      expect(unique.aggregated_value).toBe(expected(variant));
    }
    const firstLine = volume.find((s) => s.label === firstVariant)!;
    expect(firstLine.data[firstLine.days.indexOf(dayOf(3 * DAY))]).toBe(2);
    expect(firstLine.data[firstLine.days.indexOf(dayOf(7 * DAY))]).toBe(1);
    const firstDaily = uniques.find((s) => s.label === firstVariant)!;
    expect(firstDaily.data[firstDaily.days.indexOf(dayOf(3 * DAY))]).toBe(1);
    expect(volume.reduce((n, s) => n + s.count, 0)).toBe(users.length + 3);
  });

  it('enriches the dashboard after the checks in PostHog order (vectors 31, 32)', async () => {
    const flag = await createFlag({ key: 'new-onboarding', filters: { groups: [{ rollout_percentage: 100 }] } });
    const enrich = `${flagsPath}${flag.id}/enrich_usage_dashboard`;
    expect(await admin.post(enrich)).toMatchObject({
      status: 400,
      json: { success: false, error: 'No enriched analytics available for this feature flag' },
    });
    expect((await admin.patch(`${flagsPath}${flag.id}/`, { has_enriched_analytics: true })).status).toBe(200);
    await checkVector(admin, managementVector(32, { project_id: project.id, flag_id: flag.id }));
    await checkVector(admin, managementVector(31, { project_id: project.id, flag_id: flag.id }));

    const r = await postJson(d, '/batch/', {
      api_key: project.api_token,
      batch: [
        { event: '$feature_view', distinct_id: 'viewer-1', properties: { feature_flag: 'new-onboarding' } },
        { event: '$feature_view', distinct_id: 'viewer-2', properties: { feature_flag: 'new-onboarding' } },
        { event: '$feature_interaction', distinct_id: 'viewer-1', properties: { feature_flag: 'new-onboarding' } },
        { event: '$feature_view', distinct_id: 'viewer-3', properties: { feature_flag: 'another-flag' } },
      ],
    });
    expect(r.status, r.text).toBe(200);
    await waitForPersons(d);
    const board = await dashboard(flag.usage_dashboard);
    expect(board.tiles).toHaveLength(4);
    const byName = new Map(board.tiles.map((t) => [t.insight.name, t.insight.result]));
    expect(byName.get('Feature Viewed Total Volume')?.[0]?.count).toBe(2);
    expect(byName.get('Feature Interaction Total Volume')?.[0]?.count).toBe(1);

    // A new key re-points the two system insights, found by name, as PostHog's
    // update_feature_flag_dashboard does; the enrichment insights keep the key they were made with.
    expect((await admin.patch(`${flagsPath}${flag.id}/`, { key: 'onboarding-v2' })).status).toBe(200);
    const renamed = await dashboard(flag.usage_dashboard);
    const keyOf = (t: (typeof renamed.tiles)[number]) =>
      (t.insight as unknown as { filters: { properties: { values: Array<{ values: Array<{ value: string[] }> }> } } }).filters.properties
        .values[0]!.values[0]!.value[0];
    const keys = Object.fromEntries(renamed.tiles.map((t) => [t.insight.name, keyOf(t)]));
    expect(keys).toEqual({
      'Feature Flag Called Total Volume': 'onboarding-v2',
      'Feature Flag calls made by unique users per variant': 'onboarding-v2',
      'Feature Interaction Total Volume': 'new-onboarding',
      'Feature Viewed Total Volume': 'new-onboarding',
    });
    const described = renamed.tiles.find((t) => t.insight.name === 'Feature Flag Called Total Volume')!;
    expect((described.insight as unknown as { description: string }).description).toBe(
      'Shows the number of total calls made on feature flag with key: onboarding-v2',
    );
  });

  it('makes a new usage dashboard on request, enriched when the flag is', async () => {
    const flag = await createFlag({ key: 'rich-flag', has_enriched_analytics: true, filters: { groups: [{ rollout_percentage: 100 }] } });
    const r = await admin.post(`${flagsPath}${flag.id}/dashboard/`);
    expect(r.status, r.text).toBe(200);
    expect(r.json).toEqual({ success: true });
    const updated = (await admin.get(`${flagsPath}${flag.id}/`)).json as { usage_dashboard: number };
    expect(updated.usage_dashboard).not.toBe(flag.usage_dashboard);
    expect((await dashboard(updated.usage_dashboard)).tiles).toHaveLength(4);
    expect((await dashboard(flag.usage_dashboard)).tiles).toHaveLength(2);

    expect((await admin.post(`${flagsPath}999999/dashboard/`)).status).toBe(404);
    expect((await admin.post(`${flagsPath}999999/enrich_usage_dashboard/`)).status).toBe(404);
    const scoped = await createUser(d, { email: 'scoped-dash@example.com', scopes: ['*'], project: project.id });
    expect((await apiClient(d, scoped.key).post(`${flagsPath}${flag.id}/dashboard/`)).json).toEqual(
      errorBody('authentication_error', 'permission_denied', 'This action does not support Personal API Key access'),
    );
  });

  it('serves the dashboard as an HTML page for a personal key or a signed link only', async () => {
    const flag = await createFlag({ key: 'page-flag', filters: { groups: [{ rollout_percentage: 100 }] } });
    const board = await dashboard(flag.usage_dashboard);
    const pagePath = `/project/${project.id}/dashboard/${board.id}`;
    expect((await send(d, pagePath)).status).toBe(401);

    const withKey = await send(d, `${pagePath}?personal_api_key=${d.personalKey}`);
    expect(withKey.status).toBe(200);
    expect(withKey.headers.get('content-type')).toMatch(/^text\/html/);
    expect(withKey.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(withKey.text).toContain('Generated Dashboard: page-flag Usage');

    const signed = new URL(board.hedgerow_page_url);
    expect(signed.pathname).toBe(pagePath);
    expect((await send(d, `${signed.pathname}${signed.search}`)).status).toBe(200);
    const tampered = new URLSearchParams(signed.search);
    tampered.set('exp', String(Number(tampered.get('exp')) + 1));
    const refused = await send(d, `${pagePath}?${tampered}`);
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual(errorBody('authentication_error', 'permission_denied', 'This dashboard link is invalid or has expired.'));
    // A link for one dashboard does not open another.
    const other = await send(d, `/project/${project.id}/dashboard/${board.id + 1}${signed.search}`);
    expect(other.status).toBe(403);
  });
});

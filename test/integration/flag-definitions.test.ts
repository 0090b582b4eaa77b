/**
 * Flag definitions for local evaluation against the real daemon: the three paths, personal-key
 * authentication and scopes, the served shape (inactive flags included, deleted ones not,
 * cohorts only with `send_cohorts`, dependency chains), and the ETag / 304 revalidation, which
 * moves when a flag changes. Management vectors 33 and 34 (with named exceptions).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, checkVector, createUser, managementVector, type ApiClient } from '../helpers/api.js';
import { BACKENDS, cleanupDaemons, useDaemon } from '../helpers/daemon.js';
import { send } from '../helpers/http.js';

afterAll(cleanupDaemons);

const FLAGS = '/api/projects/1/feature_flags/';

interface Definitions {
  flags: Array<{ key: string; active: boolean; filters: { groups: Array<{ properties?: Array<Record<string, unknown>> }> } }>;
  group_type_mapping: Record<string, string>;
  cohorts: Record<string, unknown>;
}

describe.each(BACKENDS)('flag definitions for local evaluation (%s)', (backend) => {
  const d = useDaemon({ backend });
  let admin: ApiClient;
  const ids: Record<string, number> = {};
  let cohortId = 0;

  const get = (path: string, headers: Record<string, string> = {}) =>
    send(d, path, { headers: { authorization: `Bearer ${d.personalKey}`, ...headers } });

  beforeAll(async () => {
    admin = apiClient(d, d.personalKey);
    const cohort = await admin.post('/api/projects/1/cohorts/', {
      name: 'Pros',
      filters: { properties: { type: 'OR', values: [{ type: 'AND', values: [{ key: 'plan', value: 'pro', type: 'person' }] }] } },
    });
    expect(cohort.status, cohort.text).toBe(201);
    cohortId = (cohort.json as { id: number }).id;
    const create = async (name: string, body: Record<string, unknown>) => {
      const r = await admin.post(FLAGS, body);
      expect(r.status, r.text).toBe(201);
      ids[name] = (r.json as { id: number }).id;
    };
    await create('alpha', {
      key: 'alpha-feature',
      filters: {
        groups: [{ properties: [], rollout_percentage: null }],
        multivariate: {
          variants: [
            { key: 'a', rollout_percentage: 50 },
            { key: 'b', rollout_percentage: 50 },
          ],
        },
      },
    });
    await create('cohort', {
      key: 'cohort-flag',
      filters: { groups: [{ properties: [{ key: 'id', type: 'cohort', value: cohortId }], rollout_percentage: 100 }] },
    });
    await create('dependent', {
      key: 'dependent-flag',
      filters: {
        groups: [{ properties: [{ key: String(ids.alpha), type: 'flag', value: 'a', operator: 'flag_evaluates_to' }] }],
      },
    });
    await create('inactive', { key: 'inactive-flag', active: false, filters: { groups: [{ rollout_percentage: 100 }] } });
    await create('deleted', { key: 'deleted-flag', filters: { groups: [{ rollout_percentage: 100 }] } });
    expect((await admin.patch(`${FLAGS}${ids.deleted}/`, { deleted: true })).status).toBe(200);
  });

  it('needs a personal API key (vector 33)', async () => {
    const v = managementVector(33, { project_api_token: d.projectKey });
    const r = await send(d, v.request.path);
    expect(r.status).toBe(v.expected.status);
    expect((await send(d, `/flags/definitions?token=${d.projectKey}&send_cohorts`)).status).toBe(401);
  });

  it('serves active and inactive flags, never deleted ones (vector 34, with named exceptions)', async () => {
    // Exceptions to vector 34 (a 2024 test): inactive flags are served with `active: false` since
    // PostHog PR #28633 (Feb 2025), so SDKs answer false locally; the group types and the legacy
    // rollout column of its setup do not exist here (group types come from ingestion).
    const v = managementVector(34, { project_api_token: d.projectKey });
    const r = await get(v.request.path);
    expect(r.status).toBe(200);
    const body = r.json as Definitions;
    expect(body.flags.map((f) => f.key).sort()).toEqual(['alpha-feature', 'cohort-flag', 'dependent-flag', 'inactive-flag']);
    expect(body.flags.find((f) => f.key === 'inactive-flag')!.active).toBe(false);
    expect(body.flags.find((f) => f.key === 'alpha-feature')).toMatchObject({
      deleted: false,
      active: true,
      ensure_experience_continuity: false,
    });
    expect(body.group_type_mapping).toEqual({});
  });

  it('includes cohorts with send_cohorts and rewrites dependencies with their chain', async () => {
    const legacy = (await get(`/api/feature_flag/local_evaluation?token=${d.projectKey}&send_cohorts`)).json as Definitions;
    expect(legacy.cohorts).toEqual({
      [String(cohortId)]: { type: 'OR', values: [{ type: 'AND', values: [{ key: 'plan', value: 'pro', type: 'person' }] }] },
    });
    const project = (await get('/api/projects/1/feature_flags/local_evaluation/')).json as Definitions;
    expect(project.cohorts).toEqual({});
    const definitions = (await get(`/flags/definitions?token=${d.projectKey}`)).json as Definitions;
    expect(Object.keys(definitions.cohorts)).toEqual([String(cohortId)]);
    const dependent = definitions.flags.find((f) => f.key === 'dependent-flag')!;
    expect(dependent.filters.groups[0]!.properties![0]).toMatchObject({
      key: 'alpha-feature',
      type: 'flag',
      value: 'a',
      dependency_chain: ['alpha-feature'],
    });
  });

  it.each([
    ['/flags/definitions', (key: string) => `/flags/definitions?token=${key}&send_cohorts`],
    ['/api/feature_flag/local_evaluation', (key: string) => `/api/feature_flag/local_evaluation?token=${key}&send_cohorts`],
    ['/api/projects/:id/feature_flags/local_evaluation/', () => `${FLAGS}local_evaluation/?send_cohorts`],
  ])('revalidates with ETags on %s: 304 while unchanged, a new tag after a change', async (_name, pathFor) => {
    const path = pathFor(d.projectKey);
    const first = await get(path);
    expect(first.status, first.text).toBe(200);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^W\/".+"$/);
    expect(first.headers.get('cache-control')).toBe('private, must-revalidate');
    for (const form of [etag, etag.slice(2), etag.slice(3, -1)]) {
      const again = await get(path, { 'if-none-match': form });
      expect(again.status, form).toBe(304);
      expect(again.text).toBe('');
      expect(again.headers.get('etag')).toBe(etag);
    }
    expect((await get(path, { 'if-none-match': 'W/"something-else"' })).status).toBe(200);
    expect((await admin.patch(`${FLAGS}${ids.alpha}/`, { name: `renamed via ${path}` })).status).toBe(200);
    const changed = await get(path, { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
  });

  it('checks the key scope and project access', async () => {
    const reader = await createUser(d, { email: 'defs-reader@example.com', scopes: ['feature_flag:read'] });
    const other = await createUser(d, { email: 'defs-other@example.com', scopes: ['cohort:read'] });
    const path = `/flags/definitions?token=${d.projectKey}&send_cohorts`;
    expect((await send(d, path, { headers: { authorization: `Bearer ${reader.key}` } })).status).toBe(200);
    const denied = await send(d, path, { headers: { authorization: `Bearer ${other.key}` } });
    expect(denied.status).toBe(403);
    expect((denied.json as { detail: string }).detail).toBe("API key missing required scope 'feature_flag:read'");
    await checkVector(apiClient(d, reader.key), {
      ...managementVector(33, { project_api_token: d.projectKey }),
      expected: { status: 200, body_fragment: null },
    });
  });
});

/**
 * The management API's computed flag views against the real daemon
 * (docs/compatibility.md#flag-views; management vectors 29, 30, 35, 45–48, 51): evaluation reasons,
 * my_flags and user blast radius, on persons and groups made from captured events, and their
 * agreement with `/flags` for the same stored persons. Each scenario runs in its own project so
 * counts are exact.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, checkVector, createProject, createUser, managementVector, type ApiClient, type TestProject } from '../helpers/api.js';
import { cleanupDaemons, useDaemon, type DaemonHandle } from '../helpers/daemon.js';
import { errorBody, postJson, waitForPersons } from '../helpers/http.js';

afterAll(cleanupDaemons);

const flagsPath = (p: number) => `/api/projects/${p}/feature_flags/`;

/** Sends events to `/batch/` for a project and waits until persons and groups have them. */
async function ingest(d: DaemonHandle, token: string, events: Record<string, unknown>[]): Promise<void> {
  const r = await postJson(d, '/batch/', { api_key: token, batch: events });
  expect(r.status, r.text).toBe(200);
  await waitForPersons(d);
}

const setEvent = (distinctId: string, set: Record<string, unknown>) => ({
  event: '$set',
  distinct_id: distinctId,
  properties: { $set: set },
});

async function createFlag(admin: ApiClient, projectId: number, body: Record<string, unknown>): Promise<number> {
  const r = await admin.post(flagsPath(projectId), body);
  expect(r.status, r.text).toBe(201);
  return (r.json as { id: number }).id;
}

/** How many of `distinctIds` get `key` enabled from `/flags` (stored properties only). */
async function enabledCount(d: DaemonHandle, token: string, key: string, distinctIds: string[]): Promise<number> {
  let n = 0;
  for (const id of distinctIds) {
    const r = await postJson(d, '/flags/?v=2', { token, distinct_id: id });
    expect(r.status, r.text).toBe(200);
    if ((r.json as { flags: Record<string, { enabled: boolean }> }).flags[key]?.enabled) n++;
  }
  return n;
}

describe('computed flag views', () => {
  const d = useDaemon({ backend: 'uws' });
  let admin: ApiClient;

  beforeAll(() => {
    admin = apiClient(d, d.personalKey);
  });

  describe('evaluation_reasons', () => {
    let project: TestProject;

    beforeAll(async () => {
      project = await createProject(d, 'evaluation reasons');
      // Group types organization=0, company=1; one person with ids '1' and '2'.
      await ingest(d, project.api_token, [
        { event: '$groupidentify', distinct_id: 'setup', properties: { $group_type: 'organization', $group_key: 'org1', $group_set: {} } },
        { event: '$groupidentify', distinct_id: 'setup', properties: { $group_type: 'company', $group_key: 'co1', $group_set: {} } },
        { event: '$identify', distinct_id: '2', properties: { $anon_distinct_id: '1', $set: { 'beta-property': 'beta-value' } } },
      ]);
      await createFlag(admin, project.id, {
        key: 'alpha-feature',
        filters: {
          groups: [{ properties: [], rollout_percentage: 20 }],
          multivariate: {
            variants: [
              { key: 'first-variant', rollout_percentage: 50 },
              { key: 'second-variant', rollout_percentage: 25 },
              { key: 'third-variant', rollout_percentage: 25 },
            ],
          },
        },
      });
      await createFlag(admin, project.id, {
        key: 'beta-feature',
        filters: { groups: [{ properties: [{ key: 'beta-property', value: 'beta-value', type: 'person' }], rollout_percentage: 81 }] },
      });
      await createFlag(admin, project.id, { key: 'inactive-flag', active: false, filters: { groups: [{ rollout_percentage: 100 }] } });
      await createFlag(admin, project.id, {
        key: 'group-feature',
        filters: { aggregation_group_type_index: 0, groups: [{ rollout_percentage: 61 }] },
      });
    });

    it('gives every non-deleted flag its value and reason (vector 35)', async () => {
      const v = managementVector(35, { project_id: project.id });
      const r = await checkVector(admin, v);
      expect(Object.keys(r.json as object).sort()).toEqual(['alpha-feature', 'beta-feature', 'group-feature', 'inactive-flag']);
    });

    it('agrees with /flags for the same stored person and groups', async () => {
      const groups = { organization: 'org1' };
      const reasons = await admin.get(
        `${flagsPath(project.id)}evaluation_reasons/?distinct_id=1&groups=${encodeURIComponent(JSON.stringify(groups))}`,
      );
      expect(reasons.status, reasons.text).toBe(200);
      const flags = await postJson(d, '/flags/?v=2', { token: project.api_token, distinct_id: '1', groups });
      const served = (
        flags.json as {
          flags: Record<string, { enabled: boolean; variant: string | null; reason: { code: string; condition_index: number | null } }>;
        }
      ).flags;
      const body = reasons.json as Record<string, { value: unknown; evaluation: { reason: string; condition_index: number | null } }>;
      for (const key of ['alpha-feature', 'beta-feature', 'group-feature']) {
        const f = served[key]!;
        expect(body[key], key).toEqual({
          value: f.variant ?? f.enabled,
          evaluation: { reason: f.reason.code, condition_index: f.reason.condition_index },
        });
      }
      expect(body['group-feature']!.evaluation.reason).not.toBe('no_group_type');
    });

    it('answers 400 without distinct_id or with unreadable groups, and refuses scoped keys (vector 51)', async () => {
      expect((await admin.get(`${flagsPath(project.id)}evaluation_reasons`)).json).toEqual(
        errorBody('validation_error', 'invalid_input', 'distinct_id is required'),
      );
      const bad = await admin.get(`${flagsPath(project.id)}evaluation_reasons?distinct_id=2&groups=%7Bnope`);
      expect(bad.status).toBe(400);
      expect(bad.json).toEqual(errorBody('validation_error', 'invalid_input', 'Invalid JSON in groups parameter'));
      const list = await admin.get(`${flagsPath(project.id)}evaluation_reasons?distinct_id=2&groups=%5B%5D`);
      expect(list.json).toEqual(errorBody('validation_error', 'invalid_input', 'groups must be a JSON object'));

      const scoped = await createUser(d, { email: 'scoped-reasons@example.com', scopes: ['feature_flag:read'] });
      await checkVector(apiClient(d, scoped.key), managementVector(51, { project_id: project.id }));
    });
  });

  describe('my_flags', () => {
    it('evaluates every non-deleted flag for the calling user, newest first (vectors 29, 30)', async () => {
      const project = await createProject(d, 'my flags');
      const user = await createUser(d, { email: 'my-flags@example.com', project: project.id, distinctId: 'distinct_id' });
      const client = apiClient(d, user.key);
      await checkVector(client, managementVector(30, { project_id: project.id }));

      // PostHog's test makes it with no filters: one condition without properties or rollout.
      await createFlag(admin, project.id, { key: 'red_button', filters: { groups: [{ properties: [], rollout_percentage: null }] } });
      await createFlag(admin, project.id, {
        key: 'alpha-feature',
        filters: {
          groups: [{ rollout_percentage: 20 }],
          multivariate: {
            variants: [
              { key: 'first-variant', rollout_percentage: 50 },
              { key: 'second-variant', rollout_percentage: 25 },
              { key: 'third-variant', rollout_percentage: 25 },
            ],
          },
        },
      });
      const r = await checkVector(client, managementVector(29, { project_id: project.id }));
      expect(r.json).toHaveLength(2);
      const first = (r.json as { feature_flag: Record<string, unknown> }[])[0]!.feature_flag;
      expect(Object.keys(first)).toEqual(expect.arrayContaining(['id', 'team_id', 'key', 'filters', 'active', 'deleted']));

      // An inactive flag is listed, as false; a deleted one is not.
      const off = await createFlag(admin, project.id, {
        key: 'switched-off',
        active: false,
        filters: { groups: [{ rollout_percentage: 100 }] },
      });
      const gone = await createFlag(admin, project.id, { key: 'gone', filters: { groups: [{ rollout_percentage: 100 }] } });
      expect((await admin.patch(`${flagsPath(project.id)}${gone}/`, { deleted: true })).status).toBe(200);
      const after = (await client.get(`${flagsPath(project.id)}my_flags/`)).json as {
        feature_flag: { id: number; key: string };
        value: unknown;
      }[];
      expect(after.map((e) => e.feature_flag.key)).toEqual(['switched-off', 'alpha-feature', 'red_button']);
      expect(after[0]).toMatchObject({ feature_flag: { id: off }, value: false });
    });
  });

  describe('user_blast_radius', () => {
    const radius = (projectId: number, body: unknown) => admin.post(`${flagsPath(projectId)}user_blast_radius`, body);

    it('counts stored persons matching the condition, rollout ignored (vectors 45–47)', async () => {
      const ten = await createProject(d, 'ten persons');
      await ingest(
        d,
        ten.api_token,
        [...Array(10).keys()].map((i) => setEvent(`person-${i}`, { group: String(i) })),
      );
      await checkVector(admin, managementVector(45, { project_id: ten.id }));

      const empty = await createProject(d, 'no persons');
      await checkVector(admin, managementVector(46, { project_id: empty.id }));

      const five = await createProject(d, 'five persons');
      await ingest(
        d,
        five.api_token,
        [...Array(5).keys()].map((i) => setEvent(`p5-${i}`, { n: i })),
      );
      await checkVector(admin, managementVector(47, { project_id: five.id }));
    });

    it('resolves relative dates, counts groups, and answers 400 without a condition or with a mismatched group index (vector 48)', async () => {
      const project = await createProject(d, 'dates and groups');
      const day = 86_400_000;
      const seen = [-90, -60, -45, -10, -5, -2, -1, 0].map((days) => new Date(Date.now() + days * day).toISOString());
      await ingest(d, project.api_token, [
        ...seen.map((at, i) => setEvent(`dated-${i}`, { last_order: at })),
        ...[...Array(10).keys()].map((i) => ({
          event: '$groupidentify',
          distinct_id: 'admin',
          properties: { $group_type: 'organization', $group_key: `org-${i}`, $group_set: { industry: i } },
        })),
      ]);
      const dated = await radius(project.id, {
        condition: { properties: [{ key: 'last_order', type: 'person', value: '-30d', operator: 'is_date_before' }] },
      });
      // The 8 dated persons and the `admin` person of the group events.
      expect(dated.json).toEqual({ users_affected: 3, total_users: 9 });

      const groups = await radius(project.id, {
        condition: { properties: [{ key: 'industry', type: 'group', value: [0, 1, 2, 3], operator: 'exact', group_type_index: 0 }] },
        group_type_index: 0,
      });
      expect(groups.json).toEqual({ users_affected: 4, total_users: 10 });
      expect((await radius(project.id, { condition: null, group_type_index: 0 })).json).toEqual({ users_affected: 10, total_users: 10 });

      await checkVector(admin, managementVector(48, { project_id: project.id }));
      expect((await radius(project.id, { group_type_index: 0 })).json).toEqual(
        errorBody('validation_error', 'invalid_input', 'Missing condition for which to get blast radius'),
      );
      const mixed = await radius(project.id, {
        condition: { properties: [{ key: 'industry', type: 'group', value: 1, group_type_index: 0 }] },
      });
      expect(mixed.json).toEqual(errorBody('validation_error', 'invalid_input', 'Invalid group type index for feature flag condition.'));
    });

    it('agrees with /flags on the same stored persons, cohorts included', async () => {
      const project = await createProject(d, 'agreement');
      const ids = [...Array(40).keys()].map((i) => `agree-${i}`);
      const plans = ['free', 'pro', 'enterprise', 'Pro'];
      await ingest(
        d,
        project.api_token,
        ids.map((id, i) => setEvent(id, { plan: plans[i % 4], seats: i, ...(i % 3 === 0 ? { email: `${id}@corp.example.com` } : {}) })),
      );
      const cohort = await admin.post(`/api/projects/${project.id}/cohorts/`, {
        name: 'big or corp',
        filters: {
          properties: {
            type: 'OR',
            values: [
              { type: 'AND', values: [{ key: 'seats', value: 30, operator: 'gt', type: 'person' }] },
              { type: 'AND', values: [{ key: 'email', value: 'corp.example', operator: 'icontains', type: 'person' }] },
            ],
          },
        },
      });
      expect(cohort.status, cohort.text).toBe(201);
      const cohortId = (cohort.json as { id: number }).id;
      const conditions: unknown[][] = [
        [{ key: 'plan', value: ['pro'], operator: 'exact', type: 'person' }],
        [
          { key: 'plan', value: 'pro', operator: 'icontains', type: 'person' },
          { key: 'seats', value: '10', operator: 'gt', type: 'person' },
        ],
        [{ key: 'email', operator: 'is_not_set', type: 'person' }],
        [{ key: 'id', value: cohortId, type: 'cohort' }],
        [
          { key: 'id', value: cohortId, type: 'cohort', operator: 'not_in' },
          { key: 'plan', value: 'free', operator: 'is_not', type: 'person' },
        ],
      ];
      for (const [i, properties] of conditions.entries()) {
        const key = `agreement-${i}`;
        await createFlag(admin, project.id, { key, filters: { groups: [{ properties, rollout_percentage: 100 }] } });
        const r = await radius(project.id, { condition: { properties, rollout_percentage: 100 } });
        expect(r.status, r.text).toBe(200);
        const counted = r.json as { users_affected: number; total_users: number };
        expect(counted.total_users).toBe(40);
        expect(counted.users_affected, JSON.stringify(properties)).toBe(await enabledCount(d, project.api_token, key, ids));
      }

      // Persons changed after the first question are counted at once (the table follows each batch).
      await ingest(d, project.api_token, [setEvent('agree-new', { plan: 'pro' }), setEvent('agree-0', { plan: 'pro' })]);
      const after = await radius(project.id, { condition: { properties: conditions[0] } });
      // Exact matching ignores case: 'pro' and 'Pro' (10 each), the new person and agree-0 (was 'free').
      expect(after.json).toEqual({ users_affected: 22, total_users: 41 });
    });
  });
});

/**
 * The cohorts API against the real daemon, and the flag API's checks of cohort references
 * (management vectors 37 and 39).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, checkVector, createUser, managementVector, type ApiClient } from '../helpers/api.js';
import { cleanupDaemons, useDaemon } from '../helpers/daemon.js';
import { errorBody, send } from '../helpers/http.js';

afterAll(cleanupDaemons);

const COHORTS = '/api/projects/1/cohorts/';

describe('cohorts API', () => {
  const d = useDaemon({ backend: 'uws' });
  let admin: ApiClient;
  beforeAll(() => {
    admin = apiClient(d, d.personalKey);
  });

  async function createCohort(body: Record<string, unknown>): Promise<{ id: number } & Record<string, unknown>> {
    const r = await admin.post(COHORTS, body);
    expect(r.status, r.text).toBe(201);
    return r.json as { id: number } & Record<string, unknown>;
  }

  const personGroup = {
    properties: {
      type: 'OR',
      values: [{ type: 'AND', values: [{ key: 'email', value: '@example.com', type: 'person', operator: 'icontains' }] }],
    },
  };

  it('creates, lists newest first, reads, updates and soft-deletes', async () => {
    const a = await createCohort({ name: 'Customers', filters: personGroup });
    expect(a).toMatchObject({ name: 'Customers', is_static: false, deleted: false, filters: personGroup, count: null });
    expect(a.created_by).toMatchObject({ email: 'admin@hedgerow.local' });
    const b = await createCohort({ name: 'Beta testers', is_static: true });
    const list = (await admin.get(COHORTS)).json as { count: number; results: Array<{ id: number }> };
    expect(list.results.map((c) => c.id).slice(0, 2)).toEqual([b.id, a.id]);
    expect(((await admin.patch(`${COHORTS}${a.id}/`, { name: 'Paying customers' })).json as { name: string }).name).toBe(
      'Paying customers',
    );
    expect((await admin.patch(`${COHORTS}${b.id}/`, { deleted: true })).status).toBe(200);
    const after = (await admin.get(COHORTS)).json as { results: Array<{ id: number }> };
    expect(after.results.map((c) => c.id)).not.toContain(b.id);
    expect(((await admin.get(`${COHORTS}${b.id}`)).json as { deleted: boolean }).deleted).toBe(true);
    expect([(await admin.delete(`${COHORTS}${a.id}`)).status, (await admin.get(`${COHORTS}${a.id}`)).status]).toEqual([405, 200]);
  });

  it('rejects unknown cohort references, loops and malformed groups', async () => {
    const unknown = await admin.post(COHORTS, {
      name: 'dangling',
      filters: { properties: { type: 'AND', values: [{ key: 'id', type: 'cohort', value: 987654 }] } },
    });
    expect([unknown.status, unknown.json]).toEqual([
      400,
      { type: 'validation_error', code: 'cohort_does_not_exist', detail: 'Cohort with id 987654 does not exist', attr: 'filters' },
    ]);
    const base = await createCohort({ name: 'base', filters: personGroup });
    const outer = await createCohort({
      name: 'outer',
      filters: { properties: { type: 'AND', values: [{ key: 'id', type: 'cohort', value: base.id }] } },
    });
    const loop = await admin.patch(`${COHORTS}${base.id}`, {
      filters: { properties: { type: 'AND', values: [{ key: 'id', type: 'cohort', value: outer.id }] } },
    });
    expect([loop.status, (loop.json as { detail: string }).detail]).toEqual([400, 'Cohorts cannot reference other cohorts in a loop.']);
    expect((await admin.post(COHORTS, { name: 'bad', filters: { properties: { type: 'XOR', values: [] } } })).status).toBe(400);
  });

  // 39 before 37: both create the key `cohort-flag`, and 39 must fail on the cohort, not the key.
  it('vector 39: a flag may not use a cohort that depends on a behavioural cohort', async () => {
    const behavioural = await createCohort({
      name: 'cohort-behavioural',
      filters: {
        properties: {
          type: 'OR',
          values: [
            {
              type: 'OR',
              values: [
                {
                  key: '$pageview',
                  event_type: 'events',
                  time_value: 2,
                  time_interval: 'week',
                  value: 'performed_event_first_time',
                  type: 'behavioral',
                },
              ],
            },
          ],
        },
      },
    });
    const outer = await createCohort({
      name: 'cohort-not-behavioural',
      filters: { properties: { type: 'OR', values: [{ type: 'AND', values: [{ key: 'id', value: behavioural.id, type: 'cohort' }] }] } },
    });
    await checkVector(admin, managementVector(39, { project_id: 1, cohort_id: outer.id }));
  });

  it('refuses behavioural filters PATCHed into a cohort an active flag uses, directly or through a cohort', async () => {
    const behaviouralLeaf = {
      key: '$pageview',
      event_type: 'events',
      time_value: 30,
      time_interval: 'day',
      value: 'performed_event',
      type: 'behavioral',
    };
    const used = await createCohort({ name: 'used by a flag', filters: personGroup });
    const outer = await createCohort({
      name: 'outer',
      filters: { properties: { type: 'AND', values: [{ key: 'id', value: used.id, type: 'cohort' }] } },
    });
    const flag = await admin.post('/api/projects/1/feature_flags/', {
      key: `uses-outer-${outer.id}`,
      filters: { groups: [{ properties: [{ key: 'id', type: 'cohort', value: outer.id }], rollout_percentage: 100 }] },
    });
    expect(flag.status, flag.text).toBe(201);
    const direct = await admin.patch(`${COHORTS}${used.id}/`, {
      filters: { properties: { type: 'OR', values: [{ type: 'AND', values: [behaviouralLeaf] }] } },
    });
    expect([direct.status, direct.json]).toEqual([
      400,
      errorBody(
        'validation_error',
        'behavioral_cohort_found',
        'Behavioral filters cannot be added to cohorts used in feature flags.',
        'filters',
      ),
    ]);
    const events = await createCohort({ name: 'events', filters: { properties: { type: 'OR', values: [behaviouralLeaf] } } });
    const nested = await admin.patch(`${COHORTS}${used.id}/`, {
      filters: { properties: { type: 'AND', values: [{ key: 'id', value: events.id, type: 'cohort' }] } },
    });
    expect([nested.status, (nested.json as { detail: string }).detail]).toEqual([
      400,
      "A cohort dependency (events) has filters based on events. These cohorts can't be used in feature flags.",
    ]);
    // Once no active flag uses it, the cohort takes them.
    expect((await admin.patch(`/api/projects/1/feature_flags/${(flag.json as { id: number }).id}/`, { active: false })).status).toBe(200);
    expect(
      (await admin.patch(`${COHORTS}${used.id}/`, { filters: { properties: { type: 'OR', values: [behaviouralLeaf] } } })).status,
    ).toBe(200);
  });

  it('holds a description to 1,000 characters, as its column', async () => {
    const r = await admin.post(COHORTS, { name: 'long', description: 'd'.repeat(1001) });
    expect([r.status, r.json]).toEqual([
      400,
      errorBody('validation_error', 'max_length', 'Ensure this field has no more than 1000 characters.', 'description'),
    ]);
    expect((await admin.post(COHORTS, { name: 'fits', description: 'd'.repeat(1000) })).status).toBe(201);
  });

  it('vector 37: a flag may use a cohort without behavioural filters', async () => {
    const cohort = await createCohort({ name: 'plain cohort', filters: personGroup });
    await checkVector(admin, managementVector(37, { project_id: 1, cohort_id: cohort.id }));
  });

  it('takes long chains and shared sub-cohorts of cohorts, and /flags evaluates them', async () => {
    // 300 cohorts, each "plan = chain AND the one before": deeper than /flags evaluates by recursion.
    const plan = { key: 'plan', value: ['chain'], operator: 'exact', type: 'person' };
    let below = await createCohort({ name: 'chain-0', filters: { properties: { type: 'AND', values: [plan] } } });
    for (let k = 1; k < 300; k++) {
      below = await createCohort({
        name: `chain-${k}`,
        filters: { properties: { type: 'AND', values: [plan, { key: 'id', type: 'cohort', value: below.id }] } },
      });
    }
    const flag = await admin.post('/api/projects/1/feature_flags/', {
      key: 'long-cohort-chain',
      filters: { groups: [{ properties: [{ key: 'id', type: 'cohort', value: below.id }], rollout_percentage: 100 }] },
    });
    expect(flag.status, flag.text).toBe(201);
    const ask = async (plan: string) => {
      const r = await send(d, '/flags/?v=2', {
        body: JSON.stringify({ token: d.projectKey, distinct_id: 'chain-user', person_properties: { plan } }),
        headers: { 'content-type': 'application/json' },
      });
      const body = r.json as { errorsWhileComputingFlags: boolean; flags: Record<string, { enabled: boolean }> };
      return [r.status, body.errorsWhileComputingFlags, body.flags['long-cohort-chain']?.enabled];
    };
    expect(await ask('chain')).toEqual([200, false, true]);
    expect(await ask('other')).toEqual([200, false, false]);
    // Each cohort references the one before twice: its check walks 40 cohorts, not 2^40 paths.
    let shared = await createCohort({ name: 'shared-0', filters: { properties: { type: 'AND', values: [plan] } } });
    const started = Date.now();
    for (let k = 1; k < 40; k++) {
      const ref = { key: 'id', type: 'cohort', value: shared.id };
      shared = await createCohort({ name: `shared-${k}`, filters: { properties: { type: 'OR', values: [ref, ref] } } });
    }
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('refuses a body nested deeper than 128 levels with a parse error, before looking at it', async () => {
    let group: Record<string, unknown> = { type: 'AND', values: [{ key: 'plan', value: ['x'], operator: 'exact', type: 'person' }] };
    for (let i = 0; i < 200; i++) group = { type: 'AND', values: [group] };
    const r = await admin.post(COHORTS, { name: 'too deep', filters: { properties: group } });
    expect([r.status, r.json]).toEqual([
      400,
      { type: 'invalid_request', code: 'parse_error', detail: 'JSON parse error - nesting deeper than 128 levels', attr: null },
    ]);
  });

  it('scopes: cohort:read may read but not write', async () => {
    const reader = await createUser(d, { email: 'cohort-reader@example.com', scopes: ['cohort:read'] });
    const api = apiClient(d, reader.key);
    expect((await api.get(COHORTS)).status).toBe(200);
    const denied = await api.post(COHORTS, { name: 'x' });
    expect([denied.status, (denied.json as { detail: string }).detail]).toEqual([403, "API key missing required scope 'cohort:write'"]);
  });
});

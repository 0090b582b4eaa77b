/**
 * Role access on feature flags and `can_edit` against the real daemon: the management vectors
 * 53-57 (PostHog's ee tests), edit enforcement on PATCH, and the role access endpoints' shapes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, checkVector, createUser, managementVector, type ApiClient, type TestUser } from '../helpers/api.js';
import { cleanupDaemons, runCli, useDaemon } from '../helpers/daemon.js';

afterAll(cleanupDaemons);

const CAN_ONLY_VIEW = 21;
const CAN_ALWAYS_EDIT = 37;

describe('flag role access and can_edit', () => {
  const d = useDaemon({ backend: 'uws' });
  let admin: ApiClient;
  let member: TestUser;
  let memberApi: ApiClient;
  let orgAdmin: TestUser;

  beforeAll(async () => {
    admin = apiClient(d, d.personalKey);
    member = await createUser(d, { email: 'member@example.com' });
    memberApi = apiClient(d, member.key);
    orgAdmin = await createUser(d, { email: 'orgadmin@example.com', level: 'admin' });
  });

  async function setOrgLevel(level: number): Promise<void> {
    const r = await admin.post('/api/organizations/@current/resource_access/', {
      resource: 'feature flags',
      access_level: level,
    });
    if (r.status === 201) return;
    const list = (await admin.get('/api/organizations/@current/resource_access/')).json as {
      results: Array<{ id: number; resource: string }>;
    };
    const row = list.results.find((x) => x.resource === 'feature flags')!;
    expect((await admin.patch(`/api/organizations/@current/resource_access/${row.id}/`, { access_level: level })).status).toBe(200);
  }

  async function createRole(name: string): Promise<string> {
    const r = await admin.post('/api/organizations/@current/roles/', { name });
    expect(r.status, r.text).toBe(201);
    return (r.json as { id: string }).id;
  }

  async function createFlag(client: ApiClient, key: string, projectId: number | string = '@current'): Promise<number> {
    const r = await client.post(`/api/projects/${projectId}/feature_flags/`, { key });
    expect(r.status, r.text).toBe(201);
    return (r.json as { id: number }).id;
  }

  it('vector 53: the creator may add role access when the organization only lets people view', async () => {
    await setOrgLevel(CAN_ONLY_VIEW);
    const role = await createRole('Engineering');
    const flag = await createFlag(memberApi, 'member-created');
    const r = await checkVector(memberApi, managementVector(53, { flag_id: flag, role_id: role }));
    const item = r.json as Record<string, unknown>;
    expect(item).toMatchObject({
      id: expect.any(Number),
      feature_flag: { id: flag, key: 'member-created', can_edit: true },
      role: { id: role, name: 'Engineering', associated_flags: [{ id: flag, key: 'member-created' }] },
      added_at: expect.stringMatching(/:\d\d(\.\d{6})?Z$/),
      updated_at: expect.any(String),
    });
    const list = await memberApi.get(`/api/projects/@current/feature_flags/${flag}/role_access`);
    expect((list.json as { count: number; results: unknown[] }).count).toBe(1);
    const one = await memberApi.get(`/api/projects/@current/feature_flags/${flag}/role_access/${item.id as number}/`);
    expect([one.status, (one.json as { id: number }).id]).toEqual([200, item.id]);
    const dup = await memberApi.post(`/api/projects/@current/feature_flags/${flag}/role_access`, { role_id: role });
    expect(dup.status).toBe(400);
    const unknown = await memberApi.post(`/api/projects/@current/feature_flags/${flag}/role_access`, {
      role_id: '00000000-0000-0000-0000-000000000000',
    });
    expect([unknown.status, (unknown.json as { attr: string }).attr]).toEqual([400, 'role_id']);
    const del = await memberApi.delete(`/api/projects/@current/feature_flags/${flag}/role_access/${item.id as number}/`);
    expect([del.status, del.text]).toEqual([204, '']);
    expect((await memberApi.get(`/api/projects/@current/feature_flags/${flag}/role_access/${item.id as number}/`)).status).toBe(404);
  });

  it("vectors 54 and 56: a member with no role cannot add role access or edit another's flag", async () => {
    await setOrgLevel(CAN_ONLY_VIEW);
    const marketing = await createRole('Marketing');
    const flag = await createFlag(admin, 'admin-created');
    await checkVector(memberApi, managementVector(54, { flag_id: flag, marketing_role_id: marketing }));
    const list = (await memberApi.get('/api/projects/@current/feature_flags?search=admin-created')).json as {
      results: Array<{ can_edit: boolean; user_access_level: string }>;
    };
    expect(list.results).toMatchObject([{ can_edit: false, user_access_level: 'viewer' }]);
    await checkVector(memberApi, {
      ...managementVector(56),
      request: { method: 'GET', path: '/api/projects/@current/feature_flags?search=admin-created', body: null },
    });
    const patch = await memberApi.patch(`/api/projects/@current/feature_flags/${flag}/`, { name: 'mine now' });
    expect([patch.status, patch.json]).toEqual([
      403,
      {
        type: 'authentication_error',
        code: 'permission_denied',
        detail: "You don't have edit permissions for this feature flag.",
        attr: null,
      },
    ]);
    // Linking the flag to a role the member is in lets the member edit it.
    const editors = await createRole('Flag editors');
    expect((await admin.post(`/api/organizations/@current/roles/${editors}/role_memberships/`, { user_uuid: member.uuid })).status).toBe(
      201,
    );
    expect((await admin.post(`/api/projects/@current/feature_flags/${flag}/role_access/`, { role_id: editors })).status).toBe(201);
    const after = (await memberApi.get(`/api/projects/@current/feature_flags/${flag}`)).json as { can_edit: boolean };
    expect(after.can_edit).toBe(true);
    expect((await memberApi.patch(`/api/projects/@current/feature_flags/${flag}/`, { name: 'mine now' })).status).toBe(200);
  });

  it('vector 55: an organization admin may always add role access', async () => {
    await setOrgLevel(CAN_ONLY_VIEW);
    const role = await createRole('Admins pick');
    const flag = await createFlag(admin, 'for-admin');
    await checkVector(apiClient(d, orgAdmin.key), managementVector(55, { flag_id: flag, role_id: role }));
  });

  it('vector 57: with the organization level at "can always edit", a view-only role does not restrict', async () => {
    await setOrgLevel(CAN_ALWAYS_EDIT);
    const created = await runCli(['admin', 'projects', 'create', '--name', 'vector 57', '--json', '--data-dir', d.dataDir]);
    const project = (JSON.parse(created.stdout) as { id: number }).id;
    const viewers = await createRole('Viewers');
    const r = await admin.patch(`/api/organizations/@current/roles/${viewers}/`, { feature_flags_access_level: CAN_ONLY_VIEW });
    expect(r.status).toBe(200);
    await admin.post(`/api/organizations/@current/roles/${viewers}/role_memberships/`, { user_uuid: member.uuid });
    await createFlag(memberApi, 'member-flag-57', project);
    await checkVector(memberApi, managementVector(57, { project_id: project }));
  });

  it('a read-only key may list role access but not add it', async () => {
    const reader = await createUser(d, { email: 'ra-reader@example.com', scopes: ['feature_flag:read'] });
    const flag = await createFlag(admin, 'scoped-role-access');
    const readerApi = apiClient(d, reader.key);
    expect((await readerApi.get(`/api/projects/@current/feature_flags/${flag}/role_access/`)).status).toBe(200);
    const denied = await readerApi.post(`/api/projects/@current/feature_flags/${flag}/role_access/`, { role_id: 'x' });
    expect([denied.status, (denied.json as { detail: string }).detail]).toEqual([
      403,
      "API key missing required scope 'feature_flag:write'",
    ]);
  });
});

/**
 * The organization RBAC API against the real daemon (docs/compatibility.md#role-based-access;
 * management vector 58): roles (admin-only writes, case-insensitive unique names, the organization
 * default level), role memberships, organization resource access, the cascade on role delete,
 * personal-key scopes, and the `hedgerow admin roles|access` commands on the same data directory.
 */

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import { RbacStore } from '../../src/store/rbac-store.js';
import { cleanupDaemons, runCli, useDaemon } from '../helpers/daemon.js';
import { errorBody, postJson, send, type Reply } from '../helpers/http.js';

afterAll(cleanupDaemons);

interface BasicUserBody {
  id: number;
  uuid: string;
  email: string;
  [k: string]: unknown;
}
interface MembershipBody {
  id: string;
  role_id: string;
  user: BasicUserBody;
  joined_at: string;
  updated_at: string;
}
interface RoleBody {
  id: string;
  name: string;
  feature_flags_access_level: number;
  created_at: string;
  created_by: BasicUserBody | null;
  members: MembershipBody[];
  associated_flags: { id: number; key: string }[];
}
interface Page<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

// DRF prints six fractional digits, none on a whole second.
const ISO_MICROS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z$/;
const ADMIN_REQUIRED = errorBody('authentication_error', 'permission_denied', 'You need to have admin level or higher.');
const NOT_FOUND = errorBody('invalid_request', 'not_found', 'Not found.');

describe('roles API (uws backend)', () => {
  const d = useDaemon({ backend: 'uws' });
  const ROLES = '/api/organizations/@current/roles';
  const ACCESS = '/api/organizations/@current/resource_access';

  const cli = async (...args: string[]) => {
    const r = await runCli(['admin', ...args, '--data-dir', d.dataDir]);
    if (r.code !== 0) throw new Error(`hedgerow admin ${args.join(' ')} → ${r.code}: ${r.stderr}`);
    return r.stdout;
  };
  const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
  const get = (path: string, key = d.personalKey) => send(d, path, { headers: bearer(key) });
  const post = (path: string, body: unknown, key = d.personalKey) => postJson(d, path, body, bearer(key));
  const patch = (path: string, body: unknown, key = d.personalKey) =>
    send(d, path, {
      method: 'PATCH',
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json', ...bearer(key) },
    });
  const del = (path: string, key = d.personalKey) => send(d, path, { method: 'DELETE', headers: bearer(key) });
  const expectReply = (r: Reply, status: number, body?: unknown) => {
    expect({ status: r.status, body: r.json }).toEqual({ status, body: body === undefined ? r.json : body });
  };

  /** A plain member (`memberKey`), a second user to put in roles, and the bootstrap owner. */
  let memberKey = '';
  let member: BasicUserBody;
  let bob: BasicUserBody;
  let owner: BasicUserBody;

  beforeAll(async () => {
    member = JSON.parse(await cli('users', 'create', '--email', 'member@example.com', '--first-name', 'Mem', '--json'));
    bob = JSON.parse(await cli('users', 'create', '--email', 'bob@example.com', '--json'));
    memberKey = (JSON.parse(await cli('keys', 'create', '--user', 'member@example.com', '--full-access', '--json')) as { key: string }).key;
    const users = JSON.parse(await cli('users', 'list', '--json')) as BasicUserBody[];
    owner = users.find((u) => u.email === 'admin@hedgerow.local')!;
  });

  it('vector 58: a member cannot create a role; an admin gets 201 with the role', async () => {
    const denied = await post(ROLES, { name: 'Product 2' }, memberKey);
    expectReply(denied, 403, ADMIN_REQUIRED);

    const created = await post(ROLES, { name: 'Product' });
    expect(created.status).toBe(201);
    const role = created.json as RoleBody;
    expect(role).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Product',
      feature_flags_access_level: 37,
      created_at: expect.stringMatching(ISO_MICROS),
      created_by: {
        id: owner.id,
        uuid: owner.uuid,
        distinct_id: expect.any(String),
        first_name: expect.any(String),
        last_name: '',
        email: 'admin@hedgerow.local',
        is_email_verified: false,
        hedgehog_config: null,
      },
      members: [],
      associated_flags: [],
    });

    // Members may read.
    const list = await get(`${ROLES}/`, memberKey);
    expect(list.status).toBe(200);
    expect((list.json as Page<RoleBody>).results.map((r) => r.name)).toContain('Product');
    expectReply(await get(`${ROLES}/${role.id}/`, memberKey), 200, role);
  });

  it('a duplicate name, in any case, is 400 unique on name', async () => {
    expect((await post(ROLES, { name: 'Marketing' })).status).toBe(201);
    expectReply(
      await post(ROLES, { name: 'marketing' }),
      400,
      errorBody('validation_error', 'unique', 'There is already a role with this name.', 'name'),
    );
    expectReply(await post(ROLES, {}), 400, errorBody('validation_error', 'required', 'This field is required.', 'name'));
    expectReply(
      await post(ROLES, { name: 'x'.repeat(201) }),
      400,
      errorBody('validation_error', 'max_length', 'Ensure this field has no more than 200 characters.', 'name'),
    );
    expectReply(
      await post(ROLES, { name: 'a\u0000b' }),
      400,
      errorBody('validation_error', 'null_characters_not_allowed', 'Null characters are not allowed.', 'name'),
    );
    expectReply(
      await post(ROLES, { name: '\ud800' }),
      400,
      errorBody('validation_error', 'surrogate_characters_not_allowed', 'Surrogate characters are not allowed: U+D800.', 'name'),
    );
  });

  it('PATCH changes the name and the level (admins only); a bad level is invalid_choice', async () => {
    const role = (await post(ROLES, { name: 'Support' })).json as RoleBody;
    const path = `${ROLES}/${role.id}`;
    expectReply(await patch(path, { name: 'member edit' }, memberKey), 403, ADMIN_REQUIRED);
    const renamed = await patch(path, { name: 'On call support', feature_flags_access_level: 21 });
    expectReply(renamed, 200, { ...role, name: 'On call support', feature_flags_access_level: 21 });
    expect((await patch(path, { feature_flags_access_level: 37 })).json).toMatchObject({ feature_flags_access_level: 37 });
    expectReply(
      await patch(path, { feature_flags_access_level: 5 }),
      400,
      errorBody('validation_error', 'invalid_choice', '"5" is not a valid choice.', 'feature_flags_access_level'),
    );
    expectReply(await patch(`${ROLES}/${randomUUID()}`, { name: 'x' }), 404, NOT_FOUND);
  });

  it('role memberships: add by user_uuid, list, refuse duplicates and unknown users, remove', async () => {
    const role = (await post(ROLES, { name: 'Engineering' })).json as RoleBody;
    const members = `${ROLES}/${role.id}/role_memberships`;

    expectReply(await post(members, { user_uuid: bob.uuid }, memberKey), 403, ADMIN_REQUIRED);
    const added = await post(`${members}/`, { user_uuid: bob.uuid });
    expect(added.status).toBe(201);
    const m = added.json as MembershipBody;
    expect(m).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      role_id: role.id,
      user: expect.objectContaining({ id: bob.id, uuid: bob.uuid, email: 'bob@example.com', last_name: '' }),
      joined_at: expect.stringMatching(ISO_MICROS),
      updated_at: expect.stringMatching(ISO_MICROS),
    });

    expectReply(
      await post(members, { user_uuid: bob.uuid.toUpperCase() }),
      400,
      errorBody('validation_error', 'invalid_input', 'User is already part of the role.'),
    );
    expectReply(
      await post(members, { user_uuid: randomUUID() }),
      400,
      errorBody('validation_error', 'invalid_input', 'User does not exist.'),
    );
    expectReply(
      await post(members, { user_uuid: 'not-a-uuid' }),
      400,
      errorBody('validation_error', 'invalid_input', 'Must be a valid UUID.', 'user_uuid'),
    );
    expectReply(await post(members, {}), 400, errorBody('validation_error', 'required', 'This field is required.', 'user_uuid'));
    expect((await post(members, { user_uuid: member.uuid })).status).toBe(201);

    const list = (await get(members, memberKey)).json as Page<MembershipBody>;
    expect(list).toMatchObject({ count: 2, next: null, previous: null });
    expect(list.results.map((x) => x.user.email)).toEqual(['bob@example.com', 'member@example.com']);
    const paged = (await get(`${members}?limit=1`)).json as Page<MembershipBody>;
    expect(paged.results.map((x) => x.user.email)).toEqual(['bob@example.com']);
    expect(paged.next).toMatch(/limit=1&offset=1$/);
    expect(((await get(`${ROLES}/${role.id}`)).json as RoleBody).members.map((x) => x.id)).toContain(m.id);

    expect((await send(d, `${members}/${m.id}`, { headers: bearer(d.personalKey) })).status).toBe(405);
    expectReply(await del(`${members}/${m.id}`, memberKey), 403, ADMIN_REQUIRED);
    const removed = await del(`${members}/${m.id}/`);
    expect([removed.status, removed.text]).toEqual([204, '']);
    expectReply(await del(`${members}/${m.id}/`), 404, NOT_FOUND);
    expect(((await get(members)).json as Page<MembershipBody>).results.map((x) => x.user.email)).toEqual(['member@example.com']);
  });

  it('resource access at 21 makes new roles 21; one row per resource; delete restores 37', async () => {
    expectReply(await post(ACCESS, { resource: 'feature flags', access_level: 21 }, memberKey), 403, ADMIN_REQUIRED);
    const created = await post(ACCESS, { resource: 'feature flags', access_level: 21 });
    expect(created.status).toBe(201);
    const row = created.json as { id: number };
    expect(row).toEqual({
      id: expect.any(Number),
      resource: 'feature flags',
      access_level: 21,
      organization: expect.stringMatching(/^[0-9a-f-]{36}$/),
      created_at: expect.stringMatching(ISO_MICROS),
      updated_at: expect.stringMatching(ISO_MICROS),
      created_by: owner.id,
    });
    expectReply(
      await post(ACCESS, { resource: 'feature flags', access_level: 37 }),
      400,
      errorBody('validation_error', 'unique', 'This resource access already exists.', 'resource'),
    );
    expectReply(
      await post(ACCESS, { resource: 'spaceships' }),
      400,
      errorBody('validation_error', 'invalid_choice', '"spaceships" is not a valid choice.', 'resource'),
    );

    // POST /roles takes the organization level, whatever the body says.
    const viewer = await post(ROLES, { name: 'Viewers', feature_flags_access_level: 37 });
    expect(viewer.json).toMatchObject({ name: 'Viewers', feature_flags_access_level: 21 });

    const list = (await get(ACCESS, memberKey)).json as Page<{ id: number }>;
    expect(list.results.map((r) => r.id)).toEqual([row.id]);
    expectReply(await get(`${ACCESS}/${row.id}`), 200, created.json);
    const updated = await patch(`${ACCESS}/${row.id}`, { access_level: 37 });
    expect(updated.json).toMatchObject({ id: row.id, access_level: 37 });
    expect(((await post(ROLES, { name: 'Editors' })).json as RoleBody).feature_flags_access_level).toBe(37);
    expect((await del(`${ACCESS}/${row.id}`)).status).toBe(204);
    expectReply(await get(`${ACCESS}/${row.id}`), 404, NOT_FOUND);
  });

  it('associated_flags lists the role’s flags; deleting the role cascades memberships and flag role access', async () => {
    const role = (await post(ROLES, { name: 'Cascade' })).json as RoleBody;
    expect((await post(`${ROLES}/${role.id}/role_memberships`, { user_uuid: bob.uuid })).status).toBe(201);

    // A flag and its role access row written straight into the store (the flag API is separate).
    const dbs = openStore({ dataDir: d.dataDir, sync: 'none' });
    const rbac = new RbacStore(dbs);
    const flagId = 900_001;
    try {
      dbs.root.transactionSync(() => {
        dbs.flags.putSync(['flag', 1, flagId], { id: flagId, project_id: 1, key: 'cascade-flag' });
      });
      rbac.createFlagRoleAccess({ projectId: 1, featureFlagId: flagId, roleId: role.id });
      expect(((await get(`${ROLES}/${role.id}`)).json as RoleBody).associated_flags).toEqual([{ id: flagId, key: 'cascade-flag' }]);

      expectReply(await del(`${ROLES}/${role.id}`, memberKey), 403, ADMIN_REQUIRED);
      const deleted = await del(`${ROLES}/${role.id}/`);
      expect([deleted.status, deleted.text]).toEqual([204, '']);
      expectReply(await get(`${ROLES}/${role.id}`), 404, NOT_FOUND);
      expectReply(await get(`${ROLES}/${role.id}/role_memberships`), 404, NOT_FOUND);
      expect(rbac.roleAccessForFlag(flagId)).toEqual([]);
      expect(rbac.rolesOfUser(bob.id).map((r) => r.id)).not.toContain(role.id);
    } finally {
      dbs.root.transactionSync(() => {
        dbs.flags.removeSync(['flag', 1, flagId]);
      });
      await dbs.root.close();
    }
  });

  it('personal key scopes: organization:read reads roles but cannot write; resource access refuses scoped keys', async () => {
    const key = (
      JSON.parse(await cli('keys', 'create', '--user', 'admin@hedgerow.local', '--scopes', 'organization:read', '--json')) as {
        key: string;
      }
    ).key;
    expect((await get(ROLES, key)).status).toBe(200);
    expectReply(
      await post(ROLES, { name: 'Scoped' }, key),
      403,
      errorBody('authentication_error', 'permission_denied', "API key missing required scope 'organization:write'"),
    );
    expectReply(
      await get(ACCESS, key),
      403,
      errorBody('authentication_error', 'permission_denied', 'This action does not support Personal API Key access'),
    );
    expect((await send(d, ROLES)).status).toBe(401);
    expectReply(await get(`/api/organizations/${randomUUID()}/roles`), 404, NOT_FOUND);

    // A key limited to projects reaches project endpoints only, as PostHog's APIScopePermission.
    const limited = (
      JSON.parse(await cli('keys', 'create', '--user', 'admin@hedgerow.local', '--scopes', '*', '--projects', '1', '--json')) as {
        key: string;
      }
    ).key;
    const onlyProjects = errorBody(
      'authentication_error',
      'permission_denied',
      'API keys with scoped projects are only supported on project-based endpoints.',
    );
    expectReply(await get(ROLES, limited), 403, onlyProjects);
    expectReply(await post(ROLES, { name: 'From a project key' }, limited), 403, onlyProjects);
    expect((await get('/api/projects/1/feature_flags/', limited)).status).toBe(200);
  });

  it('hedgerow admin roles|access: the same records as the API', async () => {
    await cli('access', 'set', '--resource', 'feature flags', '--level', '21');
    const viaApi = (await post(ROLES, { name: 'After CLI access' })).json as RoleBody;
    expect(viaApi.feature_flags_access_level).toBe(21);
    const access = JSON.parse(await cli('access', 'list', '--json')) as { resource: string; access_level: number }[];
    expect(access.map((a) => [a.resource, a.access_level])).toEqual([['feature flags', 21]]);

    const role = JSON.parse(await cli('roles', 'create', '--name', 'Ops', '--level', '37', '--json')) as RoleBody;
    expect(role).toMatchObject({ name: 'Ops', feature_flags_access_level: 37, created_by: null });
    expect(await runCli(['admin', 'roles', 'create', '--name', 'OPS', '--data-dir', d.dataDir])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('There is already a role with this name.'),
    });

    await cli('roles', 'add-member', '--role', 'ops', '--user', 'bob@example.com');
    const members = JSON.parse(await cli('roles', 'members', '--role', role.id, '--json')) as { user_id: number }[];
    expect(members.map((m) => m.user_id)).toEqual([bob.id]);
    const apiRole = (await get(`${ROLES}/${role.id}`)).json as RoleBody;
    expect(apiRole.members.map((m) => m.user.email)).toEqual(['bob@example.com']);

    await cli('roles', 'remove-member', '--role', 'Ops', '--user', String(bob.id));
    expect(((await get(`${ROLES}/${role.id}`)).json as RoleBody).members).toEqual([]);

    const listed = JSON.parse(await cli('roles', 'list', '--json')) as RoleBody[];
    expect(listed.map((r) => r.name)).toContain('Ops');
    await cli('roles', 'delete', '--role', 'Ops');
    expectReply(await get(`${ROLES}/${role.id}`), 404, NOT_FOUND);

    await cli('access', 'clear', '--resource', 'feature flags');
    expect(((await get(ACCESS)).json as Page<unknown>).count).toBe(0);
  });
});

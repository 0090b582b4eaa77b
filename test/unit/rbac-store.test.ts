/**
 * RbacStore on a real LMDB environment: uniqueness rules, the organization default level at role
 * creation, cascades on role delete, and the indexes behind `rolesOfUser`, `flagIdsForRole` and
 * `roleAccessForFlag`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isHedgerowError } from '../../src/errors.js';
import { openStore, type StoreDatabases } from '../../src/store/open-store.js';
import { ACCESS_LEVEL, RbacStore } from '../../src/store/rbac-store.js';

const opened: { dir: string; dbs: StoreDatabases }[] = [];

function store(): RbacStore {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hedgerow-rbac-'));
  const dbs = openStore({ dataDir: dir, sync: 'none' });
  opened.push({ dir, dbs });
  return new RbacStore(dbs);
}

afterEach(async () => {
  for (const { dir, dbs } of opened.splice(0)) {
    await dbs.root.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

function errorOf(fn: () => unknown): { code: string; detail: string; attr: string | null } | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    if (!isHedgerowError(err)) throw err;
    const b = err.toBody();
    return { code: b.code, detail: b.detail, attr: b.attr };
  }
}

const ORG = 'org-1';
const OTHER_ORG = 'org-2';

describe('RbacStore', () => {
  it('role names are unique per organization, ignoring case', () => {
    const rbac = store();
    rbac.createRole({ organizationId: ORG, name: 'Marketing', createdBy: 1 });
    expect(errorOf(() => rbac.createRole({ organizationId: ORG, name: 'marketing', createdBy: 1 }))).toEqual({
      code: 'unique',
      detail: 'There is already a role with this name.',
      attr: 'name',
    });
    expect(rbac.createRole({ organizationId: OTHER_ORG, name: 'Marketing', createdBy: 1 }).name).toBe('Marketing');
    expect(rbac.roles(ORG).map((r) => r.name)).toEqual(['Marketing']);
  });

  it('a new role takes the organization feature flags level, 37 when none', () => {
    const rbac = store();
    expect(rbac.createRole({ organizationId: ORG, name: 'A', createdBy: 1 }).feature_flags_access_level).toBe(37);
    rbac.createResourceAccess({ organizationId: ORG, resource: 'feature flags', accessLevel: 21, createdBy: 1 });
    expect(rbac.createRole({ organizationId: ORG, name: 'B', createdBy: 1 }).feature_flags_access_level).toBe(21);
    expect(rbac.createRole({ organizationId: OTHER_ORG, name: 'C', createdBy: 1 }).feature_flags_access_level).toBe(37);
    expect(
      rbac.createRole({ organizationId: ORG, name: 'D', createdBy: null, featureFlagsAccessLevel: 37 }).feature_flags_access_level,
    ).toBe(37);
  });

  it('lists roles in creation order', () => {
    const rbac = store();
    const names = ['z', 'a', 'm', 'b', 'y'];
    for (const name of names) rbac.createRole({ organizationId: ORG, name, createdBy: null });
    expect(rbac.roles(ORG).map((r) => r.name)).toEqual(names);
  });

  it('renames, refusing a taken name (its own included, as PostHog does)', () => {
    const rbac = store();
    const a = rbac.createRole({ organizationId: ORG, name: 'Alpha', createdBy: null });
    rbac.createRole({ organizationId: ORG, name: 'Beta', createdBy: null });
    expect(errorOf(() => rbac.updateRole(ORG, a.id, { name: 'BETA' }))?.code).toBe('unique');
    expect(errorOf(() => rbac.updateRole(ORG, a.id, { name: 'alpha' }))?.code).toBe('unique');
    const renamed = rbac.updateRole(ORG, a.id, { name: 'Gamma', featureFlagsAccessLevel: 21 });
    expect(renamed).toMatchObject({ name: 'Gamma', feature_flags_access_level: 21 });
    expect(rbac.roleByName(ORG, 'alpha')).toBeUndefined();
    expect(rbac.roleByName(ORG, 'gamma')?.id).toBe(a.id);
    expect(rbac.createRole({ organizationId: ORG, name: 'Alpha', createdBy: null }).name).toBe('Alpha');
    expect(rbac.updateRole(OTHER_ORG, a.id, { name: 'X' })).toBeUndefined();
  });

  it('memberships: unique per (role, user), indexed both ways', () => {
    const rbac = store();
    const eng = rbac.createRole({ organizationId: ORG, name: 'Eng', createdBy: null });
    const ops = rbac.createRole({ organizationId: ORG, name: 'Ops', createdBy: null });
    const m = rbac.addMember(eng.id, 7);
    rbac.addMember(ops.id, 7);
    rbac.addMember(eng.id, 8);
    expect(errorOf(() => rbac.addMember(eng.id, 7))).toEqual({
      code: 'invalid_input',
      detail: 'User is already part of the role.',
      attr: null,
    });
    expect(errorOf(() => rbac.addMember('no-such-role', 7))?.code).toBe('not_found');
    expect(rbac.memberships(eng.id).map((x) => x.user_id)).toEqual([7, 8]);
    expect(rbac.rolesOfUser(7).map((r) => r.name)).toEqual(['Eng', 'Ops']);
    expect(rbac.removeMembership(ops.id, m.id)).toBe(false); // wrong role
    expect(rbac.removeMembership(eng.id, m.id)).toBe(true);
    expect(rbac.rolesOfUser(7).map((r) => r.name)).toEqual(['Ops']);
    expect(rbac.removeMember(ops.id, 7)).toBe(true);
    expect(rbac.removeMember(ops.id, 7)).toBe(false);
    expect(rbac.rolesOfUser(7)).toEqual([]);
  });

  it('resource access: one row per (organization, resource); set creates then updates', () => {
    const rbac = store();
    const row = rbac.createResourceAccess({ organizationId: ORG, resource: 'feature flags', accessLevel: 21, createdBy: 1 });
    expect(
      errorOf(() => rbac.createResourceAccess({ organizationId: ORG, resource: 'feature flags', accessLevel: 37, createdBy: 1 })),
    ).toEqual({ code: 'unique', detail: 'This resource access already exists.', attr: 'resource' });
    expect(rbac.resourceAccessLevel(ORG, 'feature flags')).toBe(21);
    expect(rbac.resourceAccessLevel(ORG, 'experiments')).toBe(37);
    const set = rbac.setResourceAccess({ organizationId: ORG, resource: 'feature flags', accessLevel: 37, createdBy: null });
    expect(set.id).toBe(row.id);
    const cohorts = rbac.setResourceAccess({ organizationId: ORG, resource: 'cohorts', accessLevel: 21, createdBy: null });
    expect(rbac.resourceAccessList(ORG).map((r) => [r.resource, r.access_level])).toEqual([
      ['feature flags', 37],
      ['cohorts', 21],
    ]);
    expect(rbac.resourceAccess(OTHER_ORG, row.id)).toBeUndefined();
    expect(rbac.deleteResourceAccess(ORG, cohorts.id)).toBe(true);
    expect(rbac.resourceAccessFor(ORG, 'cohorts')).toBeUndefined();
  });

  it('flag role access: unique (role, flag), the role must exist, indexed by flag and by role', () => {
    const rbac = store();
    const eng = rbac.createRole({ organizationId: ORG, name: 'Eng', createdBy: null });
    const a = rbac.createFlagRoleAccess({ projectId: 1, featureFlagId: 10, roleId: eng.id });
    rbac.createFlagRoleAccess({ projectId: 1, featureFlagId: 5, roleId: eng.id });
    expect(errorOf(() => rbac.createFlagRoleAccess({ projectId: 1, featureFlagId: 10, roleId: eng.id }))).toEqual({
      code: 'unique',
      detail: 'The fields role, feature_flag must make a unique set.',
      attr: null,
    });
    expect(errorOf(() => rbac.createFlagRoleAccess({ projectId: 1, featureFlagId: 10, roleId: 'nope' }))).toEqual({
      code: 'does_not_exist',
      detail: 'Invalid pk "nope" - object does not exist.',
      attr: 'role_id',
    });
    expect(rbac.flagIdsForRole(eng.id)).toEqual([5, 10]);
    expect(rbac.roleAccessForFlag(10).map((r) => r.role_id)).toEqual([eng.id]);
    expect(rbac.flagRoleAccess(a.id)).toEqual(a);
    expect(rbac.deleteFlagRoleAccess(a.id)).toBe(true);
    expect(rbac.roleAccessForFlag(10)).toEqual([]);
    expect(rbac.deleteRoleAccessForFlag(5)).toBe(1);
    expect(rbac.flagIdsForRole(eng.id)).toEqual([]);
  });

  it('deleting a role removes its memberships and flag role access, and frees its name', () => {
    const rbac = store();
    const eng = rbac.createRole({ organizationId: ORG, name: 'Eng', createdBy: null });
    const ops = rbac.createRole({ organizationId: ORG, name: 'Ops', createdBy: null });
    const m = rbac.addMember(eng.id, 7);
    rbac.addMember(ops.id, 7);
    const access = rbac.createFlagRoleAccess({ projectId: 1, featureFlagId: 10, roleId: eng.id });
    rbac.createFlagRoleAccess({ projectId: 1, featureFlagId: 10, roleId: ops.id });
    const before = rbac.version();

    expect(rbac.deleteRole(OTHER_ORG, eng.id)).toBe(false);
    expect(rbac.deleteRole(ORG, eng.id)).toBe(true);
    expect(rbac.version()).toBeGreaterThan(before);
    expect(rbac.role(eng.id)).toBeUndefined();
    expect(rbac.membership(m.id)).toBeUndefined();
    expect(rbac.rolesOfUser(7).map((r) => r.name)).toEqual(['Ops']);
    expect(rbac.flagRoleAccess(access.id)).toBeUndefined();
    expect(rbac.roleAccessForFlag(10).map((r) => r.role_id)).toEqual([ops.id]);
    expect(rbac.roles(ORG).map((r) => r.name)).toEqual(['Ops']);
    expect(rbac.createRole({ organizationId: ORG, name: 'eng', createdBy: null }).name).toBe('eng');
  });

  it('userFlagAccess gathers what canEditFeatureFlag needs', () => {
    const rbac = store();
    expect(rbac.userFlagAccess({ id: 7, organization_id: ORG })).toEqual({
      orgFlagAccessLevel: undefined,
      userRoleIds: [],
      userRoleLevels: [],
    });
    rbac.setResourceAccess({ organizationId: ORG, resource: 'feature flags', accessLevel: ACCESS_LEVEL.CAN_ONLY_VIEW, createdBy: null });
    const viewers = rbac.createRole({ organizationId: ORG, name: 'Viewers', createdBy: null });
    const editors = rbac.createRole({ organizationId: ORG, name: 'Editors', createdBy: null, featureFlagsAccessLevel: 37 });
    rbac.addMember(viewers.id, 7);
    rbac.addMember(editors.id, 7);
    expect(rbac.userFlagAccess({ id: 7, organization_id: ORG })).toEqual({
      orgFlagAccessLevel: 21,
      userRoleIds: [viewers.id, editors.id],
      userRoleLevels: [21, 37],
    });
  });
});

/**
 * Roles, role memberships, organization resource access and feature-flag role access in the
 * `rbac` database: PostHog's 2024 role-based access control
 * (docs/compatibility.md#role-based-access; models `ee/models/role.py`,
 * `organization_resource_access.py`, `feature_flag_role_access.py`).
 *
 * Every write runs in one synchronous LMDB transaction that checks its uniqueness rules against
 * the transaction's view (so they hold when the daemon and `hedgerow admin` write at once), writes
 * the record and its indexes, and bumps `rbac_version`. Deleting a role removes its memberships
 * and its flag role access rows in the same commit (the models' ON DELETE CASCADE).
 *
 * Keys (ordered-binary arrays):
 *   ['role', roleId] → Role                ['org_role', orgId, roleId] → null
 *   ['role_name', orgId, lower(name)] → roleId
 *   ['membership', id] → RoleMembership    ['role_member', roleId, userId] / ['user_role', userId, roleId] → membership id
 *   ['resource_access', id] → OrganizationResourceAccess   ['org_resource', orgId, resource] → id
 *   ['flag_role_access', id] → FeatureFlagRoleAccess
 *   ['flag_role', flagId, roleId] / ['role_flag', roleId, flagId] → flag role access id
 */
import { writeRandomUUID } from '../util/write-context.js';
import { ACCESS_LEVEL, DEFAULT_ACCESS_LEVEL, FEATURE_FLAGS_RESOURCE, type AccessLevel, type Resource } from '../auth/access-level.js';
import { catalogueError, HedgerowError } from '../errors.js';
import { isoMicros } from '../compat/iso-micros.js';
import { nextId, type StoreDatabases, type StoreKey } from './open-store.js';

export { ACCESS_LEVEL, DEFAULT_ACCESS_LEVEL, type AccessLevel, type Resource };

export interface Role {
  /** A UUID. */
  id: string;
  organization_id: string;
  /** At most ROLE_NAME_MAX_LENGTH characters, unique in the organization ignoring case. */
  name: string;
  feature_flags_access_level: AccessLevel;
  created_at: string;
  /** User id; null when created from the command line. */
  created_by: number | null;
  /** Creation order (timestamps tie within a millisecond); not part of the API. */
  seq: number;
}

export interface RoleMembership {
  /** A UUID. */
  id: string;
  role_id: string;
  user_id: number;
  joined_at: string;
  updated_at: string;
  /** Creation order; not part of the API. */
  seq: number;
}

export interface OrganizationResourceAccess {
  id: number;
  organization_id: string;
  resource: Resource;
  access_level: AccessLevel;
  created_by: number | null;
  created_at: string;
  updated_at: string;
}

export interface FeatureFlagRoleAccess {
  id: number;
  project_id: number;
  feature_flag_id: number;
  role_id: string;
  added_at: string;
  updated_at: string;
}

/** What the `can_edit` rules need to know about a user (see src/flags/can-edit.ts). */
export interface UserFlagAccess {
  /** The organization's feature-flag resource level; undefined when no row is set (everyone edits). */
  orgFlagAccessLevel: AccessLevel | undefined;
  userRoleIds: string[];
  userRoleLevels: AccessLevel[];
}

/** `Role.name` is a CharField(max_length=200). */
export const ROLE_NAME_MAX_LENGTH = 200;

const K = {
  role: (id: string) => ['role', id],
  orgRole: (org: string, id: string) => ['org_role', org, id],
  roleName: (org: string, name: string) => ['role_name', org, roleNameKey(name)],
  membership: (id: string) => ['membership', id],
  roleMember: (role: string, user: number) => ['role_member', role, user],
  userRole: (user: number, role: string) => ['user_role', user, role],
  resourceAccess: (id: number) => ['resource_access', id],
  orgResource: (org: string, resource: string) => ['org_resource', org, resource],
  flagRoleAccess: (id: number) => ['flag_role_access', id],
  flagRole: (flag: number, role: string) => ['flag_role', flag, role],
  roleFlag: (role: string, flag: number) => ['role_flag', role, flag],
};

const RBAC_VERSION = 'rbac_version';

export class RbacStore {
  constructor(private readonly dbs: StoreDatabases) {}

  /** Moves on every RBAC change (in the same commit); callers may cache on it. */
  version(): number {
    return (this.dbs.meta.get(RBAC_VERSION) as number | undefined) ?? 0;
  }

  // ---- roles ----

  role(id: string): Role | undefined {
    return this.dbs.rbac.get(K.role(id)) as Role | undefined;
  }

  /** The role when it belongs to that organization. */
  roleInOrganization(organizationId: string, id: string): Role | undefined {
    const role = this.role(id);
    return role?.organization_id === organizationId ? role : undefined;
  }

  /** The organization's roles, oldest first. */
  roles(organizationId: string): Role[] {
    return this.recordsUnder('org_role', organizationId, (key) => this.role(key[2] as string)).sort(bySeq);
  }

  /** The role with this name in the organization, ignoring case. */
  roleByName(organizationId: string, name: string): Role | undefined {
    const id = this.dbs.rbac.get(K.roleName(organizationId, name)) as string | undefined;
    return id === undefined ? undefined : this.role(id);
  }

  /**
   * Creates a role. Its `feature_flags_access_level` is the organization's feature-flag resource
   * level (37 when none is set) unless `featureFlagsAccessLevel` is given (PostHog's API always
   * overrides it; the command line may choose). A taken name → 400 unique on `name`.
   */
  createRole(input: { organizationId: string; name: string; createdBy: number | null; featureFlagsAccessLevel?: AccessLevel }): Role {
    return this.write(() => {
      this.assertRoleNameFree(input.organizationId, input.name);
      const role: Role = {
        id: writeRandomUUID(),
        organization_id: input.organizationId,
        name: input.name,
        feature_flags_access_level: input.featureFlagsAccessLevel ?? this.resourceAccessLevel(input.organizationId, FEATURE_FLAGS_RESOURCE),
        created_at: isoMicros(),
        created_by: input.createdBy,
        seq: nextId(this.dbs, 'role'),
      };
      this.dbs.rbac.putSync(K.role(role.id), role);
      this.dbs.rbac.putSync(K.orgRole(role.organization_id, role.id), null);
      this.dbs.rbac.putSync(K.roleName(role.organization_id, role.name), role.id);
      return role;
    });
  }

  /**
   * Changes a role's name and/or level; undefined when the role is not in the organization.
   * A given name is checked against every role of the organization, this one included, as
   * PostHog's `validate_name` does (so re-sending the current name is refused too).
   */
  updateRole(organizationId: string, id: string, change: { name?: string; featureFlagsAccessLevel?: AccessLevel }): Role | undefined {
    return this.write(() => {
      const role = this.roleInOrganization(organizationId, id);
      if (!role) return undefined;
      if (change.name !== undefined) this.assertRoleNameFree(organizationId, change.name);
      const updated: Role = {
        ...role,
        ...(change.name !== undefined ? { name: change.name } : {}),
        ...(change.featureFlagsAccessLevel !== undefined ? { feature_flags_access_level: change.featureFlagsAccessLevel } : {}),
      };
      if (updated.name !== role.name) {
        this.dbs.rbac.removeSync(K.roleName(organizationId, role.name));
        this.dbs.rbac.putSync(K.roleName(organizationId, updated.name), id);
      }
      this.dbs.rbac.putSync(K.role(id), updated);
      return updated;
    });
  }

  /** Deletes a role with its memberships and flag role access rows; false when not in the organization. */
  deleteRole(organizationId: string, id: string): boolean {
    return this.write(() => {
      const role = this.roleInOrganization(organizationId, id);
      if (!role) return false;
      for (const m of this.memberships(id)) this.removeMembershipRecord(m);
      for (const access of this.flagRoleAccessForRole(id)) this.removeFlagRoleAccessRecord(access);
      this.dbs.rbac.removeSync(K.roleName(organizationId, role.name));
      this.dbs.rbac.removeSync(K.orgRole(organizationId, id));
      this.dbs.rbac.removeSync(K.role(id));
      return true;
    });
  }

  // ---- role memberships ----

  membership(id: string): RoleMembership | undefined {
    return this.dbs.rbac.get(K.membership(id)) as RoleMembership | undefined;
  }

  /** The role's memberships, oldest first. */
  memberships(roleId: string): RoleMembership[] {
    const load = (key: StoreKey) => this.membership(this.dbs.rbac.get(key) as string);
    return this.recordsUnder('role_member', roleId, load).sort(bySeq);
  }

  /** Adds a user to a role: 404 when the role is unknown, 400 when the user is already in it. */
  addMember(roleId: string, userId: number): RoleMembership {
    return this.write(() => {
      if (!this.role(roleId)) throw new HedgerowError('HR_NOT_FOUND');
      if (this.dbs.rbac.get(K.roleMember(roleId, userId)) !== undefined) {
        throw new HedgerowError('HR_USER_ALREADY_IN_ROLE');
      }
      const now = isoMicros();
      const m: RoleMembership = {
        id: writeRandomUUID(),
        role_id: roleId,
        user_id: userId,
        joined_at: now,
        updated_at: now,
        seq: nextId(this.dbs, 'role_membership'),
      };
      this.dbs.rbac.putSync(K.membership(m.id), m);
      this.dbs.rbac.putSync(K.roleMember(roleId, userId), m.id);
      this.dbs.rbac.putSync(K.userRole(userId, roleId), m.id);
      return m;
    });
  }

  /** Removes the membership with this id from the role; false when there is none. */
  removeMembership(roleId: string, membershipId: string): boolean {
    return this.write(() => {
      const m = this.membership(membershipId);
      if (!m || m.role_id !== roleId) return false;
      this.removeMembershipRecord(m);
      return true;
    });
  }

  /** Removes a user from a role; false when the user is not in it. */
  removeMember(roleId: string, userId: number): boolean {
    return this.write(() => {
      const id = this.dbs.rbac.get(K.roleMember(roleId, userId)) as string | undefined;
      const m = id === undefined ? undefined : this.membership(id);
      if (!m) return false;
      this.removeMembershipRecord(m);
      return true;
    });
  }

  /** Every role the user is a member of. */
  rolesOfUser(userId: number): Role[] {
    return this.recordsUnder('user_role', userId, (key) => this.role(key[2] as string)).sort(bySeq);
  }

  // ---- organization resource access ----

  resourceAccess(organizationId: string, id: number): OrganizationResourceAccess | undefined {
    const row = this.dbs.rbac.get(K.resourceAccess(id)) as OrganizationResourceAccess | undefined;
    return row?.organization_id === organizationId ? row : undefined;
  }

  /** The organization's resource access rows, in id order. */
  resourceAccessList(organizationId: string): OrganizationResourceAccess[] {
    const load = (key: StoreKey) => this.resourceAccess(organizationId, this.dbs.rbac.get(key) as number);
    return this.recordsUnder('org_resource', organizationId, load).sort((a, b) => a.id - b.id);
  }

  /** The row for one resource of the organization, if any. */
  resourceAccessFor(organizationId: string, resource: Resource): OrganizationResourceAccess | undefined {
    const id = this.dbs.rbac.get(K.orgResource(organizationId, resource)) as number | undefined;
    return id === undefined ? undefined : this.resourceAccess(organizationId, id);
  }

  /** The organization's level for a resource: the row's, or CAN_ALWAYS_EDIT when there is none. */
  resourceAccessLevel(organizationId: string, resource: Resource): AccessLevel {
    return this.resourceAccessFor(organizationId, resource)?.access_level ?? DEFAULT_ACCESS_LEVEL;
  }

  /** Creates the row for a resource; 400 unique on `resource` when the organization has one. */
  createResourceAccess(input: {
    organizationId: string;
    resource: Resource;
    accessLevel: AccessLevel;
    createdBy: number | null;
  }): OrganizationResourceAccess {
    return this.write(() => {
      this.assertResourceFree(input.organizationId, input.resource);
      return this.insertResourceAccess(input);
    });
  }

  /**
   * Changes a row; undefined when it is not in the organization. A given `resource` must not have
   * a row yet, this one included (PostHog's `validate_resource` runs on updates too).
   */
  updateResourceAccess(
    organizationId: string,
    id: number,
    change: { resource?: Resource; accessLevel?: AccessLevel },
  ): OrganizationResourceAccess | undefined {
    return this.write(() => {
      const row = this.resourceAccess(organizationId, id);
      if (!row) return undefined;
      if (change.resource !== undefined) this.assertResourceFree(organizationId, change.resource);
      const updated: OrganizationResourceAccess = {
        ...row,
        ...(change.resource !== undefined ? { resource: change.resource } : {}),
        ...(change.accessLevel !== undefined ? { access_level: change.accessLevel } : {}),
        updated_at: isoMicros(),
      };
      if (updated.resource !== row.resource) {
        this.dbs.rbac.removeSync(K.orgResource(organizationId, row.resource));
        this.dbs.rbac.putSync(K.orgResource(organizationId, updated.resource), id);
      }
      this.dbs.rbac.putSync(K.resourceAccess(id), updated);
      return updated;
    });
  }

  /** Creates or updates the organization's row for a resource (the command line's `access set`). */
  setResourceAccess(input: {
    organizationId: string;
    resource: Resource;
    accessLevel: AccessLevel;
    createdBy: number | null;
  }): OrganizationResourceAccess {
    return this.write(() => {
      const row = this.resourceAccessFor(input.organizationId, input.resource);
      if (!row) return this.insertResourceAccess(input);
      const updated = { ...row, access_level: input.accessLevel, updated_at: isoMicros() };
      this.dbs.rbac.putSync(K.resourceAccess(row.id), updated);
      return updated;
    });
  }

  /** Deletes a row (the resource goes back to CAN_ALWAYS_EDIT); false when not in the organization. */
  deleteResourceAccess(organizationId: string, id: number): boolean {
    return this.write(() => {
      const row = this.resourceAccess(organizationId, id);
      if (!row) return false;
      this.dbs.rbac.removeSync(K.orgResource(organizationId, row.resource));
      this.dbs.rbac.removeSync(K.resourceAccess(id));
      return true;
    });
  }

  // ---- feature flag role access ----

  flagRoleAccess(id: number): FeatureFlagRoleAccess | undefined {
    return this.dbs.rbac.get(K.flagRoleAccess(id)) as FeatureFlagRoleAccess | undefined;
  }

  /** The flag's role access rows, in id order. */
  roleAccessForFlag(featureFlagId: number): FeatureFlagRoleAccess[] {
    const load = (key: StoreKey) => this.flagRoleAccess(this.dbs.rbac.get(key) as number);
    return this.recordsUnder('flag_role', featureFlagId, load).sort((a, b) => a.id - b.id);
  }

  /** The role's flag role access rows, by flag id. */
  flagRoleAccessForRole(roleId: string): FeatureFlagRoleAccess[] {
    return this.recordsUnder('role_flag', roleId, (key) => this.flagRoleAccess(this.dbs.rbac.get(key) as number));
  }

  /** Ids of the flags a role has access rows on (a role's `associated_flags`), ascending. */
  flagIdsForRole(roleId: string): number[] {
    return this.keysUnder('role_flag', roleId)
      .map((key) => key[2] as number)
      .sort((a, b) => a - b);
  }

  /**
   * Links a role to a flag. The role must exist (else 400 does_not_exist on `role_id`, DRF's
   * PrimaryKeyRelatedField message; PostHog does not limit it to the organization) and the pair
   * must be new (else 400 unique: PostHog's database constraint, a 500 there).
   */
  createFlagRoleAccess(input: { projectId: number; featureFlagId: number; roleId: string }): FeatureFlagRoleAccess {
    return this.write(() => {
      if (!this.role(input.roleId)) {
        throw catalogueError('HR_FIELD_DOES_NOT_EXIST', { pk_value: input.roleId }, 'role_id');
      }
      if (this.dbs.rbac.get(K.flagRole(input.featureFlagId, input.roleId)) !== undefined) {
        throw new HedgerowError('HR_FLAG_ROLE_ACCESS_EXISTS');
      }
      const now = isoMicros();
      const row: FeatureFlagRoleAccess = {
        id: nextId(this.dbs, 'feature_flag_role_access'),
        project_id: input.projectId,
        feature_flag_id: input.featureFlagId,
        role_id: input.roleId,
        added_at: now,
        updated_at: now,
      };
      this.dbs.rbac.putSync(K.flagRoleAccess(row.id), row);
      this.dbs.rbac.putSync(K.flagRole(row.feature_flag_id, row.role_id), row.id);
      this.dbs.rbac.putSync(K.roleFlag(row.role_id, row.feature_flag_id), row.id);
      return row;
    });
  }

  /** Deletes one row; false when there is none. */
  deleteFlagRoleAccess(id: number): boolean {
    return this.write(() => {
      const row = this.flagRoleAccess(id);
      if (!row) return false;
      this.removeFlagRoleAccessRecord(row);
      return true;
    });
  }

  /** Deletes every role access row of a flag (when the flag itself is hard-deleted); returns how many. */
  deleteRoleAccessForFlag(featureFlagId: number): number {
    return this.write(() => {
      const rows = this.roleAccessForFlag(featureFlagId);
      for (const row of rows) this.removeFlagRoleAccessRecord(row);
      return rows.length;
    });
  }

  // ---- for the can_edit rules ----

  /** The organization level and the user's roles, as `canEditFeatureFlag` takes them. */
  userFlagAccess(user: { id: number; organization_id: string }): UserFlagAccess {
    const roles = this.rolesOfUser(user.id);
    return {
      orgFlagAccessLevel: this.resourceAccessFor(user.organization_id, FEATURE_FLAGS_RESOURCE)?.access_level,
      userRoleIds: roles.map((r) => r.id),
      userRoleLevels: roles.map((r) => r.feature_flags_access_level),
    };
  }

  // ---- internals ----

  /** Runs `fn` in a write transaction and bumps the version with it. */
  private write<T>(fn: () => T): T {
    return this.dbs.root.transactionSync(() => {
      const result = fn();
      this.dbs.meta.putSync(RBAC_VERSION, this.version() + 1);
      return result;
    });
  }

  private insertResourceAccess(input: {
    organizationId: string;
    resource: Resource;
    accessLevel: AccessLevel;
    createdBy: number | null;
  }): OrganizationResourceAccess {
    const now = isoMicros();
    const row: OrganizationResourceAccess = {
      id: nextId(this.dbs, 'organization_resource_access'),
      organization_id: input.organizationId,
      resource: input.resource,
      access_level: input.accessLevel,
      created_by: input.createdBy,
      created_at: now,
      updated_at: now,
    };
    this.dbs.rbac.putSync(K.resourceAccess(row.id), row);
    this.dbs.rbac.putSync(K.orgResource(row.organization_id, row.resource), row.id);
    return row;
  }

  private assertRoleNameFree(organizationId: string, name: string): void {
    if (this.dbs.rbac.get(K.roleName(organizationId, name)) !== undefined) {
      throw new HedgerowError('HR_ROLE_NAME_TAKEN');
    }
  }

  private assertResourceFree(organizationId: string, resource: Resource): void {
    if (this.dbs.rbac.get(K.orgResource(organizationId, resource)) !== undefined) {
      throw new HedgerowError('HR_RESOURCE_ACCESS_EXISTS');
    }
  }

  private removeMembershipRecord(m: RoleMembership): void {
    this.dbs.rbac.removeSync(K.roleMember(m.role_id, m.user_id));
    this.dbs.rbac.removeSync(K.userRole(m.user_id, m.role_id));
    this.dbs.rbac.removeSync(K.membership(m.id));
  }

  private removeFlagRoleAccessRecord(row: FeatureFlagRoleAccess): void {
    this.dbs.rbac.removeSync(K.flagRole(row.feature_flag_id, row.role_id));
    this.dbs.rbac.removeSync(K.roleFlag(row.role_id, row.feature_flag_id));
    this.dbs.rbac.removeSync(K.flagRoleAccess(row.id));
  }

  /** The keys `[kind, owner, *]`: `null` sorts before and U+FFFF after every number and id. */
  /** The records an index `[kind, owner, …]` leads to (`load` reads one from its index key). */
  private recordsUnder<T>(kind: string, owner: string | number, load: (key: (string | number)[]) => T | undefined): T[] {
    const out: T[] = [];
    for (const key of this.keysUnder(kind, owner)) {
      const record = load(key);
      if (record !== undefined) out.push(record);
    }
    return out;
  }

  private keysUnder(kind: string, owner: string | number): (string | number)[][] {
    const out: (string | number)[][] = [];
    for (const key of this.dbs.rbac.getKeys({
      start: [kind, owner, null] as unknown as StoreKey,
      end: [kind, owner, '\uffff'],
    })) {
      out.push(key as (string | number)[]);
    }
    return out;
  }
}

/** Case-insensitive name key (Django's `iexact`). */
function roleNameKey(name: string): string {
  return name.toLowerCase();
}

/** Oldest first. */
function bySeq(a: { seq: number }, b: { seq: number }): number {
  return a.seq - b.seq;
}

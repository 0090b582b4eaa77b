/**
 * Roles, role memberships and organization resource access as PostHog's serializers print them
 * (`ee/api/role.py` RoleSerializer / RoleMembershipSerializer,
 * `ee/api/organization_resource_access.py`; docs/compatibility.md#role-based-access). `renderRole`
 * is also the `role` of a flag's role access item.
 */
import { apiDateTime } from '../compat/iso-micros.js';
import type { AuthStore } from '../store/auth-store.js';
import type { OrganizationResourceAccess, RbacStore, Role, RoleMembership } from '../store/rbac-store.js';
import { basicUser, basicUserOrNull, type BasicUser } from './serialize-user.js';

export interface RbacRenderContext {
  auth: AuthStore;
  rbac: RbacStore;
  /** The key of a flag (deleted ones included), undefined when the flag no longer exists. */
  flagKey(projectId: number, flagId: number): string | undefined;
}

export interface RenderedMembership {
  id: string;
  role_id: string;
  user: BasicUser | null;
  joined_at: string;
  updated_at: string;
}

export interface RenderedRole {
  id: string;
  name: string;
  feature_flags_access_level: number;
  created_at: string;
  created_by: BasicUser | null;
  members: RenderedMembership[];
  associated_flags: { id: number; key: string }[];
}

export function renderMembership(ctx: Pick<RbacRenderContext, 'auth'>, m: RoleMembership): RenderedMembership {
  const user = ctx.auth.user(m.user_id);
  return {
    id: m.id,
    role_id: m.role_id,
    user: user ? basicUser(user) : null,
    joined_at: apiDateTime(m.joined_at),
    updated_at: apiDateTime(m.updated_at),
  };
}

export function renderRole(ctx: RbacRenderContext, role: Role): RenderedRole {
  const associated: { id: number; key: string }[] = [];
  for (const access of ctx.rbac.flagRoleAccessForRole(role.id)) {
    const key = ctx.flagKey(access.project_id, access.feature_flag_id);
    if (key !== undefined) associated.push({ id: access.feature_flag_id, key });
  }
  return {
    id: role.id,
    name: role.name,
    feature_flags_access_level: role.feature_flags_access_level,
    created_at: apiDateTime(role.created_at),
    created_by: basicUserOrNull((id) => ctx.auth.user(id), role.created_by),
    members: ctx.rbac.memberships(role.id).map((m) => renderMembership(ctx, m)),
    associated_flags: associated,
  };
}

/** `created_by` is the user's id here (a plain ModelSerializer field), `organization` the org's id. */
export function renderResourceAccess(row: OrganizationResourceAccess): Record<string, unknown> {
  return {
    id: row.id,
    resource: row.resource,
    access_level: row.access_level,
    organization: row.organization_id,
    created_at: apiDateTime(row.created_at),
    updated_at: apiDateTime(row.updated_at),
    created_by: row.created_by,
  };
}

/**
 * The organization RBAC API (docs/compatibility.md#role-based-access; PostHog `ee/api/role.py`,
 * `ee/api/organization_resource_access.py`):
 *   /api/organizations/:organization_id/roles/                     GET list, POST create
 *   …/roles/:role_id/                                              GET, PATCH, PUT, DELETE
 *   …/roles/:role_id/role_memberships/                             GET list, POST {user_uuid}
 *   …/roles/:role_id/role_memberships/:membership_id/              DELETE
 *   /api/organizations/:organization_id/resource_access/           GET list, POST create
 *   …/resource_access/:id/                                         GET, PATCH, PUT, DELETE
 * Every member of the organization may read; writes need organization admin (403 "You need to
 * have admin level or higher."). Personal-key scopes (#routing-and-authentication): roles are
 * `organization:read`/`:write`; resource access is PostHog's "INTERNAL" scope object, so scoped
 * keys are refused there.
 */
import type { RequiredScope } from '../auth/authenticate-personal-key.js';
import { HedgerowError } from '../errors.js';
import { isOrganizationAdmin, type AuthStore } from '../store/auth-store.js';
import {
  DEFAULT_ACCESS_LEVEL,
  ROLE_NAME_MAX_LENGTH,
  type OrganizationResourceAccess,
  type RbacStore,
  type Role,
} from '../store/rbac-store.js';
import { organizationRequest, type OrganizationApiRequest } from '../http/api-request.js';
import { limitOffsetPage, parseLimitOffset } from './pagination.js';
import { json } from '../http/respond.js';
import type { Params, Router } from '../http/router.js';
import type { HttpRequest, HttpResponse } from '../http/types.js';
import { accessLevelField, charField, resourceField, uuidField } from './rbac-fields.js';
import { renderMembership, renderResourceAccess, renderRole, type RbacRenderContext } from './render-rbac.js';

export interface RolesApiDeps {
  auth: AuthStore;
  rbac: RbacStore;
  /** The key of a flag (deleted ones included), for a role's `associated_flags`. */
  flagKey(projectId: number, flagId: number): string | undefined;
}

const ROLES = '/api/organizations/:organization_id/roles';
const RESOURCE_ACCESS = '/api/organizations/:organization_id/resource_access';

export function addRolesApiRoutes(router: Router, deps: RolesApiDeps): void {
  const api = new RolesApi(deps);
  router.add(['GET', 'POST'], ROLES, 'api:roles', (req, params) =>
    req.method === 'GET' ? api.listRoles(req, params) : api.createRole(req, params),
  );
  router.add(['GET', 'PATCH', 'PUT', 'DELETE'], `${ROLES}/:role_id`, 'api:role', (req, params) => {
    if (req.method === 'GET') return api.retrieveRole(req, params);
    if (req.method === 'DELETE') return api.deleteRole(req, params);
    return api.updateRole(req, params, req.method === 'PUT');
  });
  router.add(['GET', 'POST'], `${ROLES}/:role_id/role_memberships`, 'api:role_memberships', (req, params) =>
    req.method === 'GET' ? api.listMemberships(req, params) : api.addMembership(req, params),
  );
  router.add(['DELETE'], `${ROLES}/:role_id/role_memberships/:membership_id`, 'api:role_membership', (req, params) =>
    api.removeMembership(req, params),
  );
  router.add(['GET', 'POST'], RESOURCE_ACCESS, 'api:resource_access', (req, params) =>
    req.method === 'GET' ? api.listResourceAccess(req, params) : api.createResourceAccess(req, params),
  );
  router.add(['GET', 'PATCH', 'PUT', 'DELETE'], `${RESOURCE_ACCESS}/:id`, 'api:resource_access_item', (req, params) => {
    if (req.method === 'GET') return api.retrieveResourceAccess(req, params);
    if (req.method === 'DELETE') return api.deleteResourceAccess(req, params);
    return api.updateResourceAccess(req, params, req.method === 'PUT');
  });
}

const NO_CONTENT: HttpResponse = { status: 204 };

class RolesApi {
  private readonly render: RbacRenderContext;

  constructor(private readonly deps: RolesApiDeps) {
    this.render = deps;
  }

  // ---- roles ----

  listRoles(req: HttpRequest, params: Params): HttpResponse {
    const r = this.read(req, params, 'organization');
    const roles = this.deps.rbac.roles(r.organization.id);
    return json(
      200,
      limitOffsetPage(req, r.query, roles, parseLimitOffset(r.query), (role) => renderRole(this.render, role)),
    );
  }

  createRole(req: HttpRequest, params: Params): HttpResponse {
    const r = this.write(req, params, 'organization');
    const name = this.roleName(r, true)!;
    // Validated (DRF runs every field), then replaced by the organization's level.
    accessLevelField(r.body, 'feature_flags_access_level', { required: false });
    const role = this.deps.rbac.createRole({ organizationId: r.organization.id, name, createdBy: r.principal.user.id });
    return json(201, renderRole(this.render, role));
  }

  retrieveRole(req: HttpRequest, params: Params): HttpResponse {
    const r = this.read(req, params, 'organization');
    return json(200, renderRole(this.render, this.roleOf(r, params)));
  }

  updateRole(req: HttpRequest, params: Params, put: boolean): HttpResponse {
    const r = this.write(req, params, 'organization');
    const role = this.roleOf(r, params);
    const name = this.roleName(r, put);
    const level = accessLevelField(r.body, 'feature_flags_access_level', { required: false });
    const updated = this.deps.rbac.updateRole(r.organization.id, role.id, {
      ...(name !== undefined ? { name } : {}),
      ...(level !== undefined ? { featureFlagsAccessLevel: level } : {}),
    });
    if (!updated) throw new HedgerowError('HR_NOT_FOUND');
    return json(200, renderRole(this.render, updated));
  }

  deleteRole(req: HttpRequest, params: Params): HttpResponse {
    const r = this.write(req, params, 'organization');
    if (!this.deps.rbac.deleteRole(r.organization.id, this.roleOf(r, params).id)) throw new HedgerowError('HR_NOT_FOUND');
    return NO_CONTENT;
  }

  // ---- role memberships ----

  listMemberships(req: HttpRequest, params: Params): HttpResponse {
    const r = this.read(req, params, 'organization');
    const members = this.deps.rbac.memberships(this.roleOf(r, params).id);
    return json(
      200,
      limitOffsetPage(req, r.query, members, parseLimitOffset(r.query), (m) => renderMembership(this.render, m)),
    );
  }

  addMembership(req: HttpRequest, params: Params): HttpResponse {
    const r = this.write(req, params, 'organization');
    const role = this.roleOf(r, params);
    const uuid = uuidField(r.body, 'user_uuid');
    const user = this.deps.auth.users().find((u) => u.uuid === uuid && u.organization_id === r.organization.id);
    if (!user) throw new HedgerowError('HR_USER_DOES_NOT_EXIST');
    return json(201, renderMembership(this.render, this.deps.rbac.addMember(role.id, user.id)));
  }

  removeMembership(req: HttpRequest, params: Params): HttpResponse {
    const r = this.write(req, params, 'organization');
    const role = this.roleOf(r, params);
    if (!this.deps.rbac.removeMembership(role.id, params.membership_id ?? '')) throw new HedgerowError('HR_NOT_FOUND');
    return NO_CONTENT;
  }

  // ---- organization resource access ----

  listResourceAccess(req: HttpRequest, params: Params): HttpResponse {
    const r = this.read(req, params, 'INTERNAL');
    const rows = this.deps.rbac.resourceAccessList(r.organization.id);
    return json(200, limitOffsetPage(req, r.query, rows, parseLimitOffset(r.query), renderResourceAccess));
  }

  createResourceAccess(req: HttpRequest, params: Params): HttpResponse {
    const r = this.write(req, params, 'INTERNAL');
    const resource = resourceField(r.body, 'resource', { required: true })!;
    const accessLevel = accessLevelField(r.body, 'access_level', { required: false });
    const row = this.deps.rbac.createResourceAccess({
      organizationId: r.organization.id,
      resource,
      accessLevel: accessLevel ?? DEFAULT_ACCESS_LEVEL,
      createdBy: r.principal.user.id,
    });
    return json(201, renderResourceAccess(row));
  }

  retrieveResourceAccess(req: HttpRequest, params: Params): HttpResponse {
    const r = this.read(req, params, 'INTERNAL');
    return json(200, renderResourceAccess(this.resourceAccessOf(r, params)));
  }

  updateResourceAccess(req: HttpRequest, params: Params, put: boolean): HttpResponse {
    const r = this.write(req, params, 'INTERNAL');
    const row = this.resourceAccessOf(r, params);
    const resource = resourceField(r.body, 'resource', { required: put });
    const accessLevel = accessLevelField(r.body, 'access_level', { required: false });
    const updated = this.deps.rbac.updateResourceAccess(r.organization.id, row.id, {
      ...(resource !== undefined ? { resource } : {}),
      ...(accessLevel !== undefined ? { accessLevel } : {}),
    });
    if (!updated) throw new HedgerowError('HR_NOT_FOUND');
    return json(200, renderResourceAccess(updated));
  }

  deleteResourceAccess(req: HttpRequest, params: Params): HttpResponse {
    const r = this.write(req, params, 'INTERNAL');
    if (!this.deps.rbac.deleteResourceAccess(r.organization.id, this.resourceAccessOf(r, params).id)) {
      throw new HedgerowError('HR_NOT_FOUND');
    }
    return NO_CONTENT;
  }

  // ---- shared steps ----

  /** Safe methods: any member of the organization. */
  private read(req: HttpRequest, params: Params, scopeObject: ScopeObject): OrganizationApiRequest {
    return organizationRequest(this.deps.auth, req, params, requiredScope(scopeObject, 'read'));
  }

  /** Writes: organization admins and owners only (PostHog's RolePermissions). */
  private write(req: HttpRequest, params: Params, scopeObject: ScopeObject): OrganizationApiRequest {
    const r = organizationRequest(this.deps.auth, req, params, requiredScope(scopeObject, 'write'));
    if (!isOrganizationAdmin(r.principal.user)) throw new HedgerowError('HR_ADMIN_REQUIRED');
    return r;
  }

  private roleOf(r: OrganizationApiRequest, params: Params): Role {
    const role = this.deps.rbac.roleInOrganization(r.organization.id, params.role_id ?? '');
    if (!role) throw new HedgerowError('HR_NOT_FOUND');
    return role;
  }

  private resourceAccessOf(r: OrganizationApiRequest, params: Params): OrganizationResourceAccess {
    const raw = params.id ?? '';
    const row = /^\d{1,15}$/.test(raw) ? this.deps.rbac.resourceAccess(r.organization.id, Number(raw)) : undefined;
    if (!row) throw new HedgerowError('HR_NOT_FOUND');
    return row;
  }

  /**
   * `name`, checked for a clash before the other fields (DRF validates in field order; the store
   * checks again inside its transaction).
   */
  private roleName(r: OrganizationApiRequest, required: boolean): string | undefined {
    const name = charField(r.body, 'name', { required, maxLength: ROLE_NAME_MAX_LENGTH });
    if (name !== undefined && this.deps.rbac.roleByName(r.organization.id, name)) {
      throw new HedgerowError('HR_ROLE_NAME_TAKEN');
    }
    return name;
  }
}

/** `organization` (roles) or PostHog's `INTERNAL` (resource access: no scoped personal keys). */
type ScopeObject = 'organization' | 'INTERNAL';

function requiredScope(object: ScopeObject, action: 'read' | 'write'): RequiredScope {
  return object === 'INTERNAL' ? 'unsupported' : `${object}:${action}`;
}

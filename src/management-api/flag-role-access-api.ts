/**
 * A flag's role access records (docs/compatibility.md#role-based-access):
 * `…/feature_flags/:parent_id/role_access/` list and create (`{role_id}`), `…/role_access/:id/`
 * retrieve and delete. Reads need `feature_flag:read`; writes `feature_flag:write` and PostHog's
 * role access permission (admins, an organization that lets everyone edit, the flag's creator, or a
 * member of a role that can always edit).
 */
import { apiDateTime } from '../compat/iso-micros.js';
import type { RequiredScope } from '../auth/authenticate-personal-key.js';
import { catalogueError, HedgerowError } from '../errors.js';
import { assertCanEditRoleAccess } from '../flags/can-edit.js';
import type { FeatureFlagRecord } from '../flags/feature-flag.js';
import type { AuthStore } from '../store/auth-store.js';
import type { FlagStore } from '../store/flag-store.js';
import type { FeatureFlagRoleAccess, RbacStore } from '../store/rbac-store.js';
import { projectRequest, type ProjectApiRequest, withCurrentProject } from '../http/api-request.js';
import { limitOffsetPage, parseLimitOffset } from './pagination.js';
import { json } from '../http/respond.js';
import type { Params, Router } from '../http/router.js';
import type { HttpRequest, HttpResponse } from '../http/types.js';
import { FLAG_API_PREFIXES } from './feature-flags-api.js';
import type { EditPermission } from './flag-edit-permission.js';
import { flagRenderContextFor, renderFlag } from './render-flag.js';
import { renderRole } from './render-rbac.js';

export interface FlagRoleAccessApiDeps {
  auth: AuthStore;
  flags: FlagStore;
  rbac: RbacStore;
  /** Whether a user may edit flags (the embedded flag's `can_edit`). */
  editPermission: EditPermission;
}

/** Register before the flag routes (the paths are longer, so order does not matter, but keep them together). */
export function addFlagRoleAccessRoutes(router: Router, deps: FlagRoleAccessApiDeps): void {
  const api = new RoleAccessApi(deps);
  for (const prefix of FLAG_API_PREFIXES) {
    const base = `${prefix}/:parent_id/role_access`;
    router.add(['GET', 'POST'], base, 'api:feature_flag_role_access_list', (req, params) =>
      req.method === 'GET' ? api.list(req, params) : api.create(req, params),
    );
    router.add(['GET', 'DELETE'], `${base}/:id`, 'api:feature_flag_role_access', (req, params) =>
      req.method === 'GET' ? api.retrieve(req, params) : api.remove(req, params),
    );
  }
}

class RoleAccessApi {
  constructor(private readonly deps: FlagRoleAccessApiDeps) {}

  list(http: HttpRequest, params: Params): HttpResponse {
    const req = this.request(http, params, 'feature_flag:read');
    const flag = this.parentFlag(req, params);
    let rows = flag ? this.deps.rbac.roleAccessForFlag(flag.id) : [];
    const roleId = req.query.get('role_id');
    if (roleId !== null) rows = rows.filter((r) => r.role_id === roleId);
    return json(
      200,
      limitOffsetPage(http, req.query, rows, parseLimitOffset(req.query), (r) => this.render(req, r)),
    );
  }

  create(http: HttpRequest, params: Params): HttpResponse {
    const req = this.request(http, params, 'feature_flag:write');
    const flag = this.parentFlag(req, params);
    this.checkCanEdit(req, flag);
    if (!flag) throw new HedgerowError('HR_ROLE_ACCESS_FLAG_NOT_FOUND');
    const roleId = req.body.role_id;
    if (roleId === undefined) throw new HedgerowError('HR_FIELD_REQUIRED', undefined, 'role_id');
    if (roleId === null) throw new HedgerowError('HR_FIELD_NULL', undefined, 'role_id');
    const id = String(roleId);
    if (!this.deps.rbac.roleInOrganization(req.principal.user.organization_id, id)) {
      throw catalogueError('HR_FIELD_DOES_NOT_EXIST', { pk_value: id }, 'role_id');
    }
    const row = this.deps.rbac.createFlagRoleAccess({ projectId: req.project.id, featureFlagId: flag.id, roleId: id });
    return json(201, this.render(req, row));
  }

  retrieve(http: HttpRequest, params: Params): HttpResponse {
    const req = this.request(http, params, 'feature_flag:read');
    return json(200, this.render(req, this.row(req, params)));
  }

  remove(http: HttpRequest, params: Params): HttpResponse {
    const req = this.request(http, params, 'feature_flag:write');
    this.checkCanEdit(req, this.parentFlag(req, params));
    const row = this.row(req, params);
    this.deps.rbac.deleteFlagRoleAccess(row.id);
    return { status: 204 };
  }

  private request(http: HttpRequest, params: Params, scope: RequiredScope): ProjectApiRequest {
    return projectRequest(this.deps.auth, http, withCurrentProject(params), scope);
  }

  /** The URL's flag in the request's project (deleted ones included), if it exists. */
  private parentFlag(req: ProjectApiRequest, params: Params): FeatureFlagRecord | undefined {
    const raw = params.parent_id ?? '';
    return /^\d{1,15}$/.test(raw) ? this.deps.flags.get(req.project.id, Number(raw)) : undefined;
  }

  private row(req: ProjectApiRequest, params: Params): FeatureFlagRoleAccess {
    const id = params.id ?? '';
    const row = /^\d{1,15}$/.test(id) ? this.deps.rbac.flagRoleAccess(Number(id)) : undefined;
    if (!row || row.project_id !== req.project.id || String(row.feature_flag_id) !== params.parent_id) {
      throw new HedgerowError('HR_NOT_FOUND');
    }
    return row;
  }

  private checkCanEdit(req: ProjectApiRequest, flag: FeatureFlagRecord | undefined): void {
    const user = req.principal.user;
    const access = this.deps.rbac.userFlagAccess(user);
    assertCanEditRoleAccess({
      user,
      orgFlagAccessLevel: access.orgFlagAccessLevel,
      flag,
      userRoleLevels: access.userRoleLevels,
    });
  }

  private render(req: ProjectApiRequest, row: FeatureFlagRoleAccess): Record<string, unknown> {
    const flag = this.deps.flags.get(row.project_id, row.feature_flag_id);
    const role = this.deps.rbac.role(row.role_id);
    return {
      id: row.id,
      feature_flag: flag ? renderFlag(flag, flagRenderContextFor(this.deps.auth, this.deps.editPermission(req.principal.user))) : null,
      role: role
        ? renderRole({ auth: this.deps.auth, rbac: this.deps.rbac, flagKey: (p, id) => this.deps.flags.get(p, id)?.key }, role)
        : null,
      added_at: apiDateTime(row.added_at),
      updated_at: apiDateTime(row.updated_at),
    };
  }
}

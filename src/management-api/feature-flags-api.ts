/**
 * The feature flag management API (docs/compatibility.md#management-api):
 * `/api/projects/:project_id/feature_flags/` list and create, `…/:id/` retrieve, PATCH, PUT and the
 * refused DELETE; the same routes under the legacy `/api/feature_flag/` prefix (the caller's
 * current project). Writes run in one LMDB transaction each (see FlagStore).
 */
import { writeTime } from '../util/write-context.js';
import type { RequiredScope } from '../auth/authenticate-personal-key.js';
import { HedgerowError } from '../errors.js';
import type { FeatureFlagRecord } from '../flags/feature-flag.js';
import { FlagWriter } from '../flags/flag-writer.js';
import { filterFlags, orderNewestFirst } from '../flags/list-filters.js';
import type { CohortInfo } from '../flags/validate-flag-write.js';
import type { AuthStore } from '../store/auth-store.js';
import type { FlagStore } from '../store/flag-store.js';
import { projectRequest, type ProjectApiRequest, withCurrentProject } from '../http/api-request.js';
import { limitOffsetPage, parseLimitOffset } from './pagination.js';
import { json } from '../http/respond.js';
import type { Params, Router } from '../http/router.js';
import type { HttpRequest, HttpResponse } from '../http/types.js';
import type { EditPermission } from './flag-edit-permission.js';
import { flagRenderContextFor, renderFlag, type FlagRenderContext } from './render-flag.js';

export interface FeatureFlagsApiDeps {
  auth: AuthStore;
  flags: FlagStore;
  /**
   * Whether a user may edit flags (docs/compatibility.md#role-based-access); the user's part is read
   * once per request.
   */
  editPermission: EditPermission;
  /** Whether the project has this dashboard (for `analytics_dashboards`). */
  dashboardExists(projectId: number, id: number): boolean;
  /** The project's cohorts, for cohort references in filters. */
  cohort(projectId: number, id: number): CohortInfo | undefined;
  maxPropertyValues: number;
}

/** The path prefixes of the flag API: project-scoped, and the legacy one (current project). */
export const FLAG_API_PREFIXES = ['/api/projects/:project_id/feature_flags', '/api/feature_flag'] as const;

/**
 * Registers list/create and retrieve/update/delete. Routes with a fixed segment after the prefix
 * (`activity`, `local_evaluation`, …) must be added before this, or `:id` would take them.
 */
export function addFeatureFlagsApiRoutes(router: Router, deps: FeatureFlagsApiDeps): void {
  const api = new FlagApi(deps);
  for (const prefix of FLAG_API_PREFIXES) {
    router.add(['GET', 'POST'], prefix, 'api:feature_flags', (req, params) =>
      req.method === 'GET' ? api.list(req, params) : api.create(req, params),
    );
    router.add(['GET', 'PATCH', 'PUT', 'DELETE'], `${prefix}/:id`, 'api:feature_flag', (req, params) => {
      switch (req.method) {
        case 'GET':
          return api.retrieve(req, params);
        case 'DELETE':
          return api.refuseDelete(req, params);
        default:
          return api.update(req, params, req.method === 'PUT' ? 'put' : 'patch');
      }
    });
  }
}

/** `:id` of a flag route: a positive integer, else no such flag. */
export function flagIdParam(params: Params): number {
  const raw = params.id ?? '';
  if (!/^\d{1,15}$/.test(raw)) throw new HedgerowError('HR_NOT_FOUND');
  return Number(raw);
}

/** The flag `:id` of the request's project, deleted ones included; 404 when absent. */
export function flagOfProject(flags: FlagStore, projectId: number, params: Params): FeatureFlagRecord {
  const flag = flags.get(projectId, flagIdParam(params));
  if (!flag) throw new HedgerowError('HR_NOT_FOUND');
  return flag;
}

class FlagApi {
  private readonly writer: FlagWriter;

  constructor(private readonly deps: FeatureFlagsApiDeps) {
    this.writer = new FlagWriter({ ...deps, userEmail: (id) => deps.auth.user(id)?.email });
  }

  list(http: HttpRequest, params: Params): HttpResponse {
    const req = this.request(http, params, 'feature_flag:read');
    const now = new Date();
    // filterFlags leaves out deleted flags.
    const flags = orderNewestFirst(filterFlags(this.deps.flags.list(req.project.id), req.query, now));
    const ctx = this.renderContext(req, now);
    return json(
      200,
      limitOffsetPage(http, req.query, flags, parseLimitOffset(req.query), (f) => renderFlag(f, ctx)),
    );
  }

  create(http: HttpRequest, params: Params): HttpResponse {
    const req = this.request(http, params, 'feature_flag:write');
    const flag = this.writer.create(req.project.id, req.principal.user, req.body);
    return json(201, renderFlag(flag, this.renderContext(req, writeTime())));
  }

  retrieve(http: HttpRequest, params: Params): HttpResponse {
    const req = this.request(http, params, 'feature_flag:read');
    const flag = flagOfProject(this.deps.flags, req.project.id, params);
    return json(200, renderFlag(flag, this.renderContext(req, writeTime())));
  }

  update(http: HttpRequest, params: Params, mode: 'patch' | 'put'): HttpResponse {
    const req = this.request(http, params, 'feature_flag:write');
    const user = req.principal.user;
    const existing = flagOfProject(this.deps.flags, req.project.id, params);
    if (!this.deps.editPermission(user)(existing)) throw new HedgerowError('HR_FLAG_EDIT_DENIED');
    const flag = this.writer.update(req.project.id, existing.id, user, req.body, mode);
    return json(200, renderFlag(flag, this.renderContext(req, writeTime())));
  }

  /** PostHog never hard-deletes a flag: 405 with an empty body (soft delete is PATCH deleted=true). */
  refuseDelete(http: HttpRequest, params: Params): HttpResponse {
    this.request(http, params, 'feature_flag:write');
    return { status: 405, body: '' };
  }

  private request(http: HttpRequest, params: Params, scope: RequiredScope): ProjectApiRequest {
    return projectRequest(this.deps.auth, http, withCurrentProject(params), scope);
  }

  private renderContext(req: ProjectApiRequest, now: Date): FlagRenderContext {
    return flagRenderContextFor(this.deps.auth, this.deps.editPermission(req.principal.user), now);
  }
}

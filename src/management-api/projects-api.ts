/**
 * The part of PostHog's project (team) endpoints Hedgerow has (`posthog/api/team.py` TeamViewSet,
 * `posthog/api/project.py` ProjectViewSet; docs/compatibility.md#project-token-reset):
 *   /api/projects/:id/ and /api/environments/:id/               GET (scope project:read)
 *   /api/projects/:id/reset_token/, /api/environments/:id/reset_token/
 *                                                                PATCH (scope project:write, admin level)
 * `reset_token` gives the project a new `phc_` token, generated as new projects' are; the old one
 * is refused by capture, /flags and remote config from the next request on, in every thread.
 */
import { apiDateTime } from '../compat/iso-micros.js';
import { HedgerowError } from '../errors.js';
import { projectRequest } from '../http/api-request.js';
import { json } from '../http/respond.js';
import type { Params, Router } from '../http/router.js';
import type { HttpRequest, HttpResponse } from '../http/types.js';
import { isOrganizationAdmin, type AuthStore, type Project } from '../store/auth-store.js';

/** The TeamSerializer fields Hedgerow has (a project and its one environment are the same here). */
interface RenderedProject {
  id: number;
  uuid: string;
  organization: string;
  project_id: number;
  api_token: string;
  name: string;
  created_at: string;
}

function renderProject(p: Project): RenderedProject {
  return {
    id: p.id,
    uuid: p.uuid,
    organization: p.organization_id,
    project_id: p.id,
    api_token: p.api_token,
    name: p.name,
    created_at: apiDateTime(p.created_at),
  };
}

export function addProjectsApiRoutes(router: Router, deps: { auth: AuthStore }): void {
  for (const base of ['/api/projects', '/api/environments']) {
    router.add(['GET'], `${base}/:project_id`, 'api:project', (req, params) => retrieve(deps.auth, req, params));
    router.add(['PATCH'], `${base}/:project_id/reset_token`, 'api:project_reset_token', (req, params) =>
      resetToken(deps.auth, req, params),
    );
  }
}

function retrieve(auth: AuthStore, http: HttpRequest, params: Params): HttpResponse {
  const r = projectRequest(auth, http, params, 'project:read', { pathOnly: true });
  return json(200, renderProject(r.project));
}

function resetToken(auth: AuthStore, http: HttpRequest, params: Params): HttpResponse {
  const r = projectRequest(auth, http, params, 'project:write', { pathOnly: true });
  // TeamMemberStrictManagementPermission: a write needs admin level in the project.
  if (!isOrganizationAdmin(r.principal.user)) throw new HedgerowError('HR_PROJECT_ADMIN_REQUIRED');
  const updated = auth.resetProjectToken(r.project.id);
  if (!updated) throw new HedgerowError('HR_PROJECT_NOT_FOUND');
  return json(200, renderProject(updated));
}

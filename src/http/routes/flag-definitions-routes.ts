/**
 * Flag definitions for SDKs that evaluate locally (docs/compatibility.md#flag-definitions):
 * `GET /flags/definitions?token=…` (posthog-node ≥ 5.29.4, posthog-python; always with cohorts),
 * `GET /api/feature_flag/local_evaluation?token=…` (older SDKs) and
 * `GET /api/projects/:project_id/feature_flags/local_evaluation/`. A personal API key with
 * `feature_flag:read` is required; a matching `If-None-Match` gets 304.
 */
import type { DefinitionsCache } from '../../flags/definitions/definitions-cache.js';
import { ifNoneMatchMatches } from '../../flags/definitions/etag.js';
import type { AuthStore } from '../../store/auth-store.js';
import { projectRequest, withCurrentProject } from '../api-request.js';
import type { Params, Router } from '../router.js';
import type { HttpRequest, HttpResponse } from '../types.js';

export interface FlagDefinitionsDeps {
  auth: AuthStore;
  definitions: DefinitionsCache;
}

/** Register before the feature flag `:id` routes. */
export function addFlagDefinitionsRoutes(router: Router, deps: FlagDefinitionsDeps): void {
  router.add(['GET'], '/flags/definitions', 'flags:definitions', (req) => serve(req, {}, deps, true));
  for (const path of ['/api/feature_flag/local_evaluation', '/api/projects/:project_id/feature_flags/local_evaluation']) {
    router.add(['GET'], path, 'api:feature_flags:local_evaluation', (req, params) =>
      serve(req, params, deps, sendCohorts(new URLSearchParams(req.query))),
    );
  }
}

function serve(http: HttpRequest, params: Params, deps: FlagDefinitionsDeps, withCohorts: boolean): HttpResponse {
  const { project } = projectRequest(deps.auth, http, withCurrentProject(params), 'feature_flag:read');
  const served = deps.definitions.get(project.id, withCohorts);
  const headers = { etag: served.etag, 'cache-control': 'private, must-revalidate' };
  const ifNoneMatch = http.header('if-none-match');
  if (ifNoneMatch !== '' && ifNoneMatchMatches(ifNoneMatch, served.etag)) return { status: 304, headers, projectId: project.id };
  return { status: 200, headers: { 'content-type': 'application/json', ...headers }, body: served.body, projectId: project.id };
}

/** `?send_cohorts` bare or with a true-ish value (PostHog reads it as a boolean flag). */
function sendCohorts(query: URLSearchParams): boolean {
  if (!query.has('send_cohorts')) return false;
  const v = (query.get('send_cohorts') ?? '').toLowerCase();
  return v !== 'false' && v !== '0' && v !== 'no' && v !== 'off';
}

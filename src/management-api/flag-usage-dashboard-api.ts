/**
 * A flag's usage dashboard actions (docs/compatibility.md#usage-dashboards):
 * - `POST …/feature_flags/:id/dashboard/`: a new usage dashboard for the flag (enriched when the
 *   flag has enriched analytics); `{"success": true}`, or 400 `{"success": false, "error": …}`.
 * - `POST …/feature_flags/:id/enrich_usage_dashboard/`: adds the `$feature_interaction` and
 *   `$feature_view` tiles, after PostHog's checks in its order, each failure a 400 with its message.
 * Both 404 for a flag outside the project, 403 for a user who may not edit the flag, and refuse
 * scoped personal keys (they declare no scope).
 */
import { HedgerowError, isHedgerowError } from '../errors.js';
import type { AuthStore } from '../store/auth-store.js';
import type { EnrichOutcome, FlagStore } from '../store/flag-store.js';
import { projectRequest, withCurrentProject } from '../http/api-request.js';
import { json } from '../http/respond.js';
import type { Params, Router } from '../http/router.js';
import type { HttpRequest, HttpResponse } from '../http/types.js';
import type { EditPermission } from './flag-edit-permission.js';
import { FLAG_API_PREFIXES, flagOfProject } from './feature-flags-api.js';

export interface FlagUsageDashboardDeps {
  auth: AuthStore;
  flags: FlagStore;
  editPermission: EditPermission;
}

const ENRICH_ERRORS: Readonly<Record<Exclude<EnrichOutcome, 'enriched'>, string>> = {
  no_usage_dashboard: 'Usage dashboard not found',
  already_enriched: 'Usage dashboard already has enriched data',
  no_enriched_analytics: 'No enriched analytics available for this feature flag',
};

export function addFlagUsageDashboardRoutes(router: Router, deps: FlagUsageDashboardDeps): void {
  for (const prefix of FLAG_API_PREFIXES) {
    router.add(['POST'], `${prefix}/:id/dashboard`, 'api:feature_flag_dashboard', (http, params) => {
      const { projectId, flagId, user } = editableFlag(deps, http, params);
      return attempt('Unable to generate usage dashboard', () => {
        deps.flags.regenerateUsageDashboard(projectId, flagId, user);
        return success();
      });
    });
    router.add(['POST'], `${prefix}/:id/enrich_usage_dashboard`, 'api:feature_flag_enrich_usage_dashboard', (http, params) => {
      const { projectId, flagId } = editableFlag(deps, http, params);
      return attempt('Unable to enrich usage dashboard', () => {
        const outcome = deps.flags.enrichUsageDashboard(projectId, flagId);
        return outcome === 'enriched' ? success() : failure(ENRICH_ERRORS[outcome]);
      });
    });
  }
}

function editableFlag(deps: FlagUsageDashboardDeps, http: HttpRequest, params: Params) {
  const req = projectRequest(deps.auth, http, withCurrentProject(params), 'unsupported');
  const flag = flagOfProject(deps.flags, req.project.id, params);
  const user = req.principal.user;
  if (!deps.editPermission(user)(flag)) throw new HedgerowError('HR_FLAG_EDIT_DENIED');
  return { projectId: req.project.id, flagId: flag.id, user };
}

/** PostHog answers any unexpected failure of these actions with a 400 and its own message. */
function attempt(message: string, run: () => HttpResponse): HttpResponse {
  try {
    return run();
  } catch (err) {
    if (isHedgerowError(err) && err.status === 404) throw err;
    return failure(message);
  }
}

function success(): HttpResponse {
  return json(200, { success: true });
}

function failure(error: string): HttpResponse {
  return json(400, { success: false, error });
}

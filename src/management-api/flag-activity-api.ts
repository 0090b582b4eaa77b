/**
 * The flag activity log (docs/compatibility.md#activity-log): `GET …/feature_flags/activity/`
 * (every flag of the project) and `GET …/feature_flags/:id/activity/` (one flag, deleted ones
 * included; 404 with no body outside the project). Page-numbered, newest first; a scoped personal
 * key needs `activity_log:read`.
 */
import { renderActivity, type ActivityLog } from '../store/activity-log.js';
import type { AuthStore } from '../store/auth-store.js';
import { FLAG_ACTIVITY_SCOPE, type FlagStore } from '../store/flag-store.js';
import { projectRequest, withCurrentProject } from '../http/api-request.js';
import { pageNumberPage, parsePageNumber } from './pagination.js';
import { json } from '../http/respond.js';
import type { Router } from '../http/router.js';
import { FLAG_API_PREFIXES, flagIdParam } from './feature-flags-api.js';

export interface FlagActivityApiDeps {
  auth: AuthStore;
  flags: FlagStore;
  activity: ActivityLog;
}

/** Add before the flag routes, so that `activity` is not taken for a flag id. */
export function addFlagActivityRoutes(router: Router, deps: FlagActivityApiDeps): void {
  for (const prefix of FLAG_API_PREFIXES) {
    router.add(['GET'], `${prefix}/activity`, 'api:feature_flags_activity', (http, params) => {
      const req = projectRequest(deps.auth, http, withCurrentProject(params), 'activity_log:read');
      const page = parsePageNumber(req.query);
      const entries = deps.activity.list(req.project.id, FLAG_ACTIVITY_SCOPE);
      return json(200, pageNumberPage(http, req.query, entries, page, renderActivity));
    });
    router.add(['GET'], `${prefix}/:id/activity`, 'api:feature_flag_activity', (http, params) => {
      const req = projectRequest(deps.auth, http, withCurrentProject(params), 'activity_log:read');
      // PostHog answers an unknown flag here from its own code, not DRF's: a 404 with no body.
      const flag = deps.flags.get(req.project.id, flagIdParam(params));
      if (!flag) return { status: 404, headers: {}, body: '' };
      const page = parsePageNumber(req.query);
      const entries = deps.activity.list(req.project.id, FLAG_ACTIVITY_SCOPE, String(flag.id));
      return json(200, pageNumberPage(http, req.query, entries, page, renderActivity));
    });
  }
}

/**
 * Flag answers for one subject, from the management API (docs/compatibility.md#flag-views),
 * computed by the same context builder and engine as `/flags`:
 * - `GET …/feature_flags/evaluation_reasons/?distinct_id=…&groups=…`: every non-deleted flag
 *   with its value and `{reason, condition_index}`; inactive flags as `disabled`.
 * - `GET …/feature_flags/my_flags/?groups=…`: every non-deleted flag, newest first, with its value
 *   for the calling user's own distinct id (inactive flags answer `false`).
 * Neither declares a scope, so scoped personal keys are refused (403), as in PostHog.
 */
import { HedgerowError } from '../errors.js';
import { flagValue } from '../flags/engine/evaluate-flags.js';
import { minimalFlag } from '../flags/definitions/minimal-flag.js';
import { orderNewestFirst } from '../flags/list-filters.js';
import type { SubjectSources } from '../flag-requests/flags-context.js';
import { evaluateSubject } from '../flag-requests/evaluate-subject.js';
import type { ProjectFlagsCache } from '../flag-requests/project-flags-cache.js';
import type { AuthStore } from '../store/auth-store.js';
import type { FlagReader } from '../store/flag-store.js';
import { projectRequest, withCurrentProject } from '../http/api-request.js';
import { json } from '../http/respond.js';
import type { Router } from '../http/router.js';
import { isPlainObject } from '../util/plain-object.js';
import { FLAG_API_PREFIXES } from './feature-flags-api.js';

export interface FlagEvaluationViewsDeps {
  auth: AuthStore;
  flags: FlagReader;
  projects: ProjectFlagsCache;
  sources: SubjectSources;
}

/** Add before the flag routes, so that these names are not taken for flag ids. */
export function addFlagEvaluationViewRoutes(router: Router, deps: FlagEvaluationViewsDeps): void {
  for (const prefix of FLAG_API_PREFIXES) {
    router.add(['GET'], `${prefix}/evaluation_reasons`, 'api:feature_flags_evaluation_reasons', (http, params) => {
      const req = projectRequest(deps.auth, http, withCurrentProject(params), 'unsupported');
      const distinctId = req.query.get('distinct_id');
      if (!distinctId) throw new HedgerowError('HR_DISTINCT_ID_REQUIRED');
      const groups = parseGroupsParam(req.query.get('groups'));
      const projectId = req.project.id;
      const project = deps.projects.get(projectId);
      const { results } = evaluateSubject(projectId, project, distinctId, groups, deps.sources, new Date());
      const body: Record<string, { value: boolean | string; evaluation: { reason: string; condition_index: number | null } }> = {};
      for (const [key, r] of results) {
        // Django answers a missing group before looking at any condition: no condition index.
        const conditionIndex = r.reason.code === 'no_group_type' ? null : r.reason.condition_index;
        body[key] = { value: flagValue(r), evaluation: { reason: r.reason.code, condition_index: conditionIndex } };
      }
      for (const flag of project.snapshot.inactive) {
        body[flag.key] = { value: false, evaluation: { reason: 'disabled', condition_index: null } };
      }
      return json(200, body);
    });

    router.add(['GET'], `${prefix}/my_flags`, 'api:feature_flags_my_flags', (http, params) => {
      const req = projectRequest(deps.auth, http, withCurrentProject(params), 'unsupported');
      const distinctId = req.principal.user.distinct_id;
      if (!distinctId) throw new HedgerowError('HR_USER_DISTINCT_ID_REQUIRED');
      const projectId = req.project.id;
      const flags = orderNewestFirst(deps.flags.list(projectId).filter((f) => !f.deleted));
      if (flags.length === 0) return json(200, []);
      const groups = parseGroupsParam(req.query.get('groups'));
      const { results } = evaluateSubject(projectId, deps.projects.get(projectId), distinctId, groups, deps.sources, new Date());
      return json(
        200,
        flags.map((flag) => {
          const r = flag.active ? results.get(flag.key) : undefined;
          return { feature_flag: minimalFlag(flag), value: r === undefined ? false : flagValue(r) };
        }),
      );
    });
  }
}

/** `groups`: a JSON object (default `{}`), with the newest PostHog's messages for anything else. */
function parseGroupsParam(raw: string | null): Record<string, unknown> {
  if (raw === null || raw === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new HedgerowError('HR_GROUPS_PARAM_INVALID_JSON');
  }
  if (!isPlainObject(value)) throw new HedgerowError('HR_GROUPS_PARAM_NOT_AN_OBJECT');
  return value;
}

/**
 * Remote config as recent posthog-js loads it: `GET /array/:token/config` (JSON) and
 * `GET /array/:token/config.js` (a script that registers the same config). posthog-js reads
 * `supportedCompression` and `hasFeatureFlags` from it before it calls `/flags` or sends batches.
 */
import { HedgerowError } from '../../errors.js';
import { arrayConfigBody, arrayConfigScript, type RemoteConfigProject } from '../../flags/remote-config.js';
import type { AuthStore } from '../../store/auth-store.js';
import type { FlagReader } from '../../store/flag-store.js';
import { withCors } from '../cors.js';
import { json } from '../respond.js';
import type { Params, Router } from '../router.js';

export interface RemoteConfigDeps {
  auth: AuthStore;
  flags: FlagReader;
}

export function addRemoteConfigRoutes(router: Router, deps: RemoteConfigDeps): void {
  const hasFlags = activeFlagsProbe(deps.flags);
  const project = (params: Params): RemoteConfigProject => {
    const p = deps.auth.projectByToken(params.token ?? '');
    if (p === undefined) throw new HedgerowError('HR_NOT_FOUND');
    return { apiToken: p.api_token, hasFeatureFlags: hasFlags(p.id) };
  };
  router.add('*', '/array/:token/config', 'array:config', (req, params) =>
    withCors(req, () => json(200, arrayConfigBody(project(params)))),
  );
  router.add('*', '/array/:token/config.js', 'array:config.js', (req, params) =>
    withCors(req, () => ({
      status: 200,
      headers: { 'content-type': 'application/javascript' },
      body: arrayConfigScript(project(params)),
    })),
  );
}

/** Whether a project has an active flag, recomputed only when its flag version moves. */
function activeFlagsProbe(flags: FlagReader): (projectId: number) => boolean {
  const cache = new Map<number, { version: number; value: boolean }>();
  return (projectId) => {
    const version = flags.flagsVersion(projectId);
    const hit = cache.get(projectId);
    if (hit !== undefined && hit.version === version) return hit.value;
    const value = flags.list(projectId).some((f) => f.active && !f.deleted);
    cache.set(projectId, { version, value });
    return value;
  };
}

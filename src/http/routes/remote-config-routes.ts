/**
 * Remote config as recent posthog-js loads it: `GET /array/:token/config` (JSON) and
 * `GET /array/:token/config.js` (a script that registers the same config). posthog-js reads
 * `supportedCompression` and `hasFeatureFlags` from it before it calls `/flags` or sends batches.
 */
import { catalogueError, HedgerowError } from '../../errors.js';
import { arrayConfigBody, arrayConfigScript, type RemoteConfigProject } from '../../flags/remote-config.js';
import type { AuthStore } from '../../store/auth-store.js';
import type { FlagReader } from '../../store/flag-store.js';
import { corsHeaders } from '../cors.js';
import { errorResponse, json } from '../respond.js';
import type { Params, Router } from '../router.js';
import type { HttpRequest, HttpResponse } from '../types.js';

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

function withCors(req: HttpRequest, respond: () => HttpResponse): HttpResponse {
  const cors = corsHeaders(req);
  if (req.method === 'OPTIONS') return { status: 204, headers: cors };
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return errorResponse(catalogueError('HR_METHOD_NOT_ALLOWED', { method: req.method }), cors);
  }
  try {
    const res = respond();
    return { ...res, headers: { ...res.headers, ...cors } };
  } catch (err) {
    if (err instanceof HedgerowError) return errorResponse(err, cors);
    throw err;
  }
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

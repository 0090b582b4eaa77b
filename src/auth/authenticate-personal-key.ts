/**
 * Personal API key authentication for the project-scoped REST API, as PostHog does it: the key
 * is looked for in `Authorization: Bearer`, then the `personal_api_key` query parameter; only the
 * first candidate found is tried. Then the project (`:project_id`, an integer or `@current`) and
 * the scope the action needs are checked.
 */
import { HedgerowError } from '../errors.js';
import type { AuthStore, PersonalApiKey, Project, User } from '../store/auth-store.js';

export interface Principal {
  user: User;
  key: PersonalApiKey;
}

export function authenticatePersonalKey(
  auth: AuthStore,
  authorization: string,
  query: URLSearchParams,
): Principal {
  const bearer = /^\s*Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
  const [secret, where] = bearer
    ? [bearer, 'Authorization header']
    : [query.get('personal_api_key') ?? undefined, 'query string'];
  if (!secret) throw new HedgerowError('HR_NOT_AUTHENTICATED');
  const found = auth.personalKey(secret);
  if (!found) throw new HedgerowError('HR_AUTHENTICATION_FAILED', `Personal API key found in request ${where} is invalid.`);
  return found;
}

export function resolveProject(auth: AuthStore, principal: Principal, projectParam: string): Project {
  const id = projectParam === '@current' ? principal.user.current_project_id : parseProjectId(projectParam);
  const project = id === undefined ? undefined : auth.project(id);
  if (!project) throw new HedgerowError('HR_PROJECT_NOT_FOUND');
  if (!auth.userCanAccessProject(principal.user, project)) throw new HedgerowError('HR_PROJECT_ACCESS_DENIED');
  return project;
}

/** A key with no scopes or with `*` may do everything; a `:read` need is met by `:write`. */
export function requireScope(principal: Principal, scope: string): void {
  const scopes = principal.key.scopes;
  if (scopes.length === 0 || scopes.includes('*') || scopes.includes(scope)) return;
  if (scope.endsWith(':read') && scopes.includes(scope.replace(/:read$/, ':write'))) return;
  throw new HedgerowError('HR_PERMISSION_DENIED', `API key missing required scope '${scope}'`);
}

function parseProjectId(s: string): number | undefined {
  return /^\d{1,15}$/.test(s) ? Number(s) : undefined;
}

/**
 * Personal API key authentication for the project-scoped REST API, as PostHog does it: the key
 * is looked for in `Authorization: Bearer`, then the request body's `personal_api_key`, then the
 * `personal_api_key` query parameter; only the first candidate found is tried. Then the scope the
 * action needs and the project (`:project_id`, an integer or `@current`) are checked.
 */
import { replicatedWrite } from '../util/write-context.js';
import { catalogueError, HedgerowError } from '../errors.js';
import type { AuthStore, PersonalApiKey, Project, User } from '../store/auth-store.js';

export interface Principal {
  user: User;
  key: PersonalApiKey;
}

/**
 * What an action needs from a scoped key: a scope such as `feature_flag:write`, or `unsupported`
 * for actions that declare none (PostHog refuses every scoped key there, even `*`).
 */
export type RequiredScope = string | 'unsupported';

export function authenticatePersonalKey(
  auth: AuthStore,
  authorization: string,
  query: URLSearchParams,
  body?: Readonly<Record<string, unknown>>,
): Principal {
  // A request a cluster node replicated carries the SHA-256 of its bearer key, not the key
  // (cluster/cluster-command.ts); only a replicated write may use that form.
  const hashed = replicatedWrite() === undefined ? undefined : /^Bearer-SHA256 ([0-9a-f]{64})$/.exec(authorization)?.[1];
  if (hashed !== undefined) {
    const found = auth.personalKeyByHash(hashed);
    if (!found) throw catalogueError('HR_AUTHENTICATION_FAILED', { where: 'Authorization header' });
    return found;
  }
  const bearer = /^\s*Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
  const fromBody = typeof body?.personal_api_key === 'string' ? body.personal_api_key : undefined;
  const [secret, where] = bearer
    ? [bearer, 'Authorization header']
    : fromBody
      ? [fromBody, 'body']
      : [query.get('personal_api_key') ?? undefined, 'query string'];
  if (!secret) throw new HedgerowError('HR_NOT_AUTHENTICATED');
  const found = auth.personalKey(secret);
  if (!found) throw catalogueError('HR_AUTHENTICATION_FAILED', { where });
  return found;
}

export function resolveProject(auth: AuthStore, principal: Principal, projectParam: string): Project {
  const id = projectParam === '@current' ? principal.user.current_project_id : parseProjectId(projectParam);
  const project = id === undefined ? undefined : auth.project(id);
  if (!project) throw new HedgerowError('HR_PROJECT_NOT_FOUND');
  return checkProjectAccess(auth, principal, project);
}

/** The user must belong to the project's organization, and a project-limited key must list it. */
export function checkProjectAccess(auth: AuthStore, principal: Principal, project: Project): Project {
  const teams = principal.key.scoped_teams;
  if (teams && !teams.includes(project.id)) {
    throw catalogueError('HR_KEY_PROJECT_DENIED', { project_id: project.id });
  }
  if (!auth.userCanAccessProject(principal.user, project)) throw new HedgerowError('HR_PROJECT_ACCESS_DENIED');
  return project;
}

/**
 * An unscoped key may do everything; `*` everything that declares a scope; otherwise the scope
 * must be listed, a `:read` need being met by the matching `:write`.
 */
export function requireScope(principal: Principal, scope: RequiredScope): void {
  const scopes = principal.key.scopes;
  if (scopes.length === 0) return;
  if (scope === 'unsupported') throw new HedgerowError('HR_SCOPED_KEY_UNSUPPORTED');
  if (scopes.includes('*') || scopes.includes(scope)) return;
  if (scope.endsWith(':read') && scopes.includes(scope.replace(/:read$/, ':write'))) return;
  throw catalogueError('HR_SCOPE_MISSING', { scope });
}

function parseProjectId(s: string): number | undefined {
  return /^\d{1,15}$/.test(s) ? Number(s) : undefined;
}

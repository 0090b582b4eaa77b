/**
 * The common first steps of a management API request (PostHog's REST API): read the body (JSON or
 * form), authenticate the personal API key, check the scope the action needs, and resolve the
 * project or organization of the path. Handlers get a plain `ApiRequest` and throw catalogued errors.
 */
import {
  authenticatePersonalKey,
  checkProjectAccess,
  requireScope,
  resolveProject,
  type Principal,
  type RequiredScope,
} from '../auth/authenticate-personal-key.js';
import { pythonTypeName } from '../compat/python-repr.js';
import { catalogueError, HedgerowError } from '../errors.js';
import { MAX_JSON_DEPTH } from '../limits.js';
import type { AuthStore, Organization, Project } from '../store/auth-store.js';
import { exceedsMaxDepth } from '../util/json-depth.js';
import { isPlainObject } from '../util/plain-object.js';
import { isMultipart } from './multipart-form.js';
import { QueryParams } from './query-params.js';
import type { Params } from './router.js';
import type { HttpRequest } from './types.js';

export type JsonObject = Record<string, unknown>;

export interface ApiRequest {
  readonly http: HttpRequest;
  readonly query: URLSearchParams;
  /** The parsed body: `{}` when empty; form fields as strings. */
  readonly body: JsonObject;
  readonly principal: Principal;
}

export interface ProjectApiRequest extends ApiRequest {
  readonly project: Project;
}

export interface OrganizationApiRequest extends ApiRequest {
  readonly organization: Organization;
}

/**
 * Authenticates, checks the scope, then resolves `:project_id` (or the project a `?token=` names,
 * unless `pathOnly`: the project endpoints themselves act on the project of their path).
 */
export function projectRequest(
  auth: AuthStore,
  http: HttpRequest,
  params: Params,
  scope: RequiredScope,
  opts: { pathOnly?: boolean } = {},
): ProjectApiRequest {
  const base = apiRequest(auth, http, scope);
  const token = opts.pathOnly ? undefined : (base.query.get('token') ?? base.query.get('api_key') ?? stringField(base.body, 'token'));
  let project: Project;
  if (token) {
    // A project API key in the request selects the project, as PostHog's routing does.
    const byToken = auth.projectByToken(token);
    if (!byToken) throw new HedgerowError('HR_PROJECT_TOKEN_INVALID');
    project = checkProjectAccess(auth, base.principal, byToken);
  } else {
    project = resolveProject(auth, base.principal, params.project_id ?? '');
  }
  return { ...base, project };
}

/** The legacy `/api/feature_flag/` routes have no `:project_id`: they use the caller's current project. */
export function withCurrentProject(params: Params): Params {
  return params.project_id === undefined ? { ...params, project_id: '@current' } : params;
}

/** Authenticates, checks the scope, then resolves `:organization_id` (an id or `@current`). */
export function organizationRequest(auth: AuthStore, http: HttpRequest, params: Params, scope: RequiredScope): OrganizationApiRequest {
  const base = apiRequest(auth, http, scope);
  if (base.principal.key.scoped_teams) {
    // PostHog's APIScopePermission: a key limited to projects reaches project endpoints only.
    throw new HedgerowError('HR_KEY_PROJECT_ENDPOINTS_ONLY');
  }
  const ref = params.organization_id ?? '@current';
  const user = base.principal.user;
  const id = ref === '@current' ? user.organization_id : ref;
  const organization = auth.organization(id);
  if (!organization || organization.id !== user.organization_id) throw new HedgerowError('HR_NOT_FOUND');
  return { ...base, organization };
}

/**
 * Authenticates only, for the endpoints of the calling user itself (its personal API keys), which
 * decide what the key may do there.
 */
export function userRequest(auth: AuthStore, http: HttpRequest): ApiRequest {
  const query = new QueryParams(http.query);
  const body = readBody(http);
  return { http, query, body, principal: authenticatePersonalKey(auth, http.header('authorization'), query, body) };
}

/**
 * Throws the 401 (or 400) the API would answer when no stored key authenticates the request: by
 * its Authorization header or query string, else by its body; for a write that must be refused
 * (or sent on) before the API reads it whole.
 */
export function checkAuthenticated(auth: AuthStore, http: HttpRequest): void {
  const query = new QueryParams(http.query);
  try {
    authenticatePersonalKey(auth, http.header('authorization'), query);
    return;
  } catch (err) {
    if (!/^\s*$/.test(http.header('authorization')) || query.has('personal_api_key')) throw err;
  }
  // A multipart upload's fields are read by the API after its file: its key must come in the
  // header or the query string to be checked before then.
  if (isMultipart(http)) throw new HedgerowError('HR_NOT_AUTHENTICATED');
  userRequest(auth, http);
}

function apiRequest(auth: AuthStore, http: HttpRequest, scope: RequiredScope): ApiRequest {
  const query = new QueryParams(http.query);
  const body = readBody(http);
  const principal = authenticatePersonalKey(auth, http.header('authorization'), query, body);
  requireScope(principal, scope);
  return { http, query, body, principal };
}

/** The request body as an object: JSON, or `application/x-www-form-urlencoded` (last value wins). */
function readBody(http: HttpRequest): JsonObject {
  if (http.body.byteLength === 0) return {};
  const text = Buffer.from(http.body.buffer, http.body.byteOffset, http.body.byteLength).toString('utf8');
  const type = http.header('content-type').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded') {
    return Object.fromEntries(new URLSearchParams(text));
  }
  if (type !== '' && type !== 'application/json' && !type.endsWith('+json')) {
    throw catalogueError('HR_UNSUPPORTED_MEDIA_TYPE', { media_type: type });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw catalogueError('HR_JSON_PARSE', { reason: (err as Error).message });
  }
  // Flag and cohort filters are compiled and matched recursively: refuse what could exhaust the stack.
  if (exceedsMaxDepth(value, 1)) throw catalogueError('HR_JSON_TOO_DEEP', { max_depth: MAX_JSON_DEPTH });
  if (value === null) return {};
  if (!isPlainObject(value)) throw catalogueError('HR_BODY_NOT_A_DICT', { datatype: pythonTypeName(value) });
  return value as JsonObject;
}

/** The absolute URL of this request's path with the given query (`x-forwarded-proto` honoured). */
export function absoluteUrl(http: HttpRequest, query: URLSearchParams | string): string {
  const q = query.toString();
  return `${requestOrigin(http)}${http.path}${q ? `?${q}` : ''}`;
}

/** `scheme://host` as the client addressed this server (`x-forwarded-proto` honoured). */
export function requestOrigin(http: HttpRequest): string {
  const host = http.header('host') || 'localhost';
  const proto = http.header('x-forwarded-proto').split(',')[0]!.trim() || 'http';
  return `${proto}://${host}`;
}

function stringField(body: JsonObject, name: string): string | undefined {
  const v = body[name];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

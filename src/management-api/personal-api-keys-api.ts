/**
 * PostHog's personal API key endpoint (`posthog/api/personal_api_key.py`,
 * docs/compatibility.md#personal-api-keys):
 *   /api/personal_api_keys/            GET list (the caller's own keys, newest first), POST create
 *   /api/personal_api_keys/:id/        GET, PATCH, PUT, DELETE (`:id` may be `@current`)
 *   /api/personal_api_keys/:id/roll/   POST: a new secret, shown once
 * What a personal key may do here is src/auth/personal-key-rules.ts. A deleted or rolled secret
 * is refused from the next request on, in every thread (the auth version bump).
 */
import {
  MAX_API_KEYS_PER_USER,
  PERSONAL_KEY_LABEL_MAX_LENGTH,
  personalKeyEndpointRefusal,
  type PersonalKeyAction,
} from '../auth/personal-key-rules.js';
import { firstInvalidScope } from '../auth/scopes.js';
import { readCharField, readIntegerField, readListField, readStringItem } from '../compat/drf-fields.js';
import { apiDateTime } from '../compat/iso-micros.js';
import { catalogueError, HedgerowError } from '../errors.js';
import { userRequest, type ApiRequest, type JsonObject } from '../http/api-request.js';
import { json } from '../http/respond.js';
import type { Params, Router } from '../http/router.js';
import type { HttpRequest, HttpResponse } from '../http/types.js';
import type { AuthStore, PersonalApiKey, PersonalApiKeyChanges, User } from '../store/auth-store.js';
import { hasOwn } from '../util/plain-object.js';

const KEYS = '/api/personal_api_keys';

export function addPersonalApiKeysRoutes(router: Router, deps: { auth: AuthStore }): void {
  const api = new PersonalApiKeysApi(deps.auth);
  router.add(['GET', 'POST'], KEYS, 'api:personal_api_keys', (req) => (req.method === 'GET' ? api.list(req) : api.create(req)));
  router.add(['GET', 'PATCH', 'PUT', 'DELETE'], `${KEYS}/:id`, 'api:personal_api_key', (req, params) => {
    if (req.method === 'GET') return api.retrieve(req, params);
    if (req.method === 'DELETE') return api.destroy(req, params);
    return api.update(req, params, req.method === 'PUT');
  });
  router.add(['POST'], `${KEYS}/:id/roll`, 'api:personal_api_key_roll', (req, params) => api.roll(req, params));
}

/** PostHog's PersonalAPIKeySerializer output; `value` only on create and roll. */
interface RenderedPersonalKey {
  id: string;
  label: string;
  value: string | null;
  mask_value: string;
  created_at: string;
  last_used_at: string | null;
  user_id: number;
  scopes: string[];
  scoped_teams: number[] | null;
  scoped_organizations: string[] | null;
  last_rolled_at: string | null;
}

function renderPersonalKey(auth: AuthStore, key: PersonalApiKey, value: string | null = null): RenderedPersonalKey {
  const lastUsedAt = auth.keyLastUsedAt(key);
  return {
    id: key.id,
    label: key.label,
    value,
    mask_value: key.mask_value,
    created_at: apiDateTime(key.created_at),
    last_used_at: lastUsedAt === null ? null : apiDateTime(lastUsedAt),
    user_id: key.user_id,
    // `to_representation`: an unscoped (legacy) key shows as `["*"]`.
    scopes: key.scopes.length > 0 ? key.scopes : ['*'],
    scoped_teams: key.scoped_teams ?? null,
    scoped_organizations: key.scoped_organizations ?? null,
    last_rolled_at: key.last_rolled_at ? apiDateTime(key.last_rolled_at) : null,
  };
}

const NO_CONTENT: HttpResponse = { status: 204 };

class PersonalApiKeysApi {
  constructor(private readonly auth: AuthStore) {}

  list(http: HttpRequest): HttpResponse {
    const r = this.request(http, 'list');
    const own = this.auth
      .personalKeys()
      .filter((k) => k.user_id === r.principal.user.id)
      .reverse();
    return json(
      200,
      own.map((k) => renderPersonalKey(this.auth, k)),
    );
  }

  create(http: HttpRequest): HttpResponse {
    const r = this.request(http, 'create');
    const user = r.principal.user;
    const fields = this.fields(r.body, user, true);
    // `create` counts after validation, as the serializer's create() does.
    if (this.auth.personalKeys().filter((k) => k.user_id === user.id).length >= MAX_API_KEYS_PER_USER) {
      throw catalogueError('HR_TOO_MANY_PERSONAL_KEYS', { max_keys: MAX_API_KEYS_PER_USER });
    }
    const { key, secret } = this.auth.createPersonalApiKey({
      userId: user.id,
      label: fields.label!,
      scopes: fields.scopes!,
      ...(fields.scopedTeams ? { scopedTeams: fields.scopedTeams } : {}),
      ...(fields.scopedOrganizations ? { scopedOrganizations: fields.scopedOrganizations } : {}),
    });
    return json(201, renderPersonalKey(this.auth, key, secret));
  }

  retrieve(http: HttpRequest, params: Params): HttpResponse {
    const r = this.request(http, 'retrieve', params.id);
    return json(200, renderPersonalKey(this.auth, this.keyOf(r, params)));
  }

  update(http: HttpRequest, params: Params, put: boolean): HttpResponse {
    const r = this.request(http, 'update', params.id);
    const key = this.keyOf(r, params);
    const updated = this.auth.updatePersonalApiKey(key.id, this.fields(r.body, r.principal.user, put));
    if (!updated) throw new HedgerowError('HR_NOT_FOUND');
    return json(200, renderPersonalKey(this.auth, updated));
  }

  destroy(http: HttpRequest, params: Params): HttpResponse {
    const r = this.request(http, 'destroy', params.id);
    if (!this.auth.deletePersonalApiKey(this.keyOf(r, params).id)) throw new HedgerowError('HR_NOT_FOUND');
    return NO_CONTENT;
  }

  roll(http: HttpRequest, params: Params): HttpResponse {
    const r = this.request(http, 'roll', params.id);
    const rolled = this.auth.rollPersonalApiKey(this.keyOf(r, params).id);
    if (!rolled) throw new HedgerowError('HR_NOT_FOUND');
    return json(200, renderPersonalKey(this.auth, rolled.key, rolled.secret));
  }

  private request(http: HttpRequest, action: PersonalKeyAction, targetId?: string): ApiRequest {
    const r = userRequest(this.auth, http);
    const refusal = personalKeyEndpointRefusal(r.principal.key, action, targetId);
    if (refusal === 'unsupported') throw new HedgerowError('HR_SCOPED_KEY_UNSUPPORTED');
    if (refusal === 'project_endpoints_only') throw new HedgerowError('HR_KEY_PROJECT_ENDPOINTS_ONLY');
    return r;
  }

  /** The caller's own key named by `:id` (`@current`: the calling key); 404 for anyone else's. */
  private keyOf(r: ApiRequest, params: Params): PersonalApiKey {
    const id = params.id === '@current' ? r.principal.key.id : (params.id ?? '');
    const key = this.auth.personalKeyById(id);
    if (!key || key.user_id !== r.principal.user.id) throw new HedgerowError('HR_NOT_FOUND');
    return key;
  }

  /**
   * The writable fields, in the serializer's order (the first error is the one answered):
   * `label`, `scopes`, `scoped_teams`, `scoped_organizations`. `required`: create and PUT.
   */
  private fields(body: JsonObject, user: User, required: boolean): PersonalApiKeyChanges {
    const out: PersonalApiKeyChanges = {};
    const label = this.present(body, 'label', required);
    if (label !== undefined) {
      out.label = readCharField(label, 'label', { allowBlank: false, maxLength: PERSONAL_KEY_LABEL_MAX_LENGTH });
    }
    const scopes = this.present(body, 'scopes', required);
    if (scopes !== undefined) out.scopes = readScopes(scopes);
    const teams = optionalList(body, 'scoped_teams');
    if (teams !== undefined) out.scopedTeams = teams === null ? null : this.scopedTeams(teams, user);
    const orgs = optionalList(body, 'scoped_organizations');
    if (orgs !== undefined) out.scopedOrganizations = orgs === null ? null : scopedOrganizations(orgs, user);
    return out;
  }

  private present(body: JsonObject, name: string, required: boolean): unknown {
    if (!hasOwn(body, name)) {
      if (required) throw new HedgerowError('HR_FIELD_REQUIRED', undefined, name);
      return undefined;
    }
    if (body[name] === null) throw new HedgerowError('HR_FIELD_NULL', undefined, name);
    return body[name];
  }

  /** `validate_scoped_teams`: every id a project the user is a member of. */
  private scopedTeams(items: unknown[], user: User): number[] {
    const ids = items.map((item) => readIntegerField(item, 'scoped_teams'));
    for (const id of ids) {
      const project = this.auth.project(id);
      if (!project || !this.auth.userCanAccessProject(user, project)) throw new HedgerowError('HR_KEY_SCOPED_TEAMS_NOT_MEMBER');
    }
    return ids;
  }
}

/** `scopes`: a non-empty list of strings, each `*` or `<object>:read|write` (`validate_scopes`). */
function readScopes(raw: unknown): string[] {
  const items = readListField(raw, 'scopes');
  if (items.length === 0) throw new HedgerowError('HR_FIELD_EMPTY_LIST', undefined, 'scopes');
  const scopes = items.map((item) => {
    const s = readStringItem(item, 'scopes');
    if (s.trim() === '') throw new HedgerowError('HR_FIELD_BLANK', undefined, 'scopes');
    return s.trim();
  });
  const bad = firstInvalidScope(scopes);
  if (bad !== undefined) throw catalogueError('HR_INVALID_SCOPE', { scope: bad });
  return scopes;
}

/** The optional list fields: absent → undefined, null → null (no limit), else the list. */
function optionalList(body: JsonObject, name: string): unknown[] | null | undefined {
  if (!hasOwn(body, name)) return undefined;
  if (body[name] === null) return null;
  return readListField(body[name], name);
}

/** `validate_scoped_organizations`: UUIDs of organizations the user is a member of (its own). */
function scopedOrganizations(items: unknown[], user: User): string[] {
  const ids = items.map((item) => readStringItem(item, 'scoped_organizations').trim().toLowerCase());
  for (const id of ids) {
    if (!/^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/.test(id)) {
      throw new HedgerowError('HR_KEY_SCOPED_ORGANIZATION_INVALID');
    }
  }
  for (const id of ids) {
    if (id.replace(/-/g, '') !== user.organization_id.replace(/-/g, '').toLowerCase()) {
      throw new HedgerowError('HR_KEY_SCOPED_ORGANIZATIONS_NOT_MEMBER');
    }
  }
  return ids;
}

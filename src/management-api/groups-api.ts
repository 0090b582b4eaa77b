/**
 * Groups and group types, read-only (PostHog's `GroupsViewSet` and `GroupsTypesViewSet`), over
 * the records `$groupidentify` processing writes. Scope `group:read`.
 * - `GET …/groups/?group_type_index=N`: filters `group_key` (substring) and `search`
 *   (src/persons/group-filter.ts); newest first, DRF cursor pagination, 100 a page (`limit` is ignored,
 *   as in PostHog): `{next, previous, results}`.
 * - `GET …/groups/find?group_type_index=N&group_key=K`: one group, or 404.
 * - `GET …/groups_types/`: every group type of the project by index, unpaginated.
 * A list page reads every group of the type, in the worker pool (src/persons/scan-groups.ts).
 */
import { decodeCursor } from '../compat/drf-cursor-pagination.js';
import { pythonInt } from '../compat/python-parse.js';
import { catalogueError, HedgerowError } from '../errors.js';
import { checkGroupsCursor } from '../persons/scan-groups.js';
import type { ScanPool } from '../pool/scan-pool.js';
import type { AuthStore } from '../store/auth-store.js';
import type { GroupReader } from '../store/group-store.js';
import { projectRequest } from '../http/api-request.js';
import { renderFoundGroup, renderGroup, renderGroupType } from './group-view.js';
import { cursorUrl } from './pagination.js';
import { json } from '../http/respond.js';
import type { Params, Router } from '../http/router.js';
import type { HttpRequest, HttpResponse } from '../http/types.js';

export interface GroupsApiDeps {
  auth: AuthStore;
  /** Point reads (`find`, group types), on the calling thread. */
  groups: GroupReader;
  /** List pages, which read every group of the type, in the worker pool (throws 503 `not_ready` until it runs). */
  scans: () => ScanPool;
}

const PROJECT = '/api/projects/:project_id';

export function addGroupsApiRoutes(router: Router, deps: GroupsApiDeps): void {
  router.add(['GET'], `${PROJECT}/groups`, 'api:groups', (req, params) => list(deps, req, params));
  router.add(['GET'], `${PROJECT}/groups/find`, 'api:groups_find', (req, params) => find(deps, req, params));
  router.add(['GET'], `${PROJECT}/groups_types`, 'api:groups_types', (req, params) => types(deps, req, params));
}

async function list(deps: GroupsApiDeps, http: HttpRequest, params: Params): Promise<HttpResponse> {
  const req = projectRequest(deps.auth, http, params, 'group:read');
  const q = req.query;
  const typeIndex = groupTypeIndex(q);
  const filter = { keyContains: q.get('group_key') ?? '', search: q.get('search') ?? undefined };
  const cursor = checkGroupsCursor(decodeCursor(q.get('cursor')));
  const page = await deps.scans().groupsPage({ projectId: req.project.id, typeIndex, filter, cursor });
  return json(200, {
    next: page.next && cursorUrl(http, q, page.next),
    previous: page.previous && cursorUrl(http, q, page.previous),
    results: page.items.map(renderGroup),
  });
}

function find(deps: GroupsApiDeps, http: HttpRequest, params: Params): HttpResponse {
  const req = projectRequest(deps.auth, http, params, 'group:read');
  const index = groupTypeIndex(req.query);
  const key = req.query.get('group_key');
  if (key === null) throw new HedgerowError('HR_FIELD_REQUIRED', undefined, 'group_key');
  const group = deps.groups.get(req.project.id, index, key);
  if (!group) throw new HedgerowError('HR_NOT_FOUND');
  return json(200, renderFoundGroup(group));
}

function types(deps: GroupsApiDeps, http: HttpRequest, params: Params): HttpResponse {
  const req = projectRequest(deps.auth, http, params, 'group:read');
  return json(200, deps.groups.types(req.project.id).map(renderGroupType));
}

/**
 * `group_type_index`: required; an integer as Django reads one. PostHog answers a non-integer
 * with a 500; Hedgerow with Django's message as a 400.
 */
function groupTypeIndex(q: URLSearchParams): number {
  const raw = q.get('group_type_index');
  if (!raw) throw new HedgerowError('HR_GROUP_TYPE_INDEX_REQUIRED');
  const n = pythonInt(raw);
  if (n === undefined || !Number.isSafeInteger(n)) {
    throw catalogueError('HR_GROUP_TYPE_INDEX_INVALID', { value: raw });
  }
  return n;
}

/**
 * Persons, read-only (PostHog's `/api/projects/:project_id/persons/`, `PersonViewSet`), over the
 * records the person processor writes. Scope `person:read`.
 * - `GET …/persons/`: filters `distinct_id`, `email`, `search` (src/persons/person-list-query.ts),
 *   `limit`/`offset`; `{results, next, previous}`, plus `count` with `?include_total`.
 * - `POST …/persons/`: refused with a 405, as PostHog does (persons come from events).
 * - `GET …/persons/:id/`: `:id` is the person's UUID or its integer id; anything else is a 400
 *   pointing at `?distinct_id=`.
 * The two print a person differently, as PostHog does (person-view.ts). What reads every person
 * (a list page, a UUID) runs in the worker pool (src/persons/scan-persons.ts).
 */
import { canonicalUuid } from '../compat/python-parse.js';
import { catalogueError, HedgerowError } from '../errors.js';
import type { ScanPool } from '../pool/scan-pool.js';
import type { AuthStore } from '../store/auth-store.js';
import type { PersonReader } from '../store/person-store.js';
import { absoluteUrl, projectRequest } from '../http/api-request.js';
import { parseLimitOffset } from './pagination.js';
import { refusePropertyFilter } from './property-filter-param.js';
import { FUTURE_PERSON_MARGIN_MS, personMatches, withOffset, type PersonFilter } from '../persons/person-list-query.js';
import type { PersonsPage, PersonsPageQuery } from '../persons/scan-persons.js';
import { parsePersonRef } from '../persons/person-ref.js';
import { listedPerson, retrievedPerson } from './person-view.js';
import { json } from '../http/respond.js';
import type { Params, Router } from '../http/router.js';
import type { HttpRequest, HttpResponse } from '../http/types.js';

export interface PersonsApiDeps {
  auth: AuthStore;
  /** Point reads (a person by id, distinct ids), on the calling thread. */
  persons: PersonReader;
  /** Reads of every person (a list page, a UUID), in the worker pool (throws 503 `not_ready` until it runs). */
  scans: () => ScanPool;
}

const PERSONS = '/api/projects/:project_id/persons';

export function addPersonsApiRoutes(router: Router, deps: PersonsApiDeps): void {
  router.add(['GET', 'POST'], PERSONS, 'api:persons', (req, params) =>
    req.method === 'GET' ? list(deps, req, params) : refuseCreate(deps, req, params),
  );
  router.add(['GET'], `${PERSONS}/:id`, 'api:person', (req, params) => retrieve(deps, req, params));
}

async function list(deps: PersonsApiDeps, http: HttpRequest, params: Params): Promise<HttpResponse> {
  const req = projectRequest(deps.auth, http, params, 'person:read');
  const projectId = req.project.id;
  const q = req.query;
  refusePropertyFilter(q, 'persons list');
  if (q.get('cohort')) throw catalogueError('HR_QUERY_FILTER_UNSUPPORTED', { list: 'persons list', name: 'cohort' }, 'cohort');
  const filter = personFilter(deps.persons, projectId, q, Date.now());
  const { limit, offset } = parseLimitOffset(q);
  const { persons: page, total } = await pageOf(deps, { projectId, filter, offset, limit });
  const url = absoluteUrl(http, http.query);
  return json(200, {
    results: page.map((p) => listedPerson(p, deps.persons.distinctIdsOf(projectId, p.id))),
    // As PostHog: a full page always links onwards, and `previous` is given from offset >= limit.
    next: page.length >= limit ? withOffset(url, offset + limit) : null,
    previous: offset - limit >= 0 ? withOffset(url, offset - limit) : null,
    ...(q.has('include_total') ? { count: total } : {}),
  });
}

/** The page: a scan in the pool, or one point read when `distinct_id` names the only candidate. */
function pageOf(deps: PersonsApiDeps, query: PersonsPageQuery): Promise<PersonsPage> | PersonsPage {
  const { filter } = query;
  if (filter.personId === undefined) return deps.scans().personsPage(query);
  const one = filter.personId === null ? undefined : deps.persons.get(query.projectId, filter.personId);
  const matched = one && personMatches(one, filter) ? [one] : [];
  return { persons: matched.slice(query.offset, query.offset + query.limit), total: matched.length };
}

/** PostHog refuses to create persons over the API (after authentication and the `person:write` scope). */
function refuseCreate(deps: PersonsApiDeps, http: HttpRequest, params: Params): HttpResponse {
  projectRequest(deps.auth, http, params, 'person:write');
  throw new HedgerowError('HR_PERSON_CREATE_NOT_ALLOWED');
}

async function retrieve(deps: PersonsApiDeps, http: HttpRequest, params: Params): Promise<HttpResponse> {
  const req = projectRequest(deps.auth, http, params, 'person:read');
  const projectId = req.project.id;
  const raw = params.id ?? '';
  const ref = parsePersonRef(raw);
  if (ref === 'not_found') throw new HedgerowError('HR_NOT_FOUND');
  if (ref === 'invalid') {
    throw catalogueError('HR_PERSON_ID_INVALID', { id: raw });
  }
  const person = 'uuid' in ref ? await deps.scans().personByUuid(projectId, ref.uuid) : deps.persons.get(projectId, ref.id);
  if (!person) throw new HedgerowError('HR_NOT_FOUND');
  return json(200, retrievedPerson(person, deps.persons.distinctIdsOf(projectId, person.id)));
}

/** The list filters of the query (empty parameters ignored), with the distinct ids they name looked up. */
function personFilter(persons: PersonReader, projectId: number, q: URLSearchParams, nowMs: number): PersonFilter {
  const filter: PersonFilter = { createdBeforeMs: nowMs + FUTURE_PERSON_MARGIN_MS };
  const distinctId = q.get('distinct_id');
  if (distinctId) filter.personId = persons.personIdOf(projectId, distinctId) ?? null;
  const email = q.get('email');
  if (email) filter.email = email;
  const search = q.get('search');
  if (search) filter.search = { text: search, ownerId: persons.personIdOf(projectId, search), uuid: canonicalUuid(search) };
  return filter;
}

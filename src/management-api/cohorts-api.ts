/**
 * Cohorts (PostHog's `/api/projects/:project_id/cohorts/`): list, create, retrieve, PATCH and soft
 * delete (PATCH `deleted: true`). Flags reference cohorts in their conditions; the flag API checks
 * those references against this store. Scopes `cohort:read` / `cohort:write`.
 *
 * Create and PATCH also take a `multipart/form-data` body whose `csv` file lists a static cohort's
 * members (src/cohorts/static-cohort-csv.ts); they are added in the transaction that writes the
 * cohort. As in PostHog, the file is read only when the cohort is (or becomes) static and the same
 * PATCH does not delete it; otherwise it is ignored. `PATCH …/:id/add_persons_to_static_cohort/`
 * adds stored persons by UUID.
 */
import type { RequiredScope } from '../auth/authenticate-personal-key.js';
import { memberDistinctIds, readStaticCohortCsv, type StaticCohortCsv } from '../cohorts/static-cohort-csv.js';
import { catalogueError, HedgerowError, isHedgerowError } from '../errors.js';
import { checkFiltersForFlagCohort, cohortIdOf, filtersUseCohort } from '../flags/cohort-checks.js';
import { readBooleanField, readCharField, readDictField } from '../compat/drf-fields.js';
import type { PersonsNamedQuery } from '../persons/scan-persons.js';
import type { ScanPool } from '../pool/scan-pool.js';
import type { AuthStore } from '../store/auth-store.js';
import type { CohortRecord, CohortStore, CohortWrite } from '../store/cohort-store.js';
import type { FlagReader } from '../store/flag-store.js';
import { projectRequest, type JsonObject, type ProjectApiRequest } from '../http/api-request.js';
import { isMultipart, readMultipartForm, withFormBody } from '../http/multipart-form.js';
import { limitOffsetPage, parseLimitOffset } from './pagination.js';
import { json } from '../http/respond.js';
import type { Params, Router } from '../http/router.js';
import { basicUserOrNull } from './serialize-user.js';
import { isPlainObject } from '../util/plain-object.js';
import type { HttpRequest, HttpResponse } from '../http/types.js';

export interface CohortsApiDeps {
  auth: AuthStore;
  cohorts: CohortStore;
  /** The project's flags: new filters for a cohort active flags use are checked against them. */
  flags: Pick<FlagReader, 'list'>;
  /** Resolves members named by person UUID or email (a read of every person), in the worker pool (throws 503 `not_ready` until it runs). */
  scans: () => ScanPool;
}

/** PostHog's DEFAULT_COHORT_INSERT_BATCH_SIZE: most persons one `add_persons_to_static_cohort` takes. */
const MAX_PERSONS_PER_ADD = 1000;

const COHORTS = '/api/projects/:project_id/cohorts';
const NAME_MAX_LENGTH = 400;
/** PostHog's `description` column: `varchar(1000)`. */
const DESCRIPTION_MAX_LENGTH = 1000;

/**
 * A `csv` upload's members, read (and resolved through the stored persons) before the
 * transaction, so no persons scan holds LMDB's write lock; its error is thrown only if the file
 * is used.
 */
type CsvUpload = { distinctIds: readonly string[] } | { error: HedgerowError };

export function addCohortsApiRoutes(router: Router, deps: CohortsApiDeps): void {
  const api = new CohortsApi(deps);
  router.add(['GET', 'POST'], COHORTS, 'api:cohorts', (req, params) =>
    req.method === 'GET' ? api.list(req, params) : api.create(req, params),
  );
  router.add(['PATCH'], `${COHORTS}/:id/add_persons_to_static_cohort`, 'api:cohort:add_persons', (req, params) =>
    api.addPersons(req, params),
  );
  router.add(['GET', 'PATCH', 'PUT', 'DELETE'], `${COHORTS}/:id`, 'api:cohort', (req, params) => {
    if (req.method === 'GET') return api.retrieve(req, params);
    if (req.method === 'DELETE') return api.refuseDelete(req, params);
    return api.update(req, params);
  });
}

class CohortsApi {
  constructor(private readonly deps: CohortsApiDeps) {}

  list(http: HttpRequest, params: Params): HttpResponse {
    const req = this.request(http, params, 'cohort:read');
    const live = this.deps.cohorts
      .list(req.project.id)
      .filter((c) => !c.deleted)
      .reverse();
    return json(
      200,
      limitOffsetPage(http, req.query, live, parseLimitOffset(req.query), (c) => this.render(c)),
    );
  }

  async create(http: HttpRequest, params: Params): Promise<HttpResponse> {
    const { form, csv } = await readMultipartBody(http);
    const req = this.request(form, params, 'cohort:write');
    const upload = csv && (await this.readCsvUpload(req.project.id, csv));
    const cohort = this.deps.cohorts.create(
      req.project.id,
      req.principal.user.id,
      () => this.validate(req, req.body, undefined),
      (created) => (created.is_static ? csvMembers(upload) : []),
    );
    return json(201, this.render(cohort));
  }

  retrieve(http: HttpRequest, params: Params): HttpResponse {
    const req = this.request(http, params, 'cohort:read');
    return json(200, this.render(this.cohortOf(req, params)));
  }

  async update(http: HttpRequest, params: Params): Promise<HttpResponse> {
    const { form, csv } = await readMultipartBody(http);
    const req = this.request(form, params, 'cohort:write');
    const existing = this.cohortOf(req, params);
    const upload = csv && (await this.readCsvUpload(req.project.id, csv));
    let write: CohortWrite = {};
    const cohort = this.deps.cohorts.update(
      req.project.id,
      existing.id,
      (current) => (write = this.validate(req, req.body, current)),
      (updated) => (updated.is_static && write.deleted !== true ? csvMembers(upload) : []),
    );
    return json(200, this.render(cohort));
  }

  /** Cohorts are soft-deleted with PATCH `deleted: true`, as flags are. */
  refuseDelete(http: HttpRequest, params: Params): HttpResponse {
    this.request(http, params, 'cohort:write');
    return { status: 405, body: '' };
  }

  /**
   * `PATCH …/cohorts/:id/add_persons_to_static_cohort/ {person_ids: [uuid…]}`: every distinct id
   * of each known person becomes a member (membership is kept by distinct id, and a person is a
   * member when any of its distinct ids is); unknown uuids are ignored, as PostHog ignores them.
   * PostHog's checks, in its order.
   */
  async addPersons(http: HttpRequest, params: Params): Promise<HttpResponse> {
    const req = this.request(http, params, 'cohort:write');
    const cohort = this.cohortOf(req, params);
    if (cohort.deleted) throw new HedgerowError('HR_NOT_FOUND');
    if (!cohort.is_static) throw new HedgerowError('HR_COHORT_NOT_STATIC');
    const ids = req.body.person_ids;
    if (!Array.isArray(ids)) throw new HedgerowError('HR_COHORT_PERSON_IDS_NOT_A_LIST');
    if (ids.length === 0) throw new HedgerowError('HR_COHORT_PERSON_IDS_EMPTY');
    if (ids.length > MAX_PERSONS_PER_ADD) throw new HedgerowError('HR_COHORT_PERSON_IDS_TOO_MANY');
    const values = ids.filter((id): id is string => typeof id === 'string').map((id) => id.toLowerCase());
    const { persons, distinctIds } = await this.deps.scans().personsNamed({ projectId: req.project.id, by: 'uuid', values });
    if (persons === 0) throw new HedgerowError('HR_COHORT_NO_VALID_PERSONS');
    this.deps.cohorts.addStaticMembers(req.project.id, cohort.id, distinctIds);
    return json(200, { success: true });
  }

  /**
   * The members a static cohort's upload would add. A file of person UUIDs or emails adds every
   * distinct id of each stored person it names (by UUID, or by an `email` person property equal to
   * the value); IDs naming nobody are skipped, as PostHog skips them.
   */
  private async readCsvUpload(projectId: number, bytes: Uint8Array): Promise<CsvUpload> {
    let csv: StaticCohortCsv;
    try {
      csv = readStaticCohortCsv(bytes);
    } catch (err) {
      if (!isHedgerowError(err)) throw err;
      return { error: err };
    }
    const { idType, ids } = csv;
    if (idType === 'distinct_id') return { distinctIds: memberDistinctIds(ids) };
    const query: PersonsNamedQuery =
      idType === 'person_id'
        ? { projectId, by: 'uuid', values: ids.map((id) => id.toLowerCase()) }
        : { projectId, by: 'email', values: ids };
    return { distinctIds: (await this.deps.scans().personsNamed(query)).distinctIds };
  }

  private request(http: HttpRequest, params: Params, scope: RequiredScope): ProjectApiRequest {
    return projectRequest(this.deps.auth, http, params, scope);
  }

  private cohortOf(req: ProjectApiRequest, params: Params): CohortRecord {
    const raw = params.id ?? '';
    const cohort = /^\d{1,15}$/.test(raw) ? this.deps.cohorts.get(req.project.id, Number(raw)) : undefined;
    if (!cohort) throw new HedgerowError('HR_NOT_FOUND');
    return cohort;
  }

  /** Field checks in field order: name, description, filters (a property group), is_static, deleted. */
  private validate(req: ProjectApiRequest, body: JsonObject, current: CohortRecord | undefined): CohortWrite {
    const out: CohortWrite = {};
    if (body.name !== undefined && body.name !== null) {
      out.name = readCharField(body.name, 'name', { allowBlank: true, maxLength: NAME_MAX_LENGTH });
    }
    if (body.description !== undefined && body.description !== null) {
      out.description = readCharField(body.description, 'description', { allowBlank: true, maxLength: DESCRIPTION_MAX_LENGTH });
    }
    if (body.filters !== undefined) {
      const filters = readDictField(body.filters, 'filters');
      this.checkFilters(req.project.id, filters, current?.id);
      out.filters = filters;
    }
    if (body.is_static !== undefined) out.is_static = readBooleanField(body.is_static, 'is_static', false) as boolean;
    if (out.filters !== undefined && current !== undefined && req.http.method === 'PATCH') {
      this.checkForFlags(req.project.id, out.filters, current, out.is_static ?? current.is_static);
    }
    if (body.deleted !== undefined) out.deleted = readBooleanField(body.deleted, 'deleted', false) as boolean;
    return out;
  }

  /**
   * PATCHed filters of a cohort an active flag uses (directly or through other cohorts) may hold
   * no behavioural filter, nor reference a cohort that does: the flag could no longer be
   * evaluated (PostHog's `_validate_feature_flag_constraints`). A static cohort staying static
   * is not checked: its members are a list.
   */
  private checkForFlags(projectId: number, filters: unknown, current: CohortRecord, willBeStatic: boolean): void {
    if (current.is_static && willBeStatic) return;
    const lookup = (id: number) => this.deps.cohorts.get(projectId, id);
    const used = this.deps.flags
      .list(projectId)
      .some((flag) => flag.active && !flag.deleted && filtersUseCohort(flag.filters, current.id, lookup));
    if (used) checkFiltersForFlagCohort(filters, lookup);
  }

  /** `filters.properties` must be an AND/OR group; referenced cohorts must exist and not loop back. */
  private checkFilters(projectId: number, filters: JsonObject, selfId: number | undefined): void {
    const properties = filters.properties;
    if (properties === undefined) return;
    // Depth first, in the order of the values, without recursion (a chain of cohorts can be long);
    // a cohort already walked through is not walked again (shared sub-cohorts would otherwise
    // be walked once per path: exponentially many).
    const onPath = new Set<number>(selfId === undefined ? [] : [selfId]);
    const walked = new Set<number>();
    const stack: { nodes: readonly unknown[]; next: number; cohort?: number }[] = [{ nodes: [properties], next: 0 }];
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      if (frame.next === frame.nodes.length) {
        stack.pop();
        if (frame.cohort !== undefined) {
          onPath.delete(frame.cohort);
          walked.add(frame.cohort);
        }
        continue;
      }
      const node = frame.nodes[frame.next++];
      if (!isPlainObject(node)) throw new HedgerowError('HR_COHORT_FILTERS_NOT_GROUPS');
      const group: JsonObject = node;
      if (Array.isArray(group.values)) {
        if (group.type !== 'AND' && group.type !== 'OR') throw new HedgerowError('HR_COHORT_GROUP_TYPE_INVALID');
        stack.push({ nodes: group.values, next: 0 });
        continue;
      }
      if (group.type !== 'cohort') continue;
      const id = cohortIdOf(group.value);
      const target = id === undefined ? undefined : this.deps.cohorts.get(projectId, id);
      if (id === undefined || !target) {
        throw catalogueError('HR_COHORT_DOES_NOT_EXIST', { id: String(group.value) });
      }
      if (onPath.has(id)) throw new HedgerowError('HR_COHORT_LOOP');
      if (walked.has(id)) continue;
      const nested = (target.filters as { properties?: unknown }).properties;
      if (nested === undefined) {
        walked.add(id);
        continue;
      }
      onPath.add(id);
      stack.push({ nodes: [nested], next: 0, cohort: id });
    }
  }

  private render(c: CohortRecord): Record<string, unknown> {
    return {
      id: c.id,
      name: c.name,
      description: c.description,
      groups: [],
      deleted: c.deleted,
      filters: c.filters,
      query: null,
      is_calculating: false,
      created_by: basicUserOrNull((id) => this.deps.auth.user(id), c.created_by),
      created_at: c.created_at,
      last_calculation: null,
      errors_calculating: 0,
      count: c.is_static ? this.deps.cohorts.staticMemberPersonCount(c.project_id, c.id) : null,
      is_static: c.is_static,
      experiment_set: [],
    };
  }
}

/**
 * A multipart body read: its text fields as a form post, and its `csv` file (Django's
 * `request.FILES["csv"]`). Other bodies pass through.
 */
async function readMultipartBody(http: HttpRequest): Promise<{ form: HttpRequest; csv: Uint8Array | undefined }> {
  if (!isMultipart(http)) return { form: http, csv: undefined };
  const { fields, files } = await readMultipartForm(http);
  return { form: withFormBody(http, fields), csv: files.get('csv')?.data };
}

/** The members a static cohort's upload adds; a refused file fails the write. */
function csvMembers(upload: CsvUpload | undefined): readonly string[] {
  if (upload === undefined) return [];
  if ('error' in upload) throw upload.error;
  return upload.distinctIds;
}

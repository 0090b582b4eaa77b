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
import { apiDateTime } from '../compat/iso-micros.js';
import type { RequiredScope } from '../auth/authenticate-personal-key.js';
import { memberDistinctIds, readStaticCohortCsv, type StaticCohortCsv } from '../cohorts/static-cohort-csv.js';
import { HedgerowError, isHedgerowError } from '../errors.js';
import { type CohortWriteContext, type CohortWriteMode, validateCohortWrite } from '../cohorts/cohort-write-rules.js';
import type { PersonsNamedQuery } from '../persons/scan-persons.js';
import type { ScanPool } from '../pool/scan-pool.js';
import type { AuthStore } from '../store/auth-store.js';
import type { CohortRecord, CohortStore, CohortWrite } from '../store/cohort-store.js';
import type { FlagReader } from '../store/flag-store.js';
import { projectRequest, type ProjectApiRequest } from '../http/api-request.js';
import { isMultipart, readMultipartForm, withFormBody } from '../http/multipart-form.js';
import { limitOffsetPage, parseLimitOffset } from './pagination.js';
import { json } from '../http/respond.js';
import type { Params, Router } from '../http/router.js';
import { basicUserOrNull } from './serialize-user.js';
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
      () => validateCohortWrite(req.body, this.rules(req.project.id, 'create', undefined)),
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
      (current) => (write = validateCohortWrite(req.body, this.rules(req.project.id, http.method === 'PATCH' ? 'patch' : 'put', current))),
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

  private rules(projectId: number, mode: CohortWriteMode, current: CohortRecord | undefined): CohortWriteContext {
    return {
      mode,
      current,
      cohort: (id) => this.deps.cohorts.get(projectId, id),
      flags: () => this.deps.flags.list(projectId),
    };
  }

  private cohortOf(req: ProjectApiRequest, params: Params): CohortRecord {
    const raw = params.id ?? '';
    const cohort = /^\d{1,15}$/.test(raw) ? this.deps.cohorts.get(req.project.id, Number(raw)) : undefined;
    if (!cohort) throw new HedgerowError('HR_NOT_FOUND');
    return cohort;
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
      created_at: apiDateTime(c.created_at),
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

/**
 * The API reads that go through a whole table (a persons or groups list page, a person by UUID,
 * the persons a static cohort's upload names: none of them has an index) run in a worker, in slices of `SLICE_MS` with the worker's other
 * tasks between them (src/store/scan-in-slices.ts), never on the main thread.
 */
import type { CursorPage } from '../http/cursor-pagination.js';
import type { GroupsPageQuery } from '../persons/scan-groups.js';
import type { PersonsNamed, PersonsNamedQuery, PersonsPage, PersonsPageQuery } from '../persons/scan-persons.js';
import type { GroupRecord } from '../store/group-store.js';
import type { PersonRecord } from '../store/person-store.js';
import type { PersonByUuidResult } from './tasks.js';
import type { WorkerPool } from './worker-pool.js';

const SLICE_MS = 10;

export class ScanPool {
  constructor(private readonly pool: WorkerPool) {}

  personsPage(query: PersonsPageQuery): Promise<PersonsPage> {
    return this.pool.run<PersonsPage>({ kind: 'persons-page', query, sliceMs: SLICE_MS });
  }

  async personByUuid(projectId: number, uuid: string): Promise<PersonRecord | undefined> {
    const { person } = await this.pool.run<PersonByUuidResult>({ kind: 'person-by-uuid', projectId, uuid, sliceMs: SLICE_MS });
    return person;
  }

  personsNamed(query: PersonsNamedQuery): Promise<PersonsNamed> {
    return this.pool.run<PersonsNamed>({ kind: 'persons-named', query, sliceMs: SLICE_MS });
  }

  groupsPage(query: GroupsPageQuery): Promise<CursorPage<GroupRecord>> {
    return this.pool.run<CursorPage<GroupRecord>>({ kind: 'groups-page', query, sliceMs: SLICE_MS });
  }
}

/**
 * The persons API's side of the worker pool: the questions that read every person of a project
 * run in a worker, in slices of `SLICE_MS` with the worker's other tasks between them
 * (src/persons/scan-persons.ts).
 */
import type { PersonsPage, PersonsPageQuery } from '../persons/scan-persons.js';
import type { PersonRecord } from '../store/person-store.js';
import type { PersonByUuidResult } from './tasks.js';
import type { WorkerPool } from './worker-pool.js';

const SLICE_MS = 10;

export class PersonsPool {
  constructor(private readonly pool: WorkerPool) {}

  page(query: PersonsPageQuery): Promise<PersonsPage> {
    return this.pool.run<PersonsPage>({ kind: 'persons-page', query, sliceMs: SLICE_MS });
  }

  async byUuid(projectId: number, uuid: string): Promise<PersonRecord | undefined> {
    const { person } = await this.pool.run<PersonByUuidResult>({ kind: 'person-by-uuid', projectId, uuid, sliceMs: SLICE_MS });
    return person;
  }
}

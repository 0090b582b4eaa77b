/**
 * The API reads that go through a whole table, none of which has an index: an events page (a
 * filter that matches little reads the whole log), an event or a person by UUID, a persons or
 * groups list page, the persons a static cohort's upload names. Each runs as one task in a
 * worker, in slices of `SLICE_MS` with the worker's other tasks (capture, flags) between them
 * (src/store/scan-in-slices.ts), never on the main thread, which acknowledges every capture: on
 * it, 1.65 million events took 3.4 s to filter, 100,000 persons 0.3–0.5 s to sort.
 *
 * An events page that has not filled after `EVENTS_PAGE_BUDGET_MS` answers with the events found
 * so far and a cursor from where the read stopped, so a request never waits long and following
 * `next` still reaches every event. A lookup by UUID has no `next` to give: it reads on until it
 * finds the event or the log ends.
 */
import type { CursorPage } from '../compat/drf-cursor-pagination.js';
import type { EventsPageQuery } from '../persons/person-events-query.js';
import type { GroupsPageQuery } from '../persons/scan-groups.js';
import type { PersonsNamed, PersonsNamedQuery, PersonsPage, PersonsPageQuery } from '../persons/scan-persons.js';
import type { StoredEvent } from '../ingest/types.js';
import type { GroupRecord } from '../store/group-store.js';
import type { EventsApiPage, ListEventsQuery } from '../store/list-events.js';
import type { PersonRecord } from '../store/person-store.js';
import type { PersonByUuidResult } from './tasks.js';
import type { WorkerPool } from './worker-pool.js';

const SLICE_MS = 10;
const EVENTS_PAGE_BUDGET_MS = 1000;

export class ScanPool {
  constructor(private readonly pool: WorkerPool) {}

  eventsPage(query: EventsPageQuery): Promise<EventsApiPage> {
    return this.pool.run<EventsApiPage>({ kind: 'events-page', query, sliceMs: SLICE_MS, budgetMs: EVENTS_PAGE_BUDGET_MS });
  }

  async eventByUuid(projectId: number, uuid: string): Promise<StoredEvent | undefined> {
    const query: ListEventsQuery = { projectId, uuid, limit: 1 };
    const { events } = await this.pool.run<EventsApiPage>({ kind: 'events-page', query, sliceMs: SLICE_MS, budgetMs: Infinity });
    return events[0];
  }

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

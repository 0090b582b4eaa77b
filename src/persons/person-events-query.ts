/**
 * The events API's `person_id` filter: the events of every distinct id of one person, as PostHog
 * reads it (`get_pk_or_uuid`, then `distinct_id IN` the person's distinct ids; an unknown person
 * matches no event). Resolved in the worker that reads the page, since a UUID is found by a scan.
 */
import type { ListEventsQuery } from '../store/list-events.js';
import type { PersonReader } from '../store/person-store.js';
import type { ScanPacing } from '../store/scan-in-slices.js';
import type { PersonKey } from './person-ref.js';
import { scanPersonByUuid } from './scan-persons.js';

export interface EventsPageQuery extends ListEventsQuery {
  person?: PersonKey;
}

/** The query with `person` turned into its distinct ids (kept only where `distinctIds` also has them). */
export async function resolvePersonFilter(persons: PersonReader, q: EventsPageQuery, pacing: ScanPacing): Promise<ListEventsQuery> {
  const { person, ...query } = q;
  if (person === undefined) return query;
  const found = 'id' in person ? persons.get(q.projectId, person.id) : await scanPersonByUuid(persons, q.projectId, person.uuid, pacing);
  const ids = found === undefined ? [] : persons.distinctIdsOf(q.projectId, found.id);
  const also = query.distinctIds;
  return { ...query, distinctIds: also === undefined ? ids : ids.filter((id) => also.includes(id)) };
}

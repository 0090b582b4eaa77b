/**
 * The persons API's questions that read every person of a project (there is no index by
 * `created_at`, email or UUID): a page of the list, and the person with a UUID. They run in the
 * worker pool, never on the main thread (100,000 persons took 0.3–0.5 s there, during which no
 * capture was acknowledged), and read in slices of `sliceMs`, awaiting `pause()` between slices so
 * that the worker's capture and flag tasks run in between.
 *
 * A page keeps only the `offset + limit` newest matches while it reads, not every person.
 */
import type { PersonReader, PersonRecord } from '../store/person-store.js';
import type { ScanPacing } from '../store/scan-in-slices.js';
import { newestPersonFirst, personMatches, type PersonFilter } from './person-list-query.js';

export interface PersonsPageQuery {
  projectId: number;
  filter: PersonFilter;
  offset: number;
  limit: number;
}

export interface PersonsPage {
  /** At most `limit` persons, newest first, from `offset` on. */
  persons: PersonRecord[];
  /** How many persons match (`count` with `?include_total`). */
  total: number;
}

export async function scanPersonsPage(persons: PersonReader, q: PersonsPageQuery, pacing: ScanPacing): Promise<PersonsPage> {
  const keep = q.offset + q.limit;
  let newest: PersonRecord[] = [];
  let total = 0;
  const prune = () => {
    newest.sort(newestPersonFirst);
    newest = newest.slice(0, keep);
  };
  await persons.scan(q.projectId, pacing, (p) => {
    if (!personMatches(p, q.filter)) return false;
    total++;
    newest.push(p);
    if (newest.length >= 2 * keep + 256) prune();
    return false;
  });
  prune();
  return { persons: newest.slice(q.offset), total };
}

/** The person whose UUID (any case) is `uuid`, given in lower-case canonical form. */
export async function scanPersonByUuid(
  persons: PersonReader,
  projectId: number,
  uuid: string,
  pacing: ScanPacing,
): Promise<PersonRecord | undefined> {
  let found: PersonRecord | undefined;
  await persons.scan(projectId, pacing, (p) => {
    if (p.uuid.toLowerCase() !== uuid) return false;
    found = p;
    return true;
  });
  return found;
}

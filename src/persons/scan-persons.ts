/**
 * The persons API's questions that read every person of a project (there is no index by
 * `created_at`, email or UUID): a page of the list, the person with a UUID, and the distinct ids
 * of the persons a static cohort's upload names. They run in the worker pool, never on the main
 * thread (100,000 persons took 0.3–0.5 s there, during which no capture was acknowledged), and
 * read in slices of `sliceMs`, awaiting `pause()` between slices so that the worker's capture and
 * flag tasks run in between.
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

export interface PersonsNamedQuery {
  projectId: number;
  /** `uuid`: values are person UUIDs in lower case; `email`: values equal the `email` property. */
  by: 'uuid' | 'email';
  values: readonly string[];
}

export interface PersonsNamed {
  /** How many stored persons the values name. */
  persons: number;
  /** Every distinct id of those persons. */
  distinctIds: string[];
}

/** The persons a static cohort's members name by UUID or email, with all their distinct ids. */
export async function scanPersonsNamed(persons: PersonReader, q: PersonsNamedQuery, pacing: ScanPacing): Promise<PersonsNamed> {
  const wanted = new Set(q.values);
  const named: number[] = [];
  await persons.scan(q.projectId, pacing, (p) => {
    const value = q.by === 'uuid' ? p.uuid.toLowerCase() : p.properties.email;
    if (typeof value === 'string' && wanted.has(value)) named.push(p.id);
    return false;
  });
  return { persons: named.length, distinctIds: named.flatMap((id) => persons.distinctIdsOf(q.projectId, id)) };
}

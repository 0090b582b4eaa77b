/**
 * Persons and their distinct ids (`persons`: `[project, person id]` → record; `distinct_ids`:
 * `[project, distinct id]` → person id). The person processor writes them; flag evaluation and
 * the persons API read them.
 */
import type { StoreDatabases } from './open-store.js';

export interface PersonRecord {
  id: number;
  uuid: string;
  properties: Record<string, unknown>;
  /** ISO 8601. */
  created_at: string;
  is_identified: boolean;
  version: number;
}

export class PersonReader {
  constructor(protected readonly dbs: StoreDatabases) {}

  personIdOf(projectId: number, distinctId: string): number | undefined {
    return this.dbs.distinctIds.get([projectId, distinctId]) as number | undefined;
  }

  get(projectId: number, personId: number): PersonRecord | undefined {
    return this.dbs.persons.get([projectId, personId]) as PersonRecord | undefined;
  }

  byDistinctId(projectId: number, distinctId: string): PersonRecord | undefined {
    const id = this.personIdOf(projectId, distinctId);
    return id === undefined ? undefined : this.get(projectId, id);
  }
}

/**
 * Persons and their distinct ids (`persons`: `[project, person id]` → record; `distinct_ids`:
 * `[project, distinct id]` → person id, and its reverse `person_distinct_ids`:
 * `[project, person id, distinct id]` → null). The person processor writes them, all three in
 * the same transactions; flag evaluation and the persons API read them.
 */
import { MAX_MERGE_DISTINCT_ID_CODE_POINTS } from '../limits.js';
import { exceedsCodePoints } from '../util/code-points.js';
import type { StoreDatabases } from './open-store.js';
import { scanInSlices, type ScanPacing } from './scan-in-slices.js';

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
    // No stored distinct id is longer, and a longer one may not fit in an LMDB key (1,978 bytes):
    // an API or flags request may name one, and gets "no such person" as from PostHog.
    if (exceedsCodePoints(distinctId, MAX_MERGE_DISTINCT_ID_CODE_POINTS)) return undefined;
    return this.dbs.distinctIds.get([projectId, distinctId]) as number | undefined;
  }

  get(projectId: number, personId: number): PersonRecord | undefined {
    return this.dbs.persons.get([projectId, personId]) as PersonRecord | undefined;
  }

  /** The person's distinct ids, in key order. */
  distinctIdsOf(projectId: number, personId: number): string[] {
    const out: string[] = [];
    for (const key of this.dbs.personDistinctIds.getKeys({ start: [projectId, personId, ''], end: [projectId, personId + 1, ''] })) {
      out.push((key as [number, number, string])[2]);
    }
    return out;
  }

  byDistinctId(projectId: number, distinctId: string): PersonRecord | undefined {
    const id = this.personIdOf(projectId, distinctId);
    return id === undefined ? undefined : this.get(projectId, id);
  }

  /** The project's persons in id order, read in slices (scan-in-slices.ts) until `visit` returns true. */
  scan(projectId: number, pacing: ScanPacing, visit: (person: PersonRecord) => boolean): Promise<void> {
    return scanInSlices(this.dbs.persons, { start: [projectId], end: [projectId + 1] }, pacing, (v) => visit(v as PersonRecord));
  }
}

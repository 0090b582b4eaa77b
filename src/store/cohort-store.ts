/**
 * Cohorts in the `flags` database (`['cohort', project, id]`), next to the flags whose conditions
 * reference them: every change moves the project's flag version in the same transaction, so
 * evaluation snapshots rebuild. Static cohorts keep their members by distinct id
 * (`['cohort_member', project, cohort id, distinct id]`), as the flags service reads membership.
 */
import { HedgerowError } from '../errors.js';
import { isoMicros } from '../compat/iso-micros.js';
import { bumpFlagsVersion } from './flag-store.js';
import { nextId, type StoreDatabases } from './open-store.js';

export interface CohortRecord {
  id: number;
  project_id: number;
  name: string;
  description: string;
  /** `{properties: {type: 'AND'|'OR', values: [...]}}`; `{}` for a static cohort. */
  filters: Record<string, unknown>;
  is_static: boolean;
  deleted: boolean;
  created_by: number | null;
  created_at: string;
  updated_at: string;
  version: number;
}

export type CohortWrite = Partial<Pick<CohortRecord, 'name' | 'description' | 'filters' | 'is_static' | 'deleted'>>;

export class CohortStore {
  constructor(private readonly dbs: StoreDatabases) {}

  get(projectId: number, id: number): CohortRecord | undefined {
    return this.dbs.flags.get(['cohort', projectId, id]) as CohortRecord | undefined;
  }

  /** Every cohort of the project, deleted ones included, in id order. */
  list(projectId: number): CohortRecord[] {
    const out: CohortRecord[] = [];
    for (const { value } of this.dbs.flags.getRange({
      start: ['cohort', projectId, 0],
      end: ['cohort', projectId, Number.MAX_SAFE_INTEGER],
    })) {
      out.push(value as CohortRecord);
    }
    return out;
  }

  /**
   * Creates a cohort; `prepare` validates inside the transaction, and `members` (for a static
   * cohort) names distinct ids to add in the same transaction.
   */
  create(
    projectId: number,
    createdBy: number | null,
    prepare: () => CohortWrite,
    members?: (cohort: CohortRecord) => readonly string[],
  ): CohortRecord {
    return this.dbs.root.transactionSync(() => {
      const write = prepare();
      const now = isoMicros();
      const cohort: CohortRecord = {
        id: nextId(this.dbs, 'cohort'),
        project_id: projectId,
        name: write.name ?? '',
        description: write.description ?? '',
        filters: write.filters ?? {},
        is_static: write.is_static ?? false,
        deleted: write.deleted ?? false,
        created_by: createdBy,
        created_at: now,
        updated_at: now,
        version: 1,
      };
      this.dbs.flags.putSync(['cohort', projectId, cohort.id], cohort);
      if (members) this.putMembers(projectId, cohort.id, members(cohort));
      bumpFlagsVersion(this.dbs, projectId);
      return cohort;
    });
  }

  /**
   * Updates a cohort; `prepare` gets the current record inside the transaction, and `members` the
   * updated one, naming distinct ids to add in the same transaction. 404 when absent.
   */
  update(
    projectId: number,
    id: number,
    prepare: (current: CohortRecord) => CohortWrite,
    members?: (cohort: CohortRecord) => readonly string[],
  ): CohortRecord {
    return this.dbs.root.transactionSync(() => {
      const current = this.get(projectId, id);
      if (!current) throw new HedgerowError('HR_NOT_FOUND');
      const write = prepare(current);
      const next: CohortRecord = { ...current, updated_at: isoMicros(), version: current.version + 1 };
      for (const [k, v] of Object.entries(write)) if (v !== undefined) (next as unknown as Record<string, unknown>)[k] = v;
      this.dbs.flags.putSync(['cohort', projectId, id], next);
      if (members) this.putMembers(projectId, id, members(next));
      bumpFlagsVersion(this.dbs, projectId);
      return next;
    });
  }

  /** Adds distinct ids to a static cohort; returns how many were new. */
  addStaticMembers(projectId: number, id: number, distinctIds: readonly string[]): number {
    return this.dbs.root.transactionSync(() => {
      const added = this.putMembers(projectId, id, distinctIds);
      if (added > 0) bumpFlagsVersion(this.dbs, projectId);
      return added;
    });
  }

  isStaticMember(projectId: number, id: number, distinctId: string): boolean {
    return this.dbs.flags.doesExist(['cohort_member', projectId, id, distinctId]);
  }

  /** Inside a write transaction: stores the members not stored yet and returns how many. */
  private putMembers(projectId: number, id: number, distinctIds: readonly string[]): number {
    let added = 0;
    for (const distinctId of new Set(distinctIds)) {
      const key = ['cohort_member', projectId, id, distinctId];
      if (this.dbs.flags.doesExist(key)) continue;
      this.dbs.flags.putSync(key, null);
      added++;
    }
    return added;
  }

  /** The distinct ids of a static cohort, in key order. */
  *staticMembers(projectId: number, id: number): Generator<string> {
    for (const key of this.dbs.flags.getKeys({
      start: ['cohort_member', projectId, id, ''],
      end: ['cohort_member', projectId, id + 1, ''],
    })) {
      yield (key as [string, number, number, string])[3];
    }
  }

  /**
   * A static cohort's `count` as PostHog keeps it: its persons (one cohort-people row each), not
   * the distinct ids kept here, and none for an id no person has yet.
   */
  staticMemberPersonCount(projectId: number, id: number): number {
    const persons = new Set<number>();
    for (const distinctId of this.staticMembers(projectId, id)) {
      const personId = this.dbs.distinctIds.get([projectId, distinctId]) as number | undefined;
      if (personId !== undefined) persons.add(personId);
    }
    return persons.size;
  }
}

/**
 * Blast radius (docs/compatibility.md#flag-views) over stored persons or groups: how many match a
 * flag condition's property filters, out of how many. Lives in the person processor's thread, the
 * single writer of persons and groups, and keeps one in-memory table per project:
 * - person tables are built in slices between batches from start-up (`warmUp`), in person id
 *   order, so a large project's first question does not pay for the whole scan; a question
 *   about a table not finished yet finishes it first (group tables are built on first question);
 * - every committed batch's changes are applied (`apply`): to rows already scanned, while rows
 *   not scanned yet will be read with their latest state when the scan reaches them.
 * Filters are compiled by the flag engine and counted column-wise (count-matching.ts), so the
 * answers agree with `/flags`.
 */
import { cohortShells, compileCohorts } from '../flags/engine/cohorts-compile.js';
import { EvaluationFailure } from '../flags/engine/evaluate-filters.js';
import { compileFilter, type FilterEnv } from '../flags/engine/snapshot-filters.js';
import type { CompiledFilter } from '../flags/engine/snapshot-types.js';
import { CohortStore } from '../store/cohort-store.js';
import { GroupReader, type GroupRecord } from '../store/group-store.js';
import type { StoreDatabases } from '../store/open-store.js';
import type { PersonRecord } from '../store/person-store.js';
import type { BatchChanges } from '../store/person-writer.js';
import { countMatching, UnsupportedFilterError } from './count-matching.js';
import { PropertyTable } from './property-table.js';

export interface BlastRadiusQuery {
  projectId: number;
  /** null: persons; else the groups of that type. */
  groupTypeIndex: number | null;
  /** The condition's property filters (already checked against the group type). */
  properties: readonly unknown[];
  /** Relative dates (`-30d`) resolve against this. */
  nowMs: number;
}

export type BlastRadiusAnswer = { ok: true; users_affected: number; total_users: number } | { ok: false; unsupported: string };

/** A project's person table and how far its scan got (person ids ≤ `scannedThrough` are in). */
interface PersonTable {
  readonly table: PropertyTable;
  scannedThrough: number;
  complete: boolean;
}

export class BlastRadiusIndex {
  private readonly persons = new Map<number, PersonTable>();
  /** Projects are found in id order; every project ≤ this one has a person table. */
  private discoveredThrough = 0;
  private discoveryDone = false;
  private readonly groups = new Map<string, PropertyTable>();
  private readonly cohorts: CohortStore;
  private readonly groupReader: GroupReader;

  constructor(private readonly dbs: StoreDatabases) {
    this.cohorts = new CohortStore(dbs);
    this.groupReader = new GroupReader(dbs);
  }

  /** Applies a committed batch to the tables already built. */
  apply(changes: BatchChanges): void {
    for (const c of changes.persons) {
      const entry = this.persons.get(c.projectId);
      // Rows the scan has not reached are read, with this change, when it gets there.
      if (entry === undefined || (!entry.complete && c.id > entry.scannedThrough)) continue;
      if (c.record === null) entry.table.remove(c.id);
      else entry.table.upsert(c.id, c.record.properties);
    }
    for (const g of changes.groups) {
      this.groups.get(groupTableKey(g.projectId, g.record.group_type_index))?.upsert(g.record.group_key, g.record.group_properties);
    }
  }

  count(q: BlastRadiusQuery): BlastRadiusAnswer {
    const isGroups = q.groupTypeIndex !== null;
    const table = isGroups ? this.groupTable(q.projectId, q.groupTypeIndex as number) : this.personTable(q.projectId);
    const filters = this.compile(q);
    let affected: number;
    try {
      affected = countMatching(table, filters, {
        mode: isGroups ? 'group' : 'person',
        now: new Date(q.nowMs),
        staticMembers: (cohortId) => this.staticMemberPersons(q.projectId, cohortId),
      });
    } catch (err) {
      if (err instanceof UnsupportedFilterError) return { ok: false, unsupported: err.filterType };
      // A cohort the engine cannot evaluate fails the flag for everyone: nobody is affected.
      if (err instanceof EvaluationFailure) affected = 0;
      else throw err;
    }
    return { ok: true, users_affected: affected, total_users: table.size };
  }

  private compile(q: BlastRadiusQuery): CompiledFilter[] {
    const definitions = this.cohorts.list(q.projectId);
    const cohortsById = cohortShells(definitions);
    const mapping = this.groupReader.typeMapping(q.projectId);
    const env: FilterEnv = {
      // Flag filters are not counted (count-matching refuses them).
      flagSlotById: () => -1,
      cohortById: (id) => cohortsById.get(id) ?? null,
      groupTypeName: (index) => (Object.hasOwn(mapping, String(index)) ? mapping[String(index)] : undefined),
      matcherOptions: {},
    };
    compileCohorts(definitions, cohortsById, env);
    return q.properties.map((p) => compileFilter(p, q.groupTypeIndex, false, env));
  }

  /**
   * Scans up to `budget` persons into the tables being built (finding projects first); returns
   * whether work remains. Call between batches.
   */
  warmUp(budget: number): boolean {
    for (const [projectId, entry] of this.persons) {
      if (entry.complete) continue;
      this.scan(projectId, entry, budget);
      return true;
    }
    while (!this.discoveryDone) {
      const projectId = this.nextProjectWithPersons();
      if (projectId === undefined) this.discoveryDone = true;
      else if (!this.persons.has(projectId)) {
        this.entryOf(projectId);
        return true;
      }
    }
    return false;
  }

  private personTable(projectId: number): PropertyTable {
    const entry = this.entryOf(projectId);
    if (!entry.complete) this.scan(projectId, entry, Infinity);
    return entry.table;
  }

  private entryOf(projectId: number): PersonTable {
    let entry = this.persons.get(projectId);
    if (entry === undefined) {
      entry = { table: new PropertyTable(), scannedThrough: 0, complete: false };
      this.persons.set(projectId, entry);
    }
    return entry;
  }

  /** Reads the next `budget` persons of the project after `scannedThrough`. */
  private scan(projectId: number, entry: PersonTable, budget: number): void {
    // The processor commits in this thread; read from a snapshot that has every commit so far.
    this.dbs.root.resetReadTxn();
    let read = 0;
    for (const { value } of this.dbs.persons.getRange({
      start: [projectId, entry.scannedThrough + 1],
      end: [projectId + 1],
      ...(Number.isFinite(budget) ? { limit: budget } : {}),
    })) {
      const person = value as PersonRecord;
      entry.table.upsert(person.id, person.properties);
      entry.scannedThrough = person.id;
      read++;
    }
    if (read < budget) entry.complete = true;
  }

  /** The next project (by id) holding persons that has no table yet. */
  private nextProjectWithPersons(): number | undefined {
    for (const key of this.dbs.persons.getKeys({ start: [this.discoveredThrough + 1], limit: 1 })) {
      const projectId = (key as [number, number])[0];
      this.discoveredThrough = projectId;
      return projectId;
    }
    return undefined;
  }

  private groupTable(projectId: number, index: number): PropertyTable {
    const key = groupTableKey(projectId, index);
    let table = this.groups.get(key);
    if (table === undefined) {
      table = new PropertyTable();
      for (const { value } of this.dbs.groups.getRange({ start: [projectId, index], end: [projectId, index + 1] })) {
        const group = value as GroupRecord;
        table.upsert(group.group_key, group.group_properties);
      }
      this.groups.set(key, table);
    }
    return table;
  }

  /** The persons of a static cohort's distinct ids (a person is in it when any of its ids is). */
  private *staticMemberPersons(projectId: number, cohortId: number): Generator<number> {
    for (const distinctId of this.cohorts.staticMembers(projectId, cohortId)) {
      const personId = this.dbs.distinctIds.get([projectId, distinctId]) as number | undefined;
      if (personId !== undefined) yield personId;
    }
  }
}

function groupTableKey(projectId: number, index: number): string {
  return `${projectId}:${index}`;
}

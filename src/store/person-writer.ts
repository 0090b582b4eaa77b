/**
 * The person processor's writes, inside one LMDB write transaction per batch of events: persons,
 * their distinct ids (both directions), hash key overrides moved on merges, groups and group
 * types. Everything is written at once (reads in the transaction see those writes); only
 * distinct-id owners, group types and new person ids are remembered for the batch, and `flush()`
 * writes the person id counters.
 */
import { v5 as uuidv5 } from 'uuid';
import { bumpFlagsVersion } from './flag-store.js';
import type { GroupRecord } from './group-store.js';
import { nextId, type StoreDatabases } from './open-store.js';
import type { PersonRecord } from './person-store.js';

/** PostHog's namespace for person UUIDs: uuidv5 of `"<team id>:<distinct id>"`. */
const PERSON_UUID_NAMESPACE = '932979b4-65c3-4424-8467-0b66ec27bc22';

export function personUuid(projectId: number, distinctId: string): string {
  return uuidv5(`${projectId}:${distinctId}`, PERSON_UUID_NAMESPACE);
}

/** What a committed batch changed, for in-memory indexes kept beside the store (blast radius). */
export interface BatchChanges {
  /** Persons written (the record) or deleted by a merge (null). */
  persons: { projectId: number; id: number; record: PersonRecord | null }[];
  groups: { projectId: number; record: GroupRecord }[];
}

export class PersonBatch {
  /** Filled as persons and groups are written; read once the transaction has committed. */
  readonly changes: BatchChanges = { persons: [], groups: [] };
  /** `project:distinct id` → person id (null: none), as of this batch's writes. */
  private readonly owners = new Map<string, number | null>();
  /** Next person id per project, written back at flush. */
  private readonly nextPersonId = new Map<number, number>();
  /** Group type name → index per project, read once per batch. */
  private readonly groupTypeMaps = new Map<number, Map<string, number>>();

  /** Call only inside a write transaction (`transactionSync`). */
  constructor(private readonly dbs: StoreDatabases) {}

  personIdOf(projectId: number, distinctId: string): number | undefined {
    const k = `${projectId}:${distinctId}`;
    let id = this.owners.get(k);
    if (id === undefined) {
      id = (this.dbs.distinctIds.get([projectId, distinctId]) as number | undefined) ?? null;
      this.owners.set(k, id);
    }
    return id ?? undefined;
  }

  /** Reads in the transaction see its earlier writes. */
  person(projectId: number, personId: number): PersonRecord | undefined {
    return this.dbs.persons.get([projectId, personId]) as PersonRecord | undefined;
  }

  /**
   * Writes a changed person at once. Persons are not kept in memory for the batch: few events of
   * a batch share a person, and every record kept survived the young-generation collections of
   * the whole batch (measured with `npm run bench:processor`).
   */
  save(projectId: number, person: PersonRecord): void {
    this.dbs.persons.putSync([projectId, person.id], person);
    this.changes.persons.push({ projectId, id: person.id, record: person });
  }

  /** A new person owning `distinctId`. */
  create(
    projectId: number,
    distinctId: string,
    fields: Pick<PersonRecord, 'properties' | 'created_at' | 'is_identified'>,
  ): PersonRecord {
    const person: PersonRecord = {
      id: this.allocatePersonId(projectId),
      uuid: personUuid(projectId, distinctId),
      properties: fields.properties,
      created_at: fields.created_at,
      is_identified: fields.is_identified,
      version: 0,
    };
    this.save(projectId, person);
    this.addDistinctId(projectId, distinctId, person.id);
    return person;
  }

  addDistinctId(projectId: number, distinctId: string, personId: number): void {
    this.owners.set(`${projectId}:${distinctId}`, personId);
    this.dbs.distinctIds.putSync([projectId, distinctId], personId);
    this.dbs.personDistinctIds.putSync([projectId, personId, distinctId], null);
  }

  /**
   * Merge bookkeeping: every distinct id and hash key override of `from` goes to `into` (an
   * override `into` already has for the same flag is kept), and `from` is deleted.
   */
  absorb(projectId: number, from: number, into: number): void {
    for (const key of this.dbs.personDistinctIds.getKeys({ start: [projectId, from, ''], end: [projectId, from + 1, ''] })) {
      const distinctId = (key as [number, number, string])[2];
      this.dbs.personDistinctIds.removeSync(key);
      this.addDistinctId(projectId, distinctId, into);
    }
    for (const { key, value } of this.dbs.hashKeyOverrides.getRange({ start: [projectId, from, ''], end: [projectId, from + 1, ''] })) {
      const flagKey = (key as [number, number, string])[2];
      this.dbs.hashKeyOverrides.removeSync(key);
      const target = [projectId, into, flagKey];
      if (this.dbs.hashKeyOverrides.get(target) === undefined) this.dbs.hashKeyOverrides.putSync(target, value);
    }
    this.dbs.persons.removeSync([projectId, from]);
    this.changes.persons.push({ projectId, id: from, record: null });
  }

  /** Name → index of the project's group types (the batch's own view: do not modify it). */
  groupTypes(projectId: number): ReadonlyMap<string, number> {
    let types = this.groupTypeMaps.get(projectId);
    if (types === undefined) {
      types = new Map();
      for (const { key, value } of this.dbs.groupTypes.getRange({ start: [projectId, ''], end: [projectId, '\uffff'] })) {
        types.set((key as [number, string])[1], value as number);
      }
      this.groupTypeMaps.set(projectId, types);
    }
    return types;
  }

  /** Registers a group type; flag snapshots and definitions carry the mapping, so the flag version moves. */
  addGroupType(projectId: number, name: string, index: number): void {
    (this.groupTypes(projectId) as Map<string, number>).set(name, index);
    this.dbs.groupTypes.putSync([projectId, name], index);
    bumpFlagsVersion(this.dbs, projectId);
  }

  group(projectId: number, index: number, key: string): GroupRecord | undefined {
    return this.dbs.groups.get([projectId, index, key]) as GroupRecord | undefined;
  }

  saveGroup(projectId: number, group: GroupRecord): void {
    this.dbs.groups.putSync([projectId, group.group_type_index, group.group_key], group);
    this.changes.groups.push({ projectId, record: group });
  }

  private allocatePersonId(projectId: number): number {
    let next = this.nextPersonId.get(projectId);
    if (next === undefined) next = nextId(this.dbs, personCounter(projectId));
    this.nextPersonId.set(projectId, next + 1);
    return next;
  }

  /** Writes the person id counters. */
  flush(): void {
    for (const [projectId, next] of this.nextPersonId) this.dbs.meta.putSync(`counter:${personCounter(projectId)}`, next - 1);
    this.nextPersonId.clear();
  }
}

function personCounter(projectId: number): string {
  return `person:${projectId}`;
}

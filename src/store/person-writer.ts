/**
 * The person processor's writes, inside one LMDB write transaction per batch of events: persons,
 * their distinct ids (both directions), hash key overrides moved on merges, groups and group
 * types. Persons touched by several events of a batch are kept in memory and written once, at
 * `flush()`; everything else is written at once (reads in the transaction see those writes).
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
  /** Filled by `flush()` (persons) and `saveGroup()`; read once the transaction has committed. */
  readonly changes: BatchChanges = { persons: [], groups: [] };
  private readonly persons = new Map<string, PersonRecord | null>();
  private readonly dirty = new Set<string>();
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

  person(projectId: number, personId: number): PersonRecord | undefined {
    const k = cacheKey(projectId, personId);
    let p = this.persons.get(k);
    if (p === undefined) {
      p = (this.dbs.persons.get([projectId, personId]) as PersonRecord | undefined) ?? null;
      this.persons.set(k, p);
    }
    return p ?? undefined;
  }

  /** Stores a changed person at flush. */
  save(projectId: number, person: PersonRecord): void {
    const k = cacheKey(projectId, person.id);
    this.persons.set(k, person);
    this.dirty.add(k);
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
    const k = cacheKey(projectId, from);
    this.persons.set(k, null);
    this.dirty.delete(k);
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

  /** Writes the persons changed in this batch and the person id counters. */
  flush(): void {
    for (const [projectId, next] of this.nextPersonId) this.dbs.meta.putSync(`counter:${personCounter(projectId)}`, next - 1);
    this.nextPersonId.clear();
    for (const k of this.dirty) {
      const p = this.persons.get(k);
      if (!p) continue;
      const projectId = Number(k.slice(0, k.indexOf(':')));
      this.dbs.persons.putSync([projectId, p.id], p);
      this.changes.persons.push({ projectId, id: p.id, record: p });
    }
    this.dirty.clear();
  }
}

function personCounter(projectId: number): string {
  return `person:${projectId}`;
}

function cacheKey(projectId: number, personId: number): string {
  return `${projectId}:${personId}`;
}

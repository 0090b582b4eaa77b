/**
 * The person processor's writes for one batch of events: persons, their distinct ids (both
 * directions), hash key overrides moved on merges, groups and group types. The batch is computed
 * outside any write transaction: writes gather in a `PendingWrites` and are applied in one short
 * transaction with the processor's cursor, and what the batch wrote is remembered here for its
 * own later reads (owners, persons, groups, group types, distinct ids). The processor is the only
 * writer of these records; the two it shares (hash key overrides, which /flags workers write,
 * and the flag version) are read and written inside the transaction.
 */
import { personUuid } from '../persons/person-uuid.js';
import { bumpFlagsVersion } from './flag-store.js';
import type { GroupRecord } from './group-store.js';
import type { StoreDatabases } from './open-store.js';
import type { PendingWrites } from './pending-writes.js';
import type { PersonRecord } from './person-store.js';

/** What a committed batch changed, for in-memory indexes kept beside the store (blast radius). */
export interface BatchChanges {
  /** Persons written (the record) or deleted by a merge (null). */
  persons: { projectId: number; id: number; record: PersonRecord | null }[];
  groups: { projectId: number; record: GroupRecord }[];
}

/**
 * One project's share of a batch. Its maps are keyed by the distinct id, the person id or the
 * group's `index:key` alone, so that the hot paths (an event of a new person touches every map)
 * build no `project:…` key text: such a key is a new string to flatten and hash at every lookup.
 */
interface ProjectBatch {
  /** Distinct id → person id (null: none), as of this batch's writes. */
  owners: Map<string, number | null>;
  /**
   * The distinct ids this batch gave an owner, written at `flush()` with their last owner: a
   * batch's merges can move the same ids many times (a chain of merges of a person with
   * thousands of ids), and only the last owner of each id is to be written.
   */
  ownerWrites: Set<string>;
  /** Person id → distinct ids given to that person in this batch (range reads miss them); their reverse entries are written at `flush()`. */
  addedIds: Map<number, string[]>;
  /** Reverse entries of committed ids to remove: `[person id, distinct id]` of persons absorbed by a merge. */
  removedIds: Array<[number, string]>;
  /**
   * Person id → the person as this batch last wrote or read it (null: deleted by a merge).
   * Reads are kept too: a batch's events mostly come from fewer persons than events, and parsing
   * a stored person for each of them was a fifth of the processor's time on plain events. A
   * record here belongs to this batch alone until `flush()` hands it to the writes and the
   * changes: its properties may be changed in place (apply-event.ts), so that a person with many
   * properties is not copied by every event that changes one.
   */
  persons: Map<number, PersonRecord | null>;
  /** Ids of the persons saved since the last flush. */
  dirty: Set<number>;
  /** `index:key` → the group as this batch last wrote or read it. */
  groups: Map<string, GroupRecord>;
  /** `index:key` of the groups saved since the last flush. */
  dirtyGroups: Set<string>;
  /** Next person id, written back at flush (undefined: none allocated yet). */
  nextPersonId: number | undefined;
  /** Group type name → index, read once per batch. */
  groupTypes: Map<string, number> | undefined;
}

function projectBatch(): ProjectBatch {
  return {
    owners: new Map(),
    ownerWrites: new Set(),
    addedIds: new Map(),
    removedIds: [],
    persons: new Map(),
    dirty: new Set(),
    groups: new Map(),
    dirtyGroups: new Set(),
    nextPersonId: undefined,
    groupTypes: undefined,
  };
}

export class PersonBatch {
  /** Filled as groups are saved and persons flushed or deleted; read once the transaction has committed. */
  readonly changes: BatchChanges = { persons: [], groups: [] };
  /** Per project; a batch's events mostly come from one. */
  private readonly projects = new Map<number, ProjectBatch>();
  /** Group types this batch registers, checked again inside its commit (`groupTypesStillFree`). */
  private readonly addedGroupTypes: Array<{ projectId: number; name: string; index: number }> = [];

  constructor(
    private readonly dbs: StoreDatabases,
    private readonly writes: PendingWrites,
  ) {}

  private project(projectId: number): ProjectBatch {
    let state = this.projects.get(projectId);
    if (state === undefined) {
      state = projectBatch();
      this.projects.set(projectId, state);
    }
    return state;
  }

  personIdOf(projectId: number, distinctId: string): number | undefined {
    const owners = this.project(projectId).owners;
    let id = owners.get(distinctId);
    if (id === undefined) {
      // Every owner this batch wrote is in `owners`: a miss reads the committed state.
      id = (this.dbs.distinctIds.get([projectId, distinctId]) as number | undefined) ?? null;
      owners.set(distinctId, id);
    }
    return id ?? undefined;
  }

  person(projectId: number, personId: number): PersonRecord | undefined {
    const persons = this.project(projectId).persons;
    const known = persons.get(personId);
    if (known !== undefined) return known ?? undefined;
    const stored = this.dbs.persons.get([projectId, personId]) as PersonRecord | undefined;
    if (stored !== undefined) persons.set(personId, stored);
    return stored;
  }

  /** Written at `flush()`, once however many events of the batch changed the person. */
  save(projectId: number, person: PersonRecord): void {
    const state = this.project(projectId);
    state.persons.set(person.id, person);
    state.dirty.add(person.id);
  }

  /** A new person owning `distinctId`. */
  create(projectId: number, distinctId: string, fields: Pick<PersonRecord, 'properties' | 'created_at' | 'is_identified'>): PersonRecord {
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
    const state = this.project(projectId);
    state.owners.set(distinctId, personId);
    state.ownerWrites.add(distinctId);
    const added = state.addedIds.get(personId);
    if (added === undefined) state.addedIds.set(personId, [distinctId]);
    else added.push(distinctId);
  }

  /**
   * Merge bookkeeping: every distinct id and hash key override of `from` goes to `into` (an
   * override `into` already has for the same flag is kept), and `from` is deleted.
   */
  absorb(projectId: number, from: number, into: number): void {
    const state = this.project(projectId);
    // Ids given to `from` in this batch are not stored yet: they move with no reverse entry to remove.
    const added = state.addedIds.get(from) ?? [];
    state.addedIds.delete(from);
    // A person's committed distinct ids only leave it here, when it is absorbed (once: it is gone after).
    const committed: string[] = [];
    for (const key of this.dbs.personDistinctIds.getKeys({ start: [projectId, from, ''], end: [projectId, from + 1, ''] })) {
      const distinctId = (key as [number, number, string])[2];
      committed.push(distinctId);
      state.removedIds.push([from, distinctId]);
    }
    for (const distinctId of committed) this.addDistinctId(projectId, distinctId, into);
    for (const distinctId of added) this.addDistinctId(projectId, distinctId, into);
    const overrides = this.dbs.hashKeyOverrides;
    this.writes.runInTransaction(() => {
      for (const { key, value } of overrides.getRange({ start: [projectId, from, ''], end: [projectId, from + 1, ''] })) {
        const flagKey = (key as [number, number, string])[2];
        overrides.removeSync(key);
        const target = [projectId, into, flagKey];
        if (overrides.get(target) === undefined) overrides.putSync(target, value);
      }
    });
    state.persons.set(from, null);
    state.dirty.delete(from);
    this.writes.remove(this.dbs.persons, [projectId, from]);
    this.changes.persons.push({ projectId, id: from, record: null });
  }

  /** Name → index of the project's group types (the batch's own view: do not modify it). */
  groupTypes(projectId: number): ReadonlyMap<string, number> {
    return this.groupTypeMap(projectId);
  }

  private groupTypeMap(projectId: number): Map<string, number> {
    const state = this.project(projectId);
    if (state.groupTypes === undefined) {
      const types = new Map<string, number>();
      for (const { key, value } of this.dbs.groupTypes.getRange({ start: [projectId, ''], end: [projectId, '\uffff'] })) {
        types.set((key as [number, string])[1], value as number);
      }
      state.groupTypes = types;
    }
    return state.groupTypes;
  }

  /** Registers a group type; flag snapshots and definitions carry the mapping, so the flag version moves. */
  addGroupType(projectId: number, name: string, index: number): void {
    this.groupTypeMap(projectId).set(name, index);
    this.addedGroupTypes.push({ projectId, name, index });
    this.writes.put(this.dbs.groupTypes, [projectId, name], index);
    this.writes.runInTransaction(() => bumpFlagsVersion(this.dbs, projectId));
  }

  /**
   * Whether the group types this batch registers are still free: the batch chose their indexes
   * from a read outside its transaction, and another writer (`hedgerow admin import posthog`) may
   * have registered a name or an index since. Call inside the batch's write transaction; when it
   * says no, the batch must be computed again.
   */
  groupTypesStillFree(): boolean {
    for (const { projectId, name, index } of this.addedGroupTypes) {
      if (this.dbs.groupTypes.get([projectId, name]) !== undefined) return false;
      for (const { value } of this.dbs.groupTypes.getRange({ start: [projectId, ''], end: [projectId, '\uffff'] })) {
        if (value === index) return false;
      }
    }
    return true;
  }

  /** Read once per batch, like persons (a group's events re-parsed it for each). */
  group(projectId: number, index: number, key: string): GroupRecord | undefined {
    const groups = this.project(projectId).groups;
    const k = `${index}:${key}`;
    const known = groups.get(k);
    if (known !== undefined) return known;
    const stored = this.dbs.groups.get([projectId, index, key]) as GroupRecord | undefined;
    if (stored !== undefined) groups.set(k, stored);
    return stored;
  }

  /** Written at `flush()`, once however many events of the batch changed the group. */
  saveGroup(projectId: number, group: GroupRecord): void {
    const state = this.project(projectId);
    const k = `${group.group_type_index}:${group.group_key}`;
    state.groups.set(k, group);
    state.dirtyGroups.add(k);
  }

  private allocatePersonId(projectId: number): number {
    const state = this.project(projectId);
    let next = state.nextPersonId;
    // The processor alone allocates person ids: the committed counter is current.
    if (next === undefined) next = ((this.dbs.meta.get(`counter:${personCounter(projectId)}`) as number | undefined) ?? 0) + 1;
    state.nextPersonId = next + 1;
    return next;
  }

  /** Adds the distinct ids, the persons and groups saved since the last flush and the person id counters to the writes. */
  flush(): void {
    for (const [projectId, state] of this.projects) this.flushProject(projectId, state);
  }

  private flushProject(projectId: number, state: ProjectBatch): void {
    for (const distinctId of state.ownerWrites) {
      this.writes.put(this.dbs.distinctIds, [projectId, distinctId], state.owners.get(distinctId));
    }
    state.ownerWrites.clear();
    for (const [personId, distinctId] of state.removedIds) {
      this.writes.remove(this.dbs.personDistinctIds, [projectId, personId, distinctId]);
    }
    state.removedIds.length = 0;
    for (const [personId, ids] of state.addedIds) {
      for (const distinctId of ids) this.writes.put(this.dbs.personDistinctIds, [projectId, personId, distinctId], null);
    }
    state.addedIds.clear();
    for (const id of state.dirty) {
      const person = state.persons.get(id) as PersonRecord;
      this.writes.put(this.dbs.persons, [projectId, id], person);
      this.changes.persons.push({ projectId, id, record: person });
    }
    state.dirty.clear();
    for (const k of state.dirtyGroups) {
      const group = state.groups.get(k) as GroupRecord;
      this.writes.put(this.dbs.groups, [projectId, group.group_type_index, group.group_key], group);
      this.changes.groups.push({ projectId, record: group });
    }
    state.dirtyGroups.clear();
    if (state.nextPersonId !== undefined) this.writes.put(this.dbs.meta, `counter:${personCounter(projectId)}`, state.nextPersonId - 1);
    state.nextPersonId = undefined;
  }
}

function personCounter(projectId: number): string {
  return `person:${projectId}`;
}

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

export class PersonBatch {
  /** Filled as groups are saved and persons flushed or deleted; read once the transaction has committed. */
  readonly changes: BatchChanges = { persons: [], groups: [] };
  /** `project:distinct id` → person id (null: none), as of this batch's writes. */
  private readonly owners = new Map<string, number | null>();
  /** Next person id per project, written back at flush. */
  private readonly nextPersonId = new Map<number, number>();
  /** Group type name → index per project, read once per batch. */
  private readonly groupTypeMaps = new Map<number, Map<string, number>>();
  /** Group types this batch registers, checked again inside its commit (`groupTypesStillFree`). */
  private readonly addedGroupTypes: Array<{ projectId: number; name: string; index: number }> = [];
  /** `project:person id` → distinct ids given to that person in this batch (range reads miss them). */
  private readonly addedIds = new Map<string, string[]>();
  /**
   * `project:person id` → the person as this batch last wrote or read it (null: deleted by a
   * merge). Reads are kept too: a batch's events mostly come from fewer persons than events, and
   * parsing a stored person for each of them was a fifth of the processor's time on plain events.
   * A record here belongs to this batch alone until `flush()` hands it to the writes and the
   * changes: its properties may be changed in place (apply-event.ts), so that a person with many
   * properties is not copied by every event that changes one.
   */
  private readonly persons = new Map<string, PersonRecord | null>();
  /** `project:person id` → project of the persons saved since the last flush. */
  private readonly dirty = new Map<string, number>();
  /** `project:index:key` → the group as this batch last wrote or read it. */
  private readonly groups = new Map<string, GroupRecord>();
  /** `project:index:key` → project of the groups saved since the last flush. */
  private readonly dirtyGroups = new Map<string, number>();
  /**
   * The distinct-id writes, by key, added to the writes at `flush()`: a batch's merges can move
   * the same ids many times (a chain of merges of a person with thousands of ids), and only the
   * last owner of each id, and each membership's last state, is to be written.
   */
  private readonly ownerWrites = new Map<string, { projectId: number; distinctId: string; personId: number }>();
  /** `project:person id:distinct id` → the reverse entry to write (present) or to remove. */
  private readonly membershipWrites = new Map<string, { projectId: number; personId: number; distinctId: string; present: boolean }>();

  constructor(
    private readonly dbs: StoreDatabases,
    private readonly writes: PendingWrites,
  ) {}

  personIdOf(projectId: number, distinctId: string): number | undefined {
    const k = `${projectId}:${distinctId}`;
    let id = this.owners.get(k);
    if (id === undefined) {
      // Every owner this batch wrote is in `owners`: a miss reads the committed state.
      id = (this.dbs.distinctIds.get([projectId, distinctId]) as number | undefined) ?? null;
      this.owners.set(k, id);
    }
    return id ?? undefined;
  }

  person(projectId: number, personId: number): PersonRecord | undefined {
    const k = `${projectId}:${personId}`;
    const known = this.persons.get(k);
    if (known !== undefined) return known ?? undefined;
    const stored = this.dbs.persons.get([projectId, personId]) as PersonRecord | undefined;
    if (stored !== undefined) this.persons.set(k, stored);
    return stored;
  }

  /** Written at `flush()`, once however many events of the batch changed the person. */
  save(projectId: number, person: PersonRecord): void {
    const k = `${projectId}:${person.id}`;
    this.persons.set(k, person);
    this.dirty.set(k, projectId);
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
    const owner = `${projectId}:${distinctId}`;
    this.owners.set(owner, personId);
    this.ownerWrites.set(owner, { projectId, distinctId, personId });
    this.membershipWrites.set(`${projectId}:${personId}:${distinctId}`, { projectId, personId, distinctId, present: true });
    const k = `${projectId}:${personId}`;
    const added = this.addedIds.get(k);
    if (added === undefined) this.addedIds.set(k, [distinctId]);
    else added.push(distinctId);
  }

  /**
   * Merge bookkeeping: every distinct id and hash key override of `from` goes to `into` (an
   * override `into` already has for the same flag is kept), and `from` is deleted.
   */
  absorb(projectId: number, from: number, into: number): void {
    // Ids given to `from` in this batch are not stored yet: their pending membership is dropped.
    const added = this.addedIds.get(`${projectId}:${from}`) ?? [];
    this.addedIds.delete(`${projectId}:${from}`);
    for (const distinctId of added) this.membershipWrites.delete(`${projectId}:${from}:${distinctId}`);
    // A person's committed distinct ids only leave it here, when it is absorbed (once: it is gone after).
    const committed: string[] = [];
    for (const key of this.dbs.personDistinctIds.getKeys({ start: [projectId, from, ''], end: [projectId, from + 1, ''] })) {
      const distinctId = (key as [number, number, string])[2];
      committed.push(distinctId);
      this.membershipWrites.set(`${projectId}:${from}:${distinctId}`, { projectId, personId: from, distinctId, present: false });
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
    this.persons.set(`${projectId}:${from}`, null);
    this.dirty.delete(`${projectId}:${from}`);
    this.writes.remove(this.dbs.persons, [projectId, from]);
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
    const k = `${projectId}:${index}:${key}`;
    const known = this.groups.get(k);
    if (known !== undefined) return known;
    const stored = this.dbs.groups.get([projectId, index, key]) as GroupRecord | undefined;
    if (stored !== undefined) this.groups.set(k, stored);
    return stored;
  }

  /** Written at `flush()`, once however many events of the batch changed the group. */
  saveGroup(projectId: number, group: GroupRecord): void {
    const k = `${projectId}:${group.group_type_index}:${group.group_key}`;
    this.groups.set(k, group);
    this.dirtyGroups.set(k, projectId);
  }

  private allocatePersonId(projectId: number): number {
    let next = this.nextPersonId.get(projectId);
    // The processor alone allocates person ids: the committed counter is current.
    if (next === undefined) next = ((this.dbs.meta.get(`counter:${personCounter(projectId)}`) as number | undefined) ?? 0) + 1;
    this.nextPersonId.set(projectId, next + 1);
    return next;
  }

  /** Adds the distinct ids, the persons and groups saved since the last flush and the person id counters to the writes. */
  flush(): void {
    for (const w of this.ownerWrites.values()) this.writes.put(this.dbs.distinctIds, [w.projectId, w.distinctId], w.personId);
    this.ownerWrites.clear();
    for (const w of this.membershipWrites.values()) {
      const key = [w.projectId, w.personId, w.distinctId];
      if (w.present) this.writes.put(this.dbs.personDistinctIds, key, null);
      else this.writes.remove(this.dbs.personDistinctIds, key);
    }
    this.membershipWrites.clear();
    for (const [k, projectId] of this.dirty) {
      const person = this.persons.get(k) as PersonRecord;
      this.writes.put(this.dbs.persons, [projectId, person.id], person);
      this.changes.persons.push({ projectId, id: person.id, record: person });
    }
    this.dirty.clear();
    for (const [k, projectId] of this.dirtyGroups) {
      const group = this.groups.get(k) as GroupRecord;
      this.writes.put(this.dbs.groups, [projectId, group.group_type_index, group.group_key], group);
      this.changes.groups.push({ projectId, record: group });
    }
    this.dirtyGroups.clear();
    for (const [projectId, next] of this.nextPersonId) this.writes.put(this.dbs.meta, `counter:${personCounter(projectId)}`, next - 1);
    this.nextPersonId.clear();
  }
}

function personCounter(projectId: number): string {
  return `person:${projectId}`;
}

/**
 * One event's effect on persons and groups (docs/compatibility.md#persons-and-groups), written
 * through a `PersonBatch`: group types registered from `$groups` and `$groupidentify`, group
 * properties set, then the person update or merge the event asks for. The rules themselves are the
 * pure functions of src/persons/; this module only reads and writes records.
 */
import { allocateGroupTypeIndex } from '../persons/group-types.js';
import { applyGroupSet, groupTypesOf, isDroppedGroupIdentify, parseGroupIdentify } from '../persons/group-event.js';
import { isIllegalMergeId } from '../persons/illegal-distinct-id.js';
import { mayMerge, mergedPerson } from '../persons/merge-persons.js';
import { planPersonEvent, processesPerson, type MergeKind } from '../persons/person-event.js';
import { applyPropertyUpdates, newPersonProperties, type PropertyUpdates } from '../persons/property-updates.js';
import type { StoredEvent } from '../ingest/types.js';
import type { PersonBatch } from '../store/person-writer.js';
import type { PersonRecord } from '../store/person-store.js';

/** What happened, for metrics and debug logs (PostHog's ingestion warnings by name). */
export type ApplyOutcome =
  | 'skipped'
  | 'updated'
  | 'created'
  | 'merged'
  | 'cannot_merge_already_identified'
  | 'cannot_merge_with_illegal_distinct_id';

export function applyEvent(batch: PersonBatch, e: StoredEvent): ApplyOutcome {
  // PostHog resolves groups only for events that process persons.
  if (!processesPerson(e) || isDroppedGroupIdentify(e)) return 'skipped';
  applyGroups(batch, e);
  const plan = planPersonEvent(e);
  if (!plan.processPerson) return 'skipped';
  const merge = plan.merge;
  if (merge === undefined || merge.other === merge.into) return upsert(batch, e, plan.updates, false);
  if (isIllegalMergeId(merge.other) || isIllegalMergeId(merge.into)) {
    upsert(batch, e, plan.updates, false);
    return 'cannot_merge_with_illegal_distinct_id';
  }
  return mergeIds(batch, e, merge.kind, merge.other, merge.into, plan.updates);
}

function applyGroups(batch: PersonBatch, e: StoredEvent): void {
  const project = e.project_id;
  const named = groupTypesOf(e.properties.$groups);
  const identify = parseGroupIdentify(e);
  if (identify === undefined && named.length === 0) return;
  const types = batch.groupTypes(project);
  const indexOf = (name: string): number | undefined => {
    const known = types.get(name);
    if (known !== undefined) return known;
    const index = allocateGroupTypeIndex(types, name);
    if (index === undefined) return undefined;
    batch.addGroupType(project, name, index);
    return index;
  };
  for (const name of named) indexOf(name);
  if (identify === undefined) return;
  const index = indexOf(identify.groupType);
  if (index === undefined) return;
  const current = batch.group(project, index, identify.groupKey);
  // The batch's records are its own until flushed: changed in place, not copied per event.
  const next = applyGroupSet(current?.group_properties ?? {}, identify.set, true);
  if (current !== undefined && !next.changed) return;
  batch.saveGroup(project, {
    group_type_index: index,
    group_key: identify.groupKey,
    group_properties: next.properties,
    // PostHog keeps the earliest time it has seen the group at (`DateTime.min`), with any change.
    created_at: current === undefined || Date.parse(e.timestamp) < Date.parse(current.created_at) ? e.timestamp : current.created_at,
    version: (current?.version ?? -1) + 1,
  });
}

/** The person of the event's distinct id with its updates, created when absent. */
function upsert(batch: PersonBatch, e: StoredEvent, updates: PropertyUpdates, identify: boolean): ApplyOutcome {
  const project = e.project_id;
  const id = batch.personIdOf(project, e.distinct_id);
  const person = id === undefined ? undefined : batch.person(project, id);
  if (person === undefined) {
    batch.create(project, e.distinct_id, {
      properties: newPersonProperties(updates, e.uuid),
      created_at: e.timestamp,
      is_identified: identify,
    });
    return 'created';
  }
  update(batch, project, person, updates, identify);
  return 'updated';
}

function update(batch: PersonBatch, project: number, person: PersonRecord, updates: PropertyUpdates, identify: boolean): void {
  const next = applyPropertyUpdates(person.properties, updates, true);
  const identified = person.is_identified || identify;
  if (!next.changed && identified === person.is_identified) return;
  batch.save(project, { ...person, properties: next.properties, is_identified: identified, version: person.version + 1 });
}

/** PostHog's merge(other, into) (docs/compatibility.md#merges), after the illegal-id check. */
function mergeIds(
  batch: PersonBatch,
  e: StoredEvent,
  kind: MergeKind,
  other: string,
  into: string,
  updates: PropertyUpdates,
): ApplyOutcome {
  const project = e.project_id;
  const intoId = batch.personIdOf(project, into);
  const otherId = batch.personIdOf(project, other);
  if (intoId === undefined && otherId === undefined) {
    const person = batch.create(project, into, {
      properties: newPersonProperties(updates, e.uuid),
      created_at: e.timestamp,
      is_identified: true,
    });
    batch.addDistinctId(project, other, person.id);
    return 'created';
  }
  if (intoId === undefined || otherId === undefined) {
    const ownerId = (intoId ?? otherId) as number;
    batch.addDistinctId(project, intoId === undefined ? into : other, ownerId);
    const owner = batch.person(project, ownerId);
    if (owner !== undefined) update(batch, project, owner, updates, true);
    return 'merged';
  }
  const target = batch.person(project, intoId);
  const source = batch.person(project, otherId);
  if (target === undefined || source === undefined || intoId === otherId) {
    if (target !== undefined) update(batch, project, target, updates, true);
    return 'updated';
  }
  if (!mayMerge(source, kind)) {
    update(batch, project, target, updates, true);
    return 'cannot_merge_already_identified';
  }
  const merged = mergedPerson(target, source, updates);
  batch.absorb(project, source.id, target.id);
  batch.save(project, { ...target, ...merged });
  return 'merged';
}

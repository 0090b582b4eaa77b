/**
 * Combining two existing persons (docs/compatibility.md#merges, "Both, different persons").
 *
 * Source read: PostHog/posthog `nodejs/src/worker/ingestion/persons/person-merge-service.ts`
 * @039125e1 (`isMergeAllowed`, `mergePeople`, `executeTransaction`); the newest copy hands the
 * same request to the store (`allowIdentifiedSources` only for `$merge_dangerously`).
 *
 * Moving the source's distinct ids, re-pointing its cohort and flag hash-key rows and deleting it
 * are the caller's writes; this module only decides and computes the surviving record.
 */
import type { MergeKind } from './person-event.js';
import { applyPropertyUpdates, type PropertyUpdates } from './property-updates.js';
import { mergeOwn } from '../util/plain-object.js';

export interface MergeablePerson {
  properties: Record<string, unknown>;
  created_at: string;
  is_identified: boolean;
  version: number;
}

/**
 * `$identify` and `$create_alias` never merge an already identified person into another (PostHog
 * then warns `cannot_merge_already_identified` and applies the event to the target alone);
 * `$merge_dangerously` has no such limit.
 */
export function mayMerge(source: MergeablePerson, kind: MergeKind): boolean {
  return kind === '$merge_dangerously' || !source.is_identified;
}

/** The earlier of two ISO 8601 instants; the target's on a tie or when either does not parse. */
function older(target: string, source: string): string {
  const t = Date.parse(target);
  const s = Date.parse(source);
  if (Number.isNaN(t) || Number.isNaN(s)) return target;
  return s < t ? source : target;
}

/**
 * The merged target: the source's properties overlaid by the target's (the target wins on a
 * shared key), then the event's updates applied to that union (so `setOnce` fills only keys
 * neither person had); `created_at` the older of the two; identified; version one above the
 * higher of the two, so that a person later split off from it outranks every deleted row.
 */
export function mergedPerson(target: MergeablePerson, source: MergeablePerson, updates: PropertyUpdates): MergeablePerson {
  const union = mergeOwn(source.properties, target.properties);
  return {
    properties: applyPropertyUpdates(union, updates).properties,
    created_at: older(target.created_at, source.created_at),
    is_identified: true,
    version: Math.max(target.version, source.version) + 1,
  };
}

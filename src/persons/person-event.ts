/**
 * What one stored event asks of person processing (docs/compatibility.md#persons-and-groups).
 *
 * Sources read (PostHog/posthog):
 * - `nodejs/src/common/persons/person-utils.ts` `decideProcessPerson`: only boolean `false` in
 *   `$process_person_profile` disables person processing; other non-booleans are ignored with an
 *   `invalid_process_person_profile` warning;
 * - the normalize-process-person-flag step (`createNormalizeProcessPersonFlagStep`, newest index
 *   copy): `$identify`, `$create_alias`, `$merge_dangerously` and `$groupidentify` sent with
 *   `$process_person_profile: false` are dropped with `invalid_event_when_process_person_profile_is_false`;
 * - `nodejs/src/worker/ingestion/persons/person-merge-service.ts` @039125e1 and newest
 *   `handleIdentifyOrAlias`: the merge triggers;
 * - `nodejs/src/worker/ingestion/persons/person-update.ts` @1843a160: `$exception` and `$$heatmap`
 *   never update persons; the client-ingestion-warning step drops `$$client_ingestion_warning`;
 * - `nodejs/src/worker/ingestion/persons/person-property-service.ts` @039125e1: a person is created
 *   for any other processed event, `$groupidentify` included (its person keys stripped, so it
 *   creates an empty person for its distinct_id and changes no properties).
 *
 * How the processor uses a plan, as PostHog does:
 * 1. `processPerson` false: no person is read, created or changed, and no group work happens
 *    either (PostHog resolves `$groups` and upserts `$groupidentify` groups only for events that
 *    process persons).
 * 2. No `merge`: update the person of `distinct_id` with `updates`, creating it when absent
 *    (`newPersonProperties`), `is_identified` unchanged.
 * 3. `merge` with `other === into`: exactly as 2 (PostHog returns before marking identified).
 * 4. `merge` with an id for which `isIllegalMergeId` holds: as 2, plus the ingestion warning
 *    `cannot_merge_with_illegal_distinct_id`.
 * 5. Otherwise PostHog's merge (docs/compatibility.md#merges: neither exists / one exists / same /
 *    `mayMerge` then `mergedPerson`), the target ending `is_identified`, even when the merge is
 *    refused.
 */
import type { StoredEvent } from '../ingest/types.js';
import { EVENTS_WITHOUT_PERSON_UPDATES, eventPropertyUpdates, type PropertyUpdates } from './property-updates.js';
import { hasOwn } from '../util/plain-object.js';

export type MergeKind = '$identify' | '$create_alias' | '$merge_dangerously';

/** Ingestion warnings PostHog emits for an event at this stage, by PostHog's names. */
type PersonEventWarning =
  | { type: 'invalid_process_person_profile'; value: unknown }
  /** PostHog drops the whole event; here it simply has no person or group effect. */
  | { type: 'invalid_event_when_process_person_profile_is_false' }
  /** `$anon_distinct_id`/`alias` was an object or array, which names no distinct id: PostHog drops the event; here it has no person or group effect. */
  | { type: 'invalid_anon_distinct_id' | 'invalid_alias'; receivedType: 'object' | 'array' };

export interface PersonEventPlan {
  /**
   * false: `$process_person_profile === false` (boolean only), or an event PostHog handles in
   * another pipeline ($exception, $$heatmap, $$client_ingestion_warning). `$groupidentify` is
   * true with empty `updates`: PostHog strips its `$set`/`$set_once`/`$unset` but still creates
   * (or touches) the person of its distinct_id.
   */
  processPerson: boolean;
  /**
   * The merge this event asks for (`into` = the event's distinct_id), exactly as triggered: it may
   * have `other === into` or an illegal id, which the processor turns into a plain update.
   */
  merge?: { kind: MergeKind; other: string; into: string };
  /** The event's property changes (docs/compatibility.md#person-properties), already extracted. */
  updates: PropertyUpdates;
  /** Present when PostHog would emit ingestion warnings for this event. */
  warnings?: PersonEventWarning[];
}

/** Events that never touch persons or groups: separate pipelines in PostHog. */
const EVENTS_WITHOUT_PERSONS: ReadonlySet<string> = new Set([...EVENTS_WITHOUT_PERSON_UPDATES, '$$client_ingestion_warning']);

/** Events PostHog refuses outright when they come with `$process_person_profile: false`. */
const PERSONFUL_ONLY_EVENTS: ReadonlySet<string> = new Set(['$identify', '$create_alias', '$merge_dangerously', '$groupidentify']);

/**
 * Whether an event gets person (and group) processing: not for the events of
 * `EVENTS_WITHOUT_PERSONS`, not when `$process_person_profile` is the boolean `false`.
 */
export function processesPerson(e: Pick<StoredEvent, 'event' | 'properties'>): boolean {
  return !EVENTS_WITHOUT_PERSONS.has(e.event) && e.properties.$process_person_profile !== false;
}

type MergeSide = { id: string } | { invalid: 'object' | 'array' };

/**
 * PostHog passes the property through `String()`: numbers and booleans become text and null
 * becomes `'null'` (an illegal id, so a warning and no merge). Objects and arrays name no distinct
 * id; PostHog's newest ingestion drops such events (`invalid_anon_distinct_id`/`invalid_alias`),
 * older ones turned them into `'[object Object]'` or a comma list.
 */
function mergeSide(value: unknown): MergeSide {
  if (Array.isArray(value)) return { invalid: 'array' };
  if (typeof value === 'object' && value !== null) return { invalid: 'object' };
  return { id: String(value) };
}

function mergeTrigger(e: Pick<StoredEvent, 'event' | 'distinct_id' | 'properties'>): {
  merge?: PersonEventPlan['merge'];
  warning?: PersonEventWarning;
} {
  const props = e.properties;
  let kind: MergeKind;
  let value: unknown;
  if (e.event === '$create_alias' || e.event === '$merge_dangerously') {
    if (!props.alias) return {}; // PostHog tests truthiness: alias 0, '' or false asks for nothing
    kind = e.event;
    value = props.alias;
  } else if (e.event === '$identify') {
    if (!hasOwn(props, '$anon_distinct_id')) return {};
    kind = '$identify';
    value = props.$anon_distinct_id;
  } else {
    return {};
  }
  const side = mergeSide(value);
  if ('invalid' in side) {
    const type = kind === '$identify' ? 'invalid_anon_distinct_id' : 'invalid_alias';
    return { warning: { type, receivedType: side.invalid } };
  }
  return { merge: { kind, other: side.id, into: e.distinct_id } };
}

export function planPersonEvent(e: Pick<StoredEvent, 'event' | 'distinct_id' | 'properties' | 'timestamp'>): PersonEventPlan {
  const none: PropertyUpdates = { set: {}, setOnce: {}, unset: [] };
  if (EVENTS_WITHOUT_PERSONS.has(e.event)) return { processPerson: false, updates: none };
  const props = e.properties;
  if (props.$process_person_profile === false) {
    if (!PERSONFUL_ONLY_EVENTS.has(e.event)) return { processPerson: false, updates: none };
    return { processPerson: false, updates: none, warnings: [{ type: 'invalid_event_when_process_person_profile_is_false' }] };
  }
  const warnings: PersonEventWarning[] = [];
  if (hasOwn(props, '$process_person_profile') && typeof props.$process_person_profile !== 'boolean') {
    warnings.push({ type: 'invalid_process_person_profile', value: props.$process_person_profile });
  }
  const { merge, warning } = mergeTrigger(e);
  if (warning !== undefined) {
    // PostHog's newest ingestion drops such an event; here it has no person or group effect.
    warnings.push(warning);
    return { processPerson: false, updates: none, warnings };
  }
  const plan: PersonEventPlan = { processPerson: true, updates: eventPropertyUpdates(e.event, props, e.timestamp) };
  if (merge !== undefined) plan.merge = merge;
  if (warnings.length > 0) plan.warnings = warnings;
  return plan;
}

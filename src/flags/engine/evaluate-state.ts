/**
 * Per-request evaluation state: the context, the values of flags evaluated so far (read by flag
 * dependencies), memoised cohort memberships, and the identifiers resolved once per request.
 */

import type { EvaluationContext } from './evaluate-types.js';
import type { FlagSnapshot } from './snapshot-types.js';

export interface EvaluationState {
  readonly ctx: EvaluationContext;
  readonly person: Record<string, unknown>;
  readonly distinctId: string;
  readonly now: Date;
  /** Device id for device-bucketed flags ('' when none). */
  readonly deviceId: string;
  /** Flag value by slot: false, true, a variant, or undefined (not evaluated or failed). */
  readonly values: (boolean | string | undefined)[];
  /** Cohort membership by cohort index: 0 unknown, 1 not a member, 2 member. */
  readonly cohorts: Uint8Array;
}

const NO_COHORTS = new Uint8Array(0);

export function hasOwn(obj: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

export function createState(snapshot: FlagSnapshot, ctx: EvaluationContext): EvaluationState {
  const person = ctx.personProperties;
  let deviceId = ctx.deviceId ?? '';
  if (deviceId === '' && hasOwn(person, '$device_id')) {
    const fromProps = person.$device_id;
    if (typeof fromProps === 'string') deviceId = fromProps;
  }
  return {
    ctx,
    person,
    distinctId: ctx.distinctId,
    now: ctx.now,
    deviceId,
    values: snapshot.initialValues.slice(),
    cohorts: snapshot.cohortCount === 0 ? NO_COHORTS : new Uint8Array(snapshot.cohortCount),
  };
}

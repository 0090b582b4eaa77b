/**
 * The `changes` of a flag activity entry (docs/compatibility.md#activity-log): one item per logged
 * model field whose value differs, in model field order (`LOGGED_FIELDS`, ending with the `version`
 * bump). `created` when the old value was null; `deleted` when the new one is null; else `changed`.
 * Filters first set on a flag created without them (stored `{}`) count as created with
 * `before: null`, as the 2025 activity log shows them (test/fixtures/management-vectors.json,
 * vector 19).
 */

import type { ActivityChange } from '../store/activity-log.js';
import { bucketingIdentifierOf, LOGGED_FIELDS, type FeatureFlagRecord } from './feature-flag.js';
import { jsonEqual } from './json-equal.js';
import { isPlainObject } from '../util/plain-object.js';

export type { ActivityChange };

function isEmptyObject(v: unknown): boolean {
  return isPlainObject(v) && Object.keys(v).length === 0;
}

/** A logged field's value; a flag stored before `bucketing_identifier` was kept has the default. */
function loggedValue(flag: FeatureFlagRecord, field: (typeof LOGGED_FIELDS)[number]): unknown {
  return (field === 'bucketing_identifier' ? bucketingIdentifierOf(flag) : flag[field]) ?? null;
}

export function flagChanges(before: FeatureFlagRecord | null | undefined, after: FeatureFlagRecord): ActivityChange[] {
  const changes: ActivityChange[] = [];
  for (const field of LOGGED_FIELDS) {
    let old: unknown = before ? loggedValue(before, field) : null;
    const now: unknown = loggedValue(after, field);
    if (jsonEqual(old, now)) continue;
    if (field === 'filters' && isEmptyObject(old)) old = null;
    const action = old === null ? 'created' : now === null ? 'deleted' : 'changed';
    changes.push({ type: 'FeatureFlag', action, field, before: old, after: now });
  }
  return changes;
}

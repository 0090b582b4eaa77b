/**
 * Optimistic concurrency of flag updates (docs/compatibility.md#updates-and-deletion). Only when
 * the body's `version` differs from the stored one and the body carries a non-empty
 * `original_flag` (the client's snapshot): a field conflicts when the client changes it
 * (new ≠ original), someone else changed it since (original ≠ current) and the new value is not
 * already the current one. A stale version without a snapshot is accepted.
 *
 * Clients send back the filters they read, which are normalised (#flag-fields); a stored `{}` and
 * its normalised form count as the same value.
 */

import { catalogueError, type HedgerowError } from '../errors.js';
import { bucketingIdentifierOf, type FeatureFlagRecord, type FlagWrite } from './feature-flag.js';
import { normalizedFilters } from './flag-view.js';
import { jsonEqual } from './json-equal.js';
import { isPlainObject } from '../util/plain-object.js';

/** The writable flag fields a snapshot is compared on. */
const COMPARED_FIELDS = [
  'key',
  'name',
  'filters',
  'deleted',
  'active',
  'created_at',
  'ensure_experience_continuity',
  'rollback_conditions',
  'performed_rollback',
  'tags',
  'evaluation_tags',
  'analytics_dashboards',
  'has_enriched_analytics',
  'is_remote_configuration',
  'has_encrypted_payloads',
  'evaluation_runtime',
  'bucketing_identifier',
] as const satisfies readonly (keyof FlagWrite & keyof FeatureFlagRecord)[];

function equalsCurrent(field: (typeof COMPARED_FIELDS)[number], value: unknown, current: FeatureFlagRecord): boolean {
  const stored = field === 'bucketing_identifier' ? bucketingIdentifierOf(current) : current[field];
  if (jsonEqual(value, stored)) return true;
  return field === 'filters' && jsonEqual(value, normalizedFilters(current));
}

/**
 * True when the update conflicts. `write`, the validated body, supplies the coerced new values
 * when given (tags tagified, PATCH filters without groups left out); else the raw body values.
 */
export function findVersionConflict(body: Readonly<Record<string, unknown>>, current: FeatureFlagRecord, write?: FlagWrite): boolean {
  if (body.version === undefined || body.version === current.version) return false;
  const original = body.original_flag;
  if (!isPlainObject(original) || Object.keys(original).length === 0) return false;
  for (const field of COMPARED_FIELDS) {
    if (body[field] === undefined || !(field in original)) continue;
    const next = write === undefined ? body[field] : write[field];
    if (next === undefined) continue;
    const before = original[field];
    if (jsonEqual(next, before)) continue; // the client does not change it
    if (equalsCurrent(field, before, current)) continue; // nobody else changed it
    if (equalsCurrent(field, next, current)) continue; // both made the same change
    return true;
  }
  return false;
}

/** The 409 for a conflict, naming who last modified the flag when known. */
export function versionConflictError(lastModifiedByEmail?: string | null): HedgerowError {
  return catalogueError('HR_FLAG_VERSION_CONFLICT', { user: lastModifiedByEmail ?? 'another user' });
}

/**
 * The flag object served to server SDKs for local evaluation
 * (docs/compatibility.md#flag-definitions): Django's `MinimalFeatureFlagSerializer` fields, in its
 * order, with `filters` normalised on read (#flag-fields). The Rust definitions fallback emits the
 * same fields.
 */

import {
  bucketingIdentifierOf,
  type EvaluationRuntime,
  type FeatureFlagRecord,
  type FlagFilters,
  type StoredBucketingIdentifier,
} from '../feature-flag.js';
import { normalizedFilters } from '../flag-view.js';

export interface MinimalFlag {
  id: number;
  /** PostHog's `team_id`: Hedgerow has one environment per project, so the project id. */
  team_id: number;
  name: string;
  key: string;
  filters: FlagFilters;
  deleted: boolean;
  active: boolean;
  ensure_experience_continuity: boolean;
  has_encrypted_payloads: boolean;
  version: number;
  evaluation_runtime: EvaluationRuntime;
  /** As stored (`distinct_id`, `device_id`, or null or '' meaning distinct id). */
  bucketing_identifier: StoredBucketingIdentifier;
  evaluation_tags: string[];
}

/**
 * Serializes one stored flag. `filters` defaults to a deep copy of the normalised filters, so the
 * result never shares objects with the record and callers may rewrite it (dependency chains).
 */
export function minimalFlag(flag: FeatureFlagRecord, filters: FlagFilters = structuredClone(normalizedFilters(flag))): MinimalFlag {
  return {
    id: flag.id,
    team_id: flag.project_id,
    name: flag.name,
    key: flag.key,
    filters,
    deleted: flag.deleted,
    active: flag.active,
    ensure_experience_continuity: flag.ensure_experience_continuity,
    has_encrypted_payloads: flag.has_encrypted_payloads,
    version: flag.version,
    evaluation_runtime: flag.evaluation_runtime,
    bucketing_identifier: bucketingIdentifierOf(flag),
    evaluation_tags: [...flag.evaluation_tags],
  };
}

/**
 * The body of `POST …/feature_flags/user_blast_radius/` (docs/compatibility.md#flag-views), checked
 * as PostHog does: `condition` is required (null counts as `{}`), its `rollout_percentage` is
 * ignored, and with a `group_type_index` every property must carry that same `group_type_index`
 * (PostHog checks only the index; the counter then refuses anything but group filters). Pure;
 * errors are the catalogue's.
 */
import { HedgerowError } from '../errors.js';
import { isPlainObject } from '../util/plain-object.js';

export interface BlastRadiusRequest {
  groupTypeIndex: number | null;
  properties: unknown[];
}

export function parseBlastRadiusBody(body: Readonly<Record<string, unknown>>): BlastRadiusRequest {
  if (!Object.hasOwn(body, 'condition')) {
    throw new HedgerowError('HR_BLAST_RADIUS_NO_CONDITION');
  }
  const condition = body.condition ?? {};
  if (!isPlainObject(condition)) throw new HedgerowError('HR_BLAST_RADIUS_CONDITION_NOT_AN_OBJECT');
  const rawProperties = condition.properties ?? [];
  if (!Array.isArray(rawProperties)) throw new HedgerowError('HR_BLAST_RADIUS_PROPERTIES_NOT_A_LIST');
  const properties: unknown[] = rawProperties;

  const groupTypeIndex = parseGroupTypeIndex(body.group_type_index);
  if (groupTypeIndex !== null) {
    for (const p of properties) {
      if (!isPlainObject(p) || p.group_type_index !== groupTypeIndex) {
        throw new HedgerowError('HR_BLAST_RADIUS_GROUP_TYPE_INDEX');
      }
    }
  }
  return { groupTypeIndex, properties };
}

function parseGroupTypeIndex(value: unknown): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  if (typeof value === 'string' && /^\d{1,3}$/.test(value)) return Number(value);
  throw new HedgerowError('HR_BLAST_RADIUS_GROUP_TYPE_INDEX');
}

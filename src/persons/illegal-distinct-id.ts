/**
 * Distinct ids no merge may involve (docs/compatibility.md#merges).
 *
 * Source read: PostHog/posthog `nodejs/src/common/persons/person-utils.ts` (`isDistinctIdIllegal`,
 * `isDistinctIdUnmergeable`); the same lists sit in the older
 * `nodejs/src/worker/ingestion/persons/person-merge-service.ts` @039125e1.
 *
 * PostHog checks the untrimmed id: only the empty test trims, so `' anonymous'` is allowed while
 * `'   '` is not. The case-insensitive list is matched against `id.toLowerCase()`, the
 * case-sensitive one against `id` as it is; both lists also hold each entry wrapped in single and
 * in double quotes.
 */

import { MAX_MERGE_DISTINCT_ID_CODE_POINTS } from '../limits.js';
import { exceedsCodePoints } from '../util/code-points.js';

/** Illegal in any letter case (`'Anonymous'`, `'"GUEST"'`). */
const CASE_INSENSITIVE = [
  'anonymous',
  'guest',
  'distinctid',
  'distinct_id',
  'id',
  'not_authenticated',
  'email',
  'undefined',
  'true',
  'false',
];

/** Illegal only exactly as written: `'NaN'` is refused, `'nan'` is a fine id. */
const CASE_SENSITIVE = ['[object Object]', 'NaN', 'None', 'none', 'null', '0', 'undefined'];

function withQuotedForms(ids: readonly string[]): ReadonlySet<string> {
  return new Set(ids.flatMap((id) => [id, `'${id}'`, `"${id}"`]));
}

const ILLEGAL_ANY_CASE = withQuotedForms(CASE_INSENSITIVE);
const ILLEGAL_EXACT = withQuotedForms(CASE_SENSITIVE);

/** PostHog's `isDistinctIdIllegal`: whitespace-only, or on one of the two lists. */
export function isIllegalDistinctId(id: string): boolean {
  return id.trim() === '' || ILLEGAL_ANY_CASE.has(id.toLowerCase()) || ILLEGAL_EXACT.has(id);
}

/**
 * PostHog's `isDistinctIdUnmergeable`: an illegal id, or one holding NUL, or longer than 400 code
 * points. Capture already replaces NUL and cuts the event's own distinct_id to 200 characters, but
 * `$anon_distinct_id` and `alias` reach the merge as sent.
 */
export function isIllegalMergeId(id: string): boolean {
  return isIllegalDistinctId(id) || id.includes('\0') || exceedsCodePoints(id, MAX_MERGE_DISTINCT_ID_CODE_POINTS);
}

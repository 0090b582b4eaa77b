/**
 * The query parameters capture reads (docs/compatibility.md#capture-endpoints); everything else
 * (`ver`, `ip`, `retry_count`...) is ignored.
 */

import { parseCompressionHint, type CompressionHint } from '../wire/compression-hint.js';
import { parseProjectIdHint } from './project-id-hint.js';
import { parseQuerySentAtMs } from './timestamp.js';

export interface CaptureQuery {
  /** Legacy `data=` payload, URL-decoded; '' when absent. */
  data: string;
  compression: CompressionHint;
  /** `sent_at` (alias `_`) in epoch milliseconds, only when it lands after 2020. */
  sentAtMs: number | undefined;
  /** `beacon=1`: answer 204 instead of 200 on success. */
  beacon: boolean;
  /** `project_id`, used with a personal API key. */
  projectId: number | undefined;
}

/** Parses the raw query string (without the leading `?`). */
export function parseCaptureQuery(query: string): CaptureQuery {
  if (query.length === 0) {
    return { data: '', compression: 'unsupported', sentAtMs: undefined, beacon: false, projectId: undefined };
  }
  const params = new URLSearchParams(query);
  const beacon = params.get('beacon');
  return {
    data: params.get('data') ?? '',
    compression: parseCompressionHint(params.get('compression')),
    sentAtMs: parseQuerySentAtMs(params.get('sent_at') ?? params.get('_') ?? undefined),
    beacon: beacon === '1' || beacon === 'true',
    projectId: parseProjectIdHint(params.get('project_id') ?? undefined),
  };
}

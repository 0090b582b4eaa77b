/**
 * Evaluates a project's flags for one distinct id and its groups with nothing but what is stored
 * (no request overrides), as PostHog's `get_all_feature_flags` does for the management API's
 * `evaluation_reasons` and `my_flags`: the same context builder and engine as `/flags`, so the
 * answers agree with what an SDK gets for the same person.
 */
import { evaluateFlags } from '../flags/engine/evaluate-flags.js';
import type { FlagResult } from '../flags/engine/evaluate-types.js';
import { extractGroups, type FlagsRequest } from './flags-request.js';
import { buildFlagsContext, type SubjectSources } from './flags-context.js';
import type { ProjectFlags } from './project-flags-cache.js';

export interface SubjectEvaluation {
  /** Flag key → result, for every active flag. */
  results: ReadonlyMap<string, FlagResult>;
  /** A store read failed: stored properties may be missing from the answer. */
  storeError: boolean;
}

export function evaluateSubject(
  projectId: number,
  flags: ProjectFlags,
  distinctId: string,
  groups: Readonly<Record<string, unknown>>,
  sources: SubjectSources,
  now: Date,
): SubjectEvaluation {
  const request: FlagsRequest = {
    token: '',
    distinctId,
    // Normalised exactly as /flags does (numbers as strings, anything else dropped).
    groups: extractGroups(groups),
    personProperties: {},
    groupProperties: {},
    disableFlags: false,
    evaluationContexts: [],
  };
  const built = buildFlagsContext(projectId, flags, request, distinctId, sources, now);
  return { results: evaluateFlags(flags.snapshot, built.ctx), storeError: built.storeError };
}

/**
 * Which of a project's flags a `/flags` request gets to see, before any is evaluated (Rust
 * `fetch_and_filter`, docs/compatibility.md#flags-requests): with
 * `only_evaluate_survey_feature_flags`, survey targeting flags only; then the flags of the caller's
 * runtime; then the flags tagged for one of the request's `evaluation_contexts`. A flag left out is
 * neither evaluated nor answered, and `flag_keys_to_evaluate` chooses among the flags left in.
 * Pure, no I/O.
 */
import type { EvaluationRuntime } from '../flags/feature-flag.js';
import type { FlagSnapshot } from '../flags/engine/snapshot-types.js';

/** Keys of the flags PostHog creates for survey targeting (Rust `SURVEY_TARGETING_FLAG_PREFIX`). */
const SURVEY_TARGETING_FLAG_PREFIX = 'survey-targeting-';

/** What of the request decides its runtime (Rust `detect_evaluation_runtime_from_request`). */
export interface RuntimeClues {
  /** The body's `evaluation_runtime`, when it was a string. */
  explicit?: EvaluationRuntime;
  userAgent: string;
  /** An `Origin`, `Referer`, `Sec-Fetch-Mode` or `Sec-Fetch-Site` header was sent. */
  browserHeaders: boolean;
}

const BROWSER_AGENT_MARKS = ['Mozilla/', 'Chrome/', 'Safari/', 'Firefox/', 'Edge/'];
const SERVER_AGENT_PREFIXES = [
  'posthog-python/',
  'posthog-ruby/',
  'posthog-php/',
  'posthog-java/',
  'posthog-go/',
  'posthog-node/',
  'posthog-dotnet/',
  'posthog-elixir/',
];
const SERVER_AGENT_MARKS = ['python-requests/', 'curl/'];
const MOBILE_AGENT_PREFIXES = ['posthog-android/', 'posthog-ios/', 'posthog-react-native/', 'posthog-flutter/'];

/** The body's `evaluation_runtime` as Rust reads it: any string, case aside; unknown ones mean `all`. */
export function runtimeFromText(text: string): EvaluationRuntime {
  const lower = text.toLowerCase();
  return lower === 'client' || lower === 'server' ? lower : 'all';
}

/** The caller's runtime; undefined when nothing tells. */
export function detectRuntime(clues: RuntimeClues): EvaluationRuntime | undefined {
  if (clues.explicit !== undefined) return clues.explicit;
  const ua = clues.userAgent;
  if (ua !== '') {
    if (BROWSER_AGENT_MARKS.some((m) => ua.includes(m))) return 'client';
    if (SERVER_AGENT_PREFIXES.some((p) => ua.startsWith(p)) || SERVER_AGENT_MARKS.some((m) => ua.includes(m))) return 'server';
    if (MOBILE_AGENT_PREFIXES.some((p) => ua.startsWith(p))) return 'client';
  }
  return clues.browserHeaders ? 'client' : undefined;
}

export interface VisibilityRequest {
  onlySurveyFlags: boolean;
  runtime: EvaluationRuntime | undefined;
  /** The request's `evaluation_contexts` (alias `evaluation_environments`); empty: no filter. */
  contexts: readonly string[];
}

/**
 * One byte per snapshot slot, 1 where the flag is visible; null when every flag is (the common
 * case: no survey filter, a runtime of `all` or flags that all run anywhere, no contexts).
 * - Runtime: a flag for `all` runs anywhere; one for `client` or `server` only where the caller's
 *   runtime is detected as that one (an undetected runtime sees neither).
 * - Contexts: a flag without evaluation tags is always visible; one with tags only when one of
 *   them is among the request's contexts.
 */
export function visibleSlots(snapshot: FlagSnapshot, req: VisibilityRequest): Uint8Array | null {
  const kinds = restrictionsOf(snapshot);
  // Most projects restrict no flag: no walk over the flags for each request.
  if (!req.onlySurveyFlags && !(kinds.runtime && req.runtime !== 'all') && !(kinds.tags && req.contexts.length > 0)) return null;
  let visible: Uint8Array | null = null;
  for (const flag of snapshot.flags) {
    // Flags stored before these fields existed run anywhere and carry no tags.
    const { evaluation_runtime: runtime = 'all', evaluation_tags: tags = [] } = flag.record;
    if (isVisible(flag.key, runtime, tags, req)) continue;
    if (visible === null) visible = new Uint8Array(snapshot.slotCount).fill(1);
    visible[flag.slot] = 0;
  }
  return visible;
}

/** Whether any of a snapshot's flags runs in one runtime only, or has evaluation tags. */
interface Restrictions {
  runtime: boolean;
  tags: boolean;
}

const restrictionsBySnapshot = new WeakMap<FlagSnapshot, Restrictions>();

function restrictionsOf(snapshot: FlagSnapshot): Restrictions {
  let r = restrictionsBySnapshot.get(snapshot);
  if (r === undefined) {
    r = { runtime: false, tags: false };
    for (const { record } of snapshot.flags) {
      if ((record.evaluation_runtime ?? 'all') !== 'all') r.runtime = true;
      if ((record.evaluation_tags ?? []).length > 0) r.tags = true;
    }
    restrictionsBySnapshot.set(snapshot, r);
  }
  return r;
}

function isVisible(key: string, runtime: EvaluationRuntime, tags: readonly string[], req: VisibilityRequest): boolean {
  if (req.onlySurveyFlags && !key.startsWith(SURVEY_TARGETING_FLAG_PREFIX)) return false;
  if (runtime !== 'all' && req.runtime !== 'all' && runtime !== req.runtime) return false;
  if (req.contexts.length > 0 && tags.length > 0 && !tags.some((t) => req.contexts.includes(t))) return false;
  return true;
}

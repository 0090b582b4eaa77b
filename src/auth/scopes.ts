/**
 * The scopes a personal API key may be given, as PostHog's `PersonalAPIKeySerializer` accepts
 * them: `*`, or `<object>:<action>` with an object of PostHog's `APIScopeObject` list (those
 * every PostHog release since scopes were introduced accepts; Hedgerow checks the ones its
 * endpoints serve) and an action of read or write.
 */
import { nearestNames } from '../util/nearest-names.js';

const SCOPE_OBJECTS: ReadonlySet<string> = new Set([
  'action',
  'activity_log',
  'annotation',
  'batch_export',
  'cohort',
  'dashboard',
  'dashboard_template',
  'early_access_feature',
  'event_definition',
  'experiment',
  'export',
  'feature_flag',
  'group',
  'insight',
  'notebook',
  'organization',
  'organization_member',
  'person',
  'plugin',
  'project',
  'property_definition',
  'query',
  'session_recording',
  'session_recording_playlist',
  'sharing_configuration',
  'subscription',
  'survey',
  'user',
  'webhook',
]);

/** The first scope PostHog does not know, or undefined when all are valid. */
export function firstInvalidScope(scopes: readonly string[]): string | undefined {
  for (const scope of scopes) {
    if (scope === '*') continue;
    const [object, action, ...rest] = scope.split(':');
    const valid = rest.length === 0 && SCOPE_OBJECTS.has(object ?? '') && (action === 'read' || action === 'write');
    if (!valid) return scope;
  }
  return undefined;
}

/**
 * The command line's message for the first scope PostHog does not know (PostHog's
 * `Invalid scope: …`, then the nearest valid scopes), or undefined when all are valid. The API
 * answers PostHog's message alone (errors.ts).
 */
export function invalidScope(scopes: readonly string[]): string | undefined {
  const scope = firstInvalidScope(scopes);
  if (scope === undefined) return undefined;
  const near = scopeSuggestions(scope);
  return `Invalid scope: ${scope}${near.length > 0 ? `. Did you mean ${near.join(' or ')}?` : ''}`;
}

/** Up to 3 valid scopes near a mistyped one (within 2 edits), else both actions of a known object. */
export function scopeSuggestions(scope: string): string[] {
  const valid = [...SCOPE_OBJECTS].flatMap((o) => [`${o}:read`, `${o}:write`]);
  const near = nearestNames(scope.trim().toLowerCase(), valid);
  if (near.length > 0) return near.slice(0, 3);
  const object = scope.split(':')[0]?.trim().toLowerCase() ?? '';
  return SCOPE_OBJECTS.has(object) ? [`${object}:read`, `${object}:write`] : [];
}

/**
 * The scopes a personal API key may be given, as PostHog's `PersonalAPIKeySerializer` accepts
 * them: `*`, or `<object>:<action>` with an object of PostHog's `APIScopeObject` list (those
 * every PostHog release since scopes were introduced accepts; Hedgerow checks the ones its
 * endpoints serve) and an action of read or write.
 */
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

/** PostHog's message for the first scope it does not know, or undefined when all are valid. */
export function invalidScope(scopes: readonly string[]): string | undefined {
  const scope = firstInvalidScope(scopes);
  return scope === undefined ? undefined : `Invalid scope: ${scope}`;
}

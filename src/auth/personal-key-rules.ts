/**
 * The rules of PostHog's personal API key endpoint (`posthog/api/personal_api_key.py`) that do not
 * depend on the store: how many keys a user may hold, the label's length, what the CLI's
 * `--scopes` means, and which actions a request authenticated by a personal key may take there
 * (docs/compatibility.md#personal-api-keys).
 */

/** `MAX_API_KEYS_PER_USER`: creating an eleventh key through the API is refused. */
export const MAX_API_KEYS_PER_USER = 10;

/** `PersonalAPIKey.label` is a `CharField(max_length=40)`. */
export const PERSONAL_KEY_LABEL_MAX_LENGTH = 40;

export type PersonalKeyAction = 'list' | 'create' | 'retrieve' | 'update' | 'destroy' | 'roll';

/** What the endpoint needs to know of the key a request came with. */
export interface CallingKey {
  id: string;
  scopes: readonly string[];
  scoped_teams?: readonly number[];
}

/**
 * Why the calling key may not take `action` (on the key `targetId`, `@current` being itself), or
 * undefined when it may. PostHog lets a personal key only retrieve itself
 * (`PersonalApiKeySelfAccessPermission`) and leaves the rest to users logged in to its web app.
 * Hedgerow has no browser login, so an unscoped key (full access, as the bootstrap key) stands in
 * for a logged-in user: it may
 * manage its user's keys, unless it is limited to some projects. A scoped key, even `*`, may not,
 * as no PostHog scope object covers this endpoint.
 */
export function personalKeyEndpointRefusal(
  key: CallingKey,
  action: PersonalKeyAction,
  targetId?: string,
): 'unsupported' | 'project_endpoints_only' | undefined {
  if (action === 'retrieve' && (targetId === '@current' || targetId === key.id)) return undefined;
  if (key.scopes.length > 0) return 'unsupported';
  if (key.scoped_teams && key.scoped_teams.length > 0) return 'project_endpoints_only';
  return undefined;
}

/** What the CLI makes of `keys create --scopes` and `--full-access`. */
export type CliScopes = { scopes: string[] } | { problem: string };

/**
 * Full access is asked for explicitly: `--full-access` makes an unscoped (legacy) key, `--scopes`
 * lists scopes (`*` among them); neither, both, or an empty list is an error.
 */
export function cliKeyScopes(scopesOption: string | undefined, fullAccess: boolean): CliScopes {
  if (fullAccess) {
    if (scopesOption !== undefined) return { problem: '--full-access and --scopes exclude each other: pick one' };
    return { scopes: [] };
  }
  if (scopesOption === undefined) {
    return {
      problem:
        "say what the key may do: --scopes <list> (e.g. feature_flag:read, or '*' for every scoped action) or --full-access for an unscoped key",
    };
  }
  const scopes = scopesOption
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (scopes.length === 0) {
    return {
      problem: "--scopes is empty: list at least one scope (e.g. feature_flag:read, or '*'), or use --full-access for an unscoped key",
    };
  }
  return { scopes };
}

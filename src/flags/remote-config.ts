/**
 * Remote config: what posthog-js reads before it loads flags (docs/compatibility.md#remote-config).
 * Three shapes of the same facts:
 * - the fields flattened into `/flags?config=true` and `/decide` responses (the Rust flags
 *   service's `ConfigResponse` order, plus the older `/decide` fields its API documentation shows);
 * - the JSON of `GET /array/:token/config` (PostHog's `RemoteConfig.build_config` order);
 * - the script of `GET /array/:token/config.js`, which stores that config in
 *   `window._POSTHOG_REMOTE_CONFIG[token]` with no site apps.
 * Hedgerow has no session recording, surveys, heatmaps, web vitals, exception autocapture or site
 * apps, so those are all off. Events go to the default `/e/` path: no `analytics.endpoint`.
 */

export interface RemoteConfigProject {
  apiToken: string;
  hasFeatureFlags: boolean;
}

/**
 * Body encodings Hedgerow's capture accepts that posthog-js can choose from this list: modern
 * versions pick gzip when `gzip-js` is listed; versions before gzip support used `lz64`.
 */
const SUPPORTED_COMPRESSION: readonly string[] = Object.freeze(['gzip', 'gzip-js', 'lz64']);

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * The fields flattened into /flags?config=true and /decide responses (the flags service's minimal
 * set plus the older /decide fields `config.enable_collect_everything`, `editorParams`,
 * `isAuthenticated`, `supportedCompression`). Deep-frozen: spread it into a response, do not edit
 * it.
 */
export function remoteConfigFields(project: RemoteConfigProject): Readonly<Record<string, unknown>> {
  return deepFreeze({
    supportedCompression: [...SUPPORTED_COMPRESSION],
    autocapture_opt_out: false,
    capturePerformance: false,
    config: { enable_collect_everything: true },
    elementsChainAsString: true,
    autocaptureExceptions: false,
    sessionRecording: false,
    surveys: false,
    toolbarParams: {},
    editorParams: {},
    isAuthenticated: false,
    siteApps: [],
    heatmaps: false,
    defaultIdentifiedOnly: true,
    captureDeadClicks: false,
    errorTracking: { autocaptureExceptions: false, suppressionRules: [] },
    hasFeatureFlags: project.hasFeatureFlags,
  });
}

/**
 * Body of GET /array/:token/config: the config posthog-js reads (`supportedCompression` picks
 * the body encoding; `hasFeatureFlags: false` stops it from calling /flags at all).
 */
export function arrayConfigBody(project: RemoteConfigProject): Record<string, unknown> {
  return {
    token: project.apiToken,
    supportedCompression: [...SUPPORTED_COMPRESSION],
    hasFeatureFlags: project.hasFeatureFlags,
    captureDeadClicks: false,
    capturePerformance: false,
    autocapture_opt_out: false,
    autocaptureExceptions: false,
    elementsChainAsString: true,
    errorTracking: { autocaptureExceptions: false, suppressionRules: [] },
    sessionRecording: false,
    heatmaps: false,
    surveys: false,
    defaultIdentifiedOnly: true,
    siteApps: [],
  };
}

/**
 * JSON that is also safe inside an HTML `<script>` and in pre-ES2019 JavaScript: `<`, `>`, `&`,
 * U+2028 and U+2029 (which only occur inside strings) become `\u` escapes.
 */
export function scriptSafeJson(value: unknown): string {
  const unicodeEscape = (ch: string) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, unicodeEscape);
}

/**
 * Script text of GET /array/:token/config.js as PostHog serves it: assigns the config (without
 * `siteApps`, which the script carries as code) to `window._POSTHOG_REMOTE_CONFIG[token]`, with
 * site apps empty.
 */
export function arrayConfigScript(project: RemoteConfigProject): string {
  const { siteApps: _siteApps, ...config } = arrayConfigBody(project);
  return [
    '(function() {',
    '  window._POSTHOG_REMOTE_CONFIG = window._POSTHOG_REMOTE_CONFIG || {};',
    `  window._POSTHOG_REMOTE_CONFIG[${scriptSafeJson(project.apiToken)}] = {`,
    `    config: ${scriptSafeJson(config)},`,
    '    siteApps: []',
    '  }',
    '})();',
  ].join('\n');
}

/**
 * Remote config shapes (src/flags/remote-config.ts): the fields flattened into /flags and
 * /decide, the /array/:token/config JSON and the config.js script, run in a sandbox as a browser
 * would run it.
 */
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { arrayConfigBody, arrayConfigScript, remoteConfigFields, scriptSafeJson } from '../../src/flags/remote-config.js';

const project = { apiToken: 'phc_test', hasFeatureFlags: true };

/** Runs the script against a fresh `window` and returns what it stored. */
function runScript(script: string, existing?: Record<string, unknown>): Record<string, unknown> {
  const window: Record<string, unknown> = existing ? { _POSTHOG_REMOTE_CONFIG: existing } : {};
  runInNewContext(script, { window });
  return window._POSTHOG_REMOTE_CONFIG as Record<string, unknown>;
}

describe('remoteConfigFields', () => {
  it('has the minimal /flags config set and the /decide config fields (docs/compatibility.md#remote-config)', () => {
    expect(remoteConfigFields(project)).toEqual({
      supportedCompression: ['gzip', 'gzip-js', 'lz64'],
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
      hasFeatureFlags: true,
    });
    expect(remoteConfigFields({ ...project, hasFeatureFlags: false }).hasFeatureFlags).toBe(false);
  });

  it('is frozen all the way down and spreads into a response', () => {
    const fields = remoteConfigFields(project);
    expect(Object.isFrozen(fields)).toBe(true);
    expect(Object.isFrozen(fields.config)).toBe(true);
    expect(Object.isFrozen(fields.supportedCompression)).toBe(true);
    const response = { featureFlags: {}, ...fields };
    expect(JSON.parse(JSON.stringify(response))).toMatchObject({ featureFlags: {}, isAuthenticated: false });
  });
});

describe('arrayConfigBody', () => {
  it("is PostHog's build_config with everything Hedgerow lacks switched off", () => {
    const body = arrayConfigBody(project);
    expect(Object.keys(body)).toEqual([
      'token',
      'supportedCompression',
      'hasFeatureFlags',
      'captureDeadClicks',
      'capturePerformance',
      'autocapture_opt_out',
      'autocaptureExceptions',
      'elementsChainAsString',
      'errorTracking',
      'sessionRecording',
      'heatmaps',
      'surveys',
      'defaultIdentifiedOnly',
      'siteApps',
    ]);
    expect(body).toMatchObject({
      token: 'phc_test',
      supportedCompression: ['gzip', 'gzip-js', 'lz64'],
      hasFeatureFlags: true,
      sessionRecording: false,
      surveys: false,
      heatmaps: false,
      siteApps: [],
    });
    expect(body).not.toHaveProperty('analytics');
    expect(arrayConfigBody({ ...project, hasFeatureFlags: false }).hasFeatureFlags).toBe(false);
  });

  it('lists gzip-js, which posthog-js needs before it gzips batches', () => {
    expect(arrayConfigBody(project).supportedCompression).toContain('gzip-js');
  });
});

describe('arrayConfigScript', () => {
  it('stores the config (without siteApps) and empty site apps under the token', () => {
    const store = runScript(arrayConfigScript(project));
    const { siteApps: _ignored, ...config } = arrayConfigBody(project);
    expect(store).toEqual({ phc_test: { config, siteApps: [] } });
  });

  it('keeps configs other snippets stored before it', () => {
    const store = runScript(arrayConfigScript(project), { other: { config: {}, siteApps: [] } });
    expect(Object.keys(store).sort()).toEqual(['other', 'phc_test']);
  });

  it("has PostHog's layout", () => {
    const script = arrayConfigScript(project);
    expect(script.startsWith('(function() {\n  window._POSTHOG_REMOTE_CONFIG = window._POSTHOG_REMOTE_CONFIG || {};\n')).toBe(true);
    expect(script).toContain(`window._POSTHOG_REMOTE_CONFIG["phc_test"] = {\n    config: {"token":"phc_test",`);
    expect(script.endsWith('    siteApps: []\n  }\n})();')).toBe(true);
  });

  it('cannot be broken out of by </script>, quotes or line separators in values', () => {
    const hostile = 'a</script><script>alert(1)</script>"\'\u2028\u2029&';
    const script = arrayConfigScript({ apiToken: hostile, hasFeatureFlags: false });
    expect(script).not.toMatch(/<\/script/i);
    expect(script).not.toMatch(/[\u2028\u2029<>&]/);
    const store = runScript(script);
    expect(Object.keys(store)).toEqual([hostile]);
    expect((store[hostile] as { config: { token: string } }).config.token).toBe(hostile);
  });
});

describe('scriptSafeJson', () => {
  it('is JSON that parses back to the same value', () => {
    const value = { s: '<b>&\u2028\u2029</b>', n: [1, null, true] };
    const text = scriptSafeJson(value);
    expect(text).toBe('{"s":"\\u003cb\\u003e\\u0026\\u2028\\u2029\\u003c/b\\u003e","n":[1,null,true]}');
    expect(JSON.parse(text)).toEqual(value);
  });
});

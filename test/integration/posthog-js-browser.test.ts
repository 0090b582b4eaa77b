/**
 * The real posthog-js (the `array.full.js` bundle of the pinned devDependency) in Debian's
 * Chromium, driven by playwright-core, on a page served from another origin than the daemon's:
 * remote config, feature flags (compared with posthog-node's remote answers for the same ids),
 * batched capture (gzip, as the daemon's `supportedCompression` allows), identify, group, and the
 * sendBeacon flush on page unload. Everything comes back through the events, persons and groups
 * APIs. Then PostHog's web snippet, unmodified, loads posthog-js from the daemon's `/static/`
 * (and an extension from there too), captures and loads flags. Runs against both HTTP backends. `HEDGEROW_POSTHOG_JS_DIR` runs another version's bundle
 * (1.449.2, which this machine's registry cannot install, passes too).
 *
 * Headless Chromium is a bot to posthog-js (`navigator.webdriver`), which then drops every
 * event: the page sets `opt_out_useragent_filter`, as any test of posthog-js in headless Chromium
 * must.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../helpers/chromium.js';
import { PostHog } from 'posthog-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/api.js';
import { BACKENDS, cleanupDaemons, REPO_ROOT, useDaemon } from '../helpers/daemon.js';
import { eventsOf, uniqueId, waitForPersons, type ApiEvent } from '../helpers/http.js';

/** Another unpacked posthog-js package (`npm pack posthog-js@1.449.2`, then `tar xzf`: `package/`) to run instead. */
const POSTHOG_JS_DIR = process.env.HEDGEROW_POSTHOG_JS_DIR ?? path.join(REPO_ROOT, 'node_modules/posthog-js');
const POSTHOG_JS_VERSION = (JSON.parse(readFileSync(path.join(POSTHOG_JS_DIR, 'package.json'), 'utf8')) as { version: string }).version;
/** How long to wait for the daemon to show what the browser sent (posthog-js flushes every 3 s). */
const ARRIVAL_TIMEOUT_MS = 15_000;

/** What the page's script exposes to the test. */
interface PageWindow {
  posthog: {
    capture(event: string, properties?: Record<string, unknown>): { uuid: string } | undefined;
    identify(id: string, set?: Record<string, unknown>): void;
    group(type: string, key: string, props?: Record<string, unknown>): void;
    get_distinct_id(): string;
    getFeatureFlag(key: string): string | boolean | undefined;
    getFeatureFlagPayload(key: string): unknown;
    reloadFeatureFlags(): void;
    onFeatureFlags(cb: () => void): void;
  };
  /** Flag answers each time posthog-js received flags, newest last. */
  flagLoads: Record<string, string | boolean>[];
}

/** A page on its own origin that loads posthog-js and inits it against `apiHost`. */
async function servePage(apiHost: string, token: string): Promise<{ origin: string; close(): Promise<void> }> {
  const bundle = readFileSync(path.join(POSTHOG_JS_DIR, 'dist/array.full.js'));
  const config = {
    api_host: apiHost,
    persistence: 'memory',
    autocapture: false,
    disable_session_recording: true,
    disable_surveys: true,
    opt_out_useragent_filter: true,
  };
  const html = `<!doctype html><html><head><title>posthog-js</title><script src="/posthog.js"></script></head><body>
<script>
window.flagLoads = [];
posthog.init(${JSON.stringify(token)}, ${JSON.stringify(config)});
posthog.onFeatureFlags(function (flags, variants) { window.flagLoads.push(variants); });
</script></body></html>`;
  const server = http.createServer((req, res) => {
    if (req.url === '/posthog.js') {
      res.writeHead(200, { 'content-type': 'application/javascript' }).end(bundle);
    } else {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * PostHog's web snippet as posthog.com's JavaScript web docs give it (https://posthog.com/docs/libraries/js,
 * from PostHog/posthog.com `contents/docs/integrate/snippet.mdx`, with `p.crossOrigin="anonymous"` as
 * the page now has it): it loads `<api_host>/static/array.js`, replacing `.i.posthog.com` with
 * `-assets.i.posthog.com` first, which leaves any other host as it is. Not a character changed.
 */
const WEB_SNIPPET = `!function(t,e){var o,n,p,r;e.__SV||(window.posthog=e,e._i=[],e.init=function(i,s,a){function g(t,e){var o=e.split(".");2==o.length&&(t=t[o[0]],e=o[1]),t[e]=function(){t.push([e].concat(Array.prototype.slice.call(arguments,0)))}}(p=t.createElement("script")).type="text/javascript",p.crossOrigin="anonymous",p.async=!0,p.src=s.api_host.replace(".i.posthog.com","-assets.i.posthog.com")+"/static/array.js",(r=t.getElementsByTagName("script")[0]).parentNode.insertBefore(p,r);var u=e;for(void 0!==a?u=e[a]=[]:a="posthog",u.people=u.people||[],u.toString=function(t){var e="posthog";return"posthog"!==a&&(e+="."+a),t||(e+=" (stub)"),e},u.people.toString=function(){return u.toString(1)+".people (stub)"},o="init capture register register_once register_for_session unregister unregister_for_session getFeatureFlag getFeatureFlagPayload isFeatureEnabled reloadFeatureFlags updateEarlyAccessFeatureEnrollment getEarlyAccessFeatures on onFeatureFlags onSessionId getSurveys getActiveMatchingSurveys renderSurvey canRenderSurvey getNextSurveyStep identify setPersonProperties group resetGroups setPersonPropertiesForFlags resetPersonPropertiesForFlags setGroupPropertiesForFlags resetGroupPropertiesForFlags reset get_distinct_id getGroups get_session_id get_session_replay_url alias set_config startSessionRecording stopSessionRecording sessionRecordingStarted captureException loadToolbar get_property getSessionProperty createPersonProfile opt_in_capturing opt_out_capturing has_opted_in_capturing has_opted_out_capturing clear_opt_in_out_capturing debug".split(" "),n=0;n<o.length;n++)g(u,o[n]);e._i.push([i,s,a])},e.__SV=1)}(document,window.posthog||[]);`;

/**
 * A page on its own origin with the snippet in its head, as the docs say to paste it, initialised
 * against `apiHost` with the docs' options plus `opt_out_useragent_filter` (headless Chromium) and
 * `capture_exceptions`, whose extension posthog-js then loads from `/static/` too.
 */
async function serveSnippetPage(apiHost: string, token: string): Promise<{ origin: string; close(): Promise<void> }> {
  const options = { api_host: apiHost, person_profiles: 'identified_only', opt_out_useragent_filter: true, capture_exceptions: true };
  const html = `<!doctype html><html><head><title>snippet</title>
<script>
    ${WEB_SNIPPET}
    posthog.init(${JSON.stringify(token)}, ${JSON.stringify(options)})
</script>
</head><body><p>A page with PostHog's snippet.</p></body></html>`;
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Polls until `read` returns what `done` accepts (the daemon applies events asynchronously). */
async function eventually<T>(read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + ARRIVAL_TIMEOUT_MS;
  for (;;) {
    const v = await read();
    if (done(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
}

let browser: Browser | undefined;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await cleanupDaemons();
});

describe.each(BACKENDS)(`posthog-js ${POSTHOG_JS_VERSION} in Chromium, %s`, (backend) => {
  const d = useDaemon({ backend });

  it('loads config and flags, captures, identifies, groups and flushes on unload', { timeout: 60_000 }, async () => {
    const admin = apiClient(d, d.personalKey);
    const suffix = uniqueId('f').slice(-8);
    const flags = {
      everyone: `everyone-${suffix}`,
      variant: `variant-${suffix}`,
      byEmail: `by-email-${suffix}`,
      byCompany: `by-company-${suffix}`,
    };
    const email = `${uniqueId('ada')}@example.com`;
    for (const body of [
      { key: flags.everyone, filters: { groups: [{ rollout_percentage: 100 }], payloads: { true: '{"color":"green"}' } } },
      {
        key: flags.variant,
        filters: {
          groups: [{ rollout_percentage: 100 }],
          multivariate: {
            variants: [
              { key: 'a', rollout_percentage: 50 },
              { key: 'b', rollout_percentage: 50 },
            ],
          },
        },
      },
      {
        key: flags.byEmail,
        filters: { groups: [{ properties: [{ key: 'email', value: email, operator: 'exact', type: 'person' }], rollout_percentage: 100 }] },
      },
      {
        key: flags.byCompany,
        filters: {
          aggregation_group_type_index: 0,
          groups: [
            {
              properties: [{ key: 'name', value: 'Acme', operator: 'exact', type: 'group', group_type_index: 0 }],
              rollout_percentage: 100,
            },
          ],
        },
      },
    ]) {
      const r = await admin.post('/api/projects/1/feature_flags/', body);
      expect(r.status, r.text).toBe(201);
    }

    const site = await servePage(d.baseUrl, d.projectKey);
    const page: Page = await browser!.newPage();
    const answered: { method: string; url: string; contentType: string | undefined; status: number }[] = [];
    const failed: string[] = [];
    page.on('response', (r) => {
      const req = r.request();
      if (r.url().startsWith(d.baseUrl)) {
        answered.push({ method: req.method(), url: r.url(), contentType: req.headers()['content-type'], status: r.status() });
      }
    });
    page.on('requestfailed', (r) => failed.push(`${r.method()} ${r.url()}: ${r.failure()?.errorText}`));
    const remote = new PostHog(d.projectKey, { host: d.baseUrl, fetchRetryCount: 0 });
    try {
      expect((await page.goto(site.origin))?.status()).toBe(200);

      // Anonymous: the first flags answer, as posthog-node gets it remotely for the same id.
      await page.waitForFunction(() => (window as unknown as PageWindow).flagLoads.length > 0);
      const anon = await page.evaluate(() => (window as unknown as PageWindow).posthog.get_distinct_id());
      const anonFlags = await page.evaluate(() => (window as unknown as PageWindow).flagLoads.at(-1)!);
      const remoteAnon = await remote.getAllFlags(anon);
      expect(anonFlags[flags.everyone]).toBe(true);
      expect(anonFlags[flags.variant]).toBe(remoteAnon[flags.variant]);
      expect(['a', 'b']).toContain(anonFlags[flags.variant]);
      expect(anonFlags[flags.byEmail] ?? false).toBe(false);
      expect(await page.evaluate((key) => (window as unknown as PageWindow).posthog.getFeatureFlagPayload(key), flags.everyone)).toEqual({
        color: 'green',
      });
      const first = await page.evaluate(() =>
        (window as unknown as PageWindow).posthog.capture('browser event', { plan: 'pro', n: 7, tags: ['x', 'y'] }),
      );
      expect(first?.uuid).toMatch(/^[0-9a-f-]{36}$/);

      // Identified, with a person property and a group: the daemon stores both, and the flags follow.
      const user = uniqueId('browser-user');
      const loadsBefore = await page.evaluate(() => (window as unknown as PageWindow).flagLoads.length);
      await page.evaluate(
        ([id, mail]) => {
          const ph = (window as unknown as PageWindow).posthog;
          ph.identify(id!, { email: mail });
          ph.group('company', 'acme', { name: 'Acme' });
          ph.capture('after identify');
        },
        [user, email],
      );
      await eventually(
        () => eventsOf(d, user),
        (events) => events.some((e) => e.event === '$groupidentify'),
      );
      await waitForPersons(d);
      await page.evaluate(() => (window as unknown as PageWindow).posthog.reloadFeatureFlags());
      await page.waitForFunction((n) => (window as unknown as PageWindow).flagLoads.length > n + 1, loadsBefore);
      const userFlags = await page.evaluate(() => (window as unknown as PageWindow).flagLoads.at(-1)!);
      expect(userFlags[flags.byEmail]).toBe(true);
      expect(userFlags[flags.byCompany]).toBe(true);
      // posthog-node sends no properties here: the daemon answers from the stored person and group.
      const remoteUser = await remote.getAllFlags(user, { groups: { company: 'acme' } });
      for (const key of Object.values(flags)) expect(userFlags[key], key).toBe(remoteUser[key]);
      expect(await page.evaluate((key) => (window as unknown as PageWindow).posthog.getFeatureFlag(key), flags.variant)).toBe(
        userFlags[flags.variant],
      );

      // The last event goes out with the page (sendBeacon), not on the 3 s timer.
      const last = await page.evaluate(() => (window as unknown as PageWindow).posthog.capture('last before unload'));
      expect(failed).toEqual([]);
      await page.close({ runBeforeUnload: true });

      const mine = await eventually(
        () => eventsOf(d, user),
        (events) => events.some((e) => e.event === '$pageleave') && events.some((e) => e.id === last?.uuid),
      );
      const names = mine.map((e) => e.event);
      for (const name of ['$identify', '$groupidentify', 'after identify', '$feature_flag_called', 'last before unload', '$pageleave']) {
        expect(names, name).toContain(name);
      }
      const anonEvents = await eventsOf(d, anon);
      expect(anonEvents.map((e) => e.event)).toEqual(expect.arrayContaining(['$pageview', 'browser event']));

      const byName = (events: ApiEvent[], name: string): ApiEvent => events.find((e) => e.event === name)!;
      const browserEvent = byName(anonEvents, 'browser event');
      expect(browserEvent.id).toBe(first!.uuid);
      expect(browserEvent.properties).toMatchObject({
        plan: 'pro',
        n: 7,
        tags: ['x', 'y'],
        $lib: 'web',
        $lib_version: POSTHOG_JS_VERSION,
        $current_url: `${site.origin}/`,
        $ip: '127.0.0.1',
      });
      expect(Math.abs(Date.parse(browserEvent.timestamp) - Date.now())).toBeLessThan(60_000);
      expect(byName(mine, '$identify').properties).toMatchObject({ $anon_distinct_id: anon, $set: { email } });
      expect(byName(mine, '$groupidentify').properties).toMatchObject({
        $group_type: 'company',
        $group_key: 'acme',
        $group_set: { name: 'Acme' },
      });
      expect(byName(mine, 'after identify').properties.$groups).toEqual({ company: 'acme' });

      // The browser chose gzip (sent as text/plain) because the daemon listed it, and got no error anywhere.
      const captures = answered.filter((a) => a.method === 'POST' && new URL(a.url).pathname === '/e/');
      expect(captures.map((a) => a.contentType)).toContain('text/plain');
      expect(answered.filter((a) => a.status !== 200)).toEqual([]);
      expect(answered.some((a) => new URL(a.url).pathname.startsWith('/flags'))).toBe(true);

      await waitForPersons(d);
      const persons = await admin.get(`/api/projects/1/persons/?distinct_id=${encodeURIComponent(user)}`);
      expect(persons.status, persons.text).toBe(200);
      const [person] = (persons.json as { results: { distinct_ids: string[]; properties: Record<string, unknown> }[] }).results;
      expect([...person!.distinct_ids].sort()).toEqual([anon, user].sort());
      expect(person!.properties).toMatchObject({ email, $initial_current_url: `${site.origin}/` });
      const groups = await admin.get('/api/projects/1/groups/?group_type_index=0');
      expect((groups.json as { results: unknown[] }).results).toContainEqual(
        expect.objectContaining({ group_key: 'acme', group_properties: { name: 'Acme' } }),
      );
    } finally {
      await remote.shutdown();
      if (!page.isClosed()) await page.close();
      await site.close();
    }
  });
  it("PostHog's web snippet loads posthog-js from /static/, captures and loads flags", { timeout: 60_000 }, async () => {
    const admin = apiClient(d, d.personalKey);
    const flag = `snippet-${uniqueId('f').slice(-8)}`;
    const created = await admin.post('/api/projects/1/feature_flags/', { key: flag, filters: { groups: [{ rollout_percentage: 100 }] } });
    expect(created.status, created.text).toBe(201);

    const site = await serveSnippetPage(d.baseUrl, d.projectKey);
    const page: Page = await browser!.newPage();
    const fromDaemon: { path: string; status: number; type: string | undefined; encoding: string | undefined }[] = [];
    const failed: string[] = [];
    page.on('response', (r) => {
      if (!r.url().startsWith(d.baseUrl)) return;
      const headers = r.headers();
      fromDaemon.push({
        path: new URL(r.url()).pathname,
        status: r.status(),
        type: headers['content-type'],
        encoding: headers['content-encoding'],
      });
    });
    page.on('requestfailed', (r) => failed.push(`${r.method()} ${r.url()}: ${r.failure()?.errorText}`));
    try {
      const extension = page.waitForResponse((r) => new URL(r.url()).pathname === '/static/exception-autocapture.js');
      expect((await page.goto(site.origin))?.status()).toBe(200);
      await page.waitForFunction(
        (key) => {
          const ph = (window as unknown as { posthog?: { __loaded?: boolean; isFeatureEnabled(k: string): boolean | undefined } }).posthog;
          return ph?.__loaded === true && ph.isFeatureEnabled(key) === true;
        },
        flag,
        { timeout: ARRIVAL_TIMEOUT_MS },
      );
      expect((await extension).status()).toBe(200);
      const distinctId = await page.evaluate(() => (window as unknown as PageWindow).posthog.get_distinct_id());
      const sent = await page.evaluate(() => (window as unknown as PageWindow).posthog.capture('snippet event', { via: 'snippet' }));
      expect(sent?.uuid).toMatch(/^[0-9a-f-]{36}$/);

      const events = await eventually(
        () => eventsOf(d, distinctId),
        (list) => list.some((e) => e.id === sent?.uuid),
      );
      const captured = events.find((e) => e.id === sent?.uuid);
      expect(captured?.event).toBe('snippet event');
      expect(captured?.properties).toMatchObject({
        via: 'snippet',
        $lib: 'web',
        $lib_version: POSTHOG_JS_VERSION,
        $current_url: `${site.origin}/`,
      });
      expect(events.map((e) => e.event)).toContain('$pageview');

      // The snippet's script tag is cross-origin with crossOrigin="anonymous": it ran, so CORS held.
      const array = fromDaemon.find((r) => r.path === '/static/array.js');
      expect(array).toEqual({ path: '/static/array.js', status: 200, type: 'application/javascript; charset=utf-8', encoding: 'gzip' });
      expect(fromDaemon.filter((r) => r.status !== 200)).toEqual([]);
      expect(failed).toEqual([]);
    } finally {
      if (!page.isClosed()) await page.close();
      await site.close();
    }
  });
});

/**
 * posthog-js's bundles under /static/ (src/http/routes/static-routes.ts,
 * src/http/posthog-js-bundles.ts), from the installed package: which files are served, the
 * encodings, ETag and 304, CORS, the pinned paths and what is refused.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { PosthogJsBundles } from '../../src/http/posthog-js-bundles.js';
import { Router } from '../../src/http/router.js';
import { addStaticRoutes } from '../../src/http/routes/static-routes.js';
import type { HttpRequest, HttpResponse } from '../../src/http/types.js';
import { REPO_ROOT } from '../helpers/daemon.js';

const DIST = path.join(REPO_ROOT, 'node_modules/posthog-js/dist');
const VERSION = (JSON.parse(readFileSync(path.join(REPO_ROOT, 'node_modules/posthog-js/package.json'), 'utf8')) as { version: string })
  .version;

const bundles = new PosthogJsBundles();
const router = new Router();
addStaticRoutes(router, { bundles });

async function get(urlPath: string, headers: Record<string, string> = {}, method = 'GET'): Promise<HttpResponse> {
  const req: HttpRequest = {
    method,
    path: urlPath,
    query: '',
    header: (name) => headers[name] ?? '',
    ip: '127.0.0.1',
    body: new Uint8Array(0),
    receivedAt: 0,
  };
  try {
    return await router.match(req).run();
  } catch (err) {
    return { status: (err as { status: number }).status };
  }
}

function bodyText(res: HttpResponse): string {
  return Buffer.from(res.body as Uint8Array).toString('utf8');
}

describe('posthog-js bundles', () => {
  it("lists the classic script bundles of posthog-js's dist/, not its module builds or source maps", async () => {
    const names = [...(await bundles.list())].sort();
    for (const name of [
      'array.js',
      'array.full.js',
      'array.full.es5.js',
      'array.no-external.js',
      'recorder.js',
      'posthog-recorder.js',
      'surveys.js',
      'exception-autocapture.js',
      'dead-clicks-autocapture.js',
      'web-vitals.js',
      'tracing-headers.js',
      'intercom-integration.js',
      'crisp-chat-integration.js',
    ]) {
      expect(names).toContain(name);
    }
    for (const name of names) expect(readFileSync(path.join(DIST, name), 'latin1').startsWith('!function(')).toBe(true);
    for (const name of ['main.js', 'module.js', 'module.full.js', 'surveys-preview.js', 'array.js.map']) expect(names).not.toContain(name);
  });

  it('keeps one copy of each file, read once, with its gzip encoding', async () => {
    const [a, b] = await Promise.all([bundles.get('array.js'), bundles.get('array.js')]);
    expect(a).toBe(b);
    expect(a!.body.equals(readFileSync(path.join(DIST, 'array.js')))).toBe(true);
    expect(gunzipSync(a!.gzip).equals(a!.body)).toBe(true);
    expect(a!.gzip.length).toBeLessThan(a!.body.length / 2);
    expect(a!.etag).toMatch(/^W\/"[0-9a-f]{16}"$/);
    expect((await bundles.get('array.full.js'))!.etag).not.toBe(a!.etag);
    expect(await bundles.get('nope.js')).toBeUndefined();
  });
});

describe('GET /static/:file', () => {
  it('serves array.js as JavaScript with caching headers, identity unless gzip is accepted', async () => {
    const plain = await get('/static/array.js');
    expect(plain.status).toBe(200);
    expect(plain.headers).toMatchObject({
      'content-type': 'application/javascript; charset=utf-8',
      'cache-control': 'public, max-age=3600',
      vary: 'accept-encoding',
    });
    expect(plain.headers?.['content-encoding']).toBeUndefined();
    expect(bodyText(plain)).toBe(readFileSync(path.join(DIST, 'array.js'), 'utf8'));

    const gz = await get('/static/array.js', { 'accept-encoding': 'gzip, deflate, br' });
    expect(gz.headers).toMatchObject({ 'content-encoding': 'gzip', etag: plain.headers?.etag });
    expect(gunzipSync(gz.body as Uint8Array).toString('utf8')).toBe(bodyText(plain));
  });

  it('answers 304 to a matching If-None-Match, in either form, and 200 to another tag', async () => {
    const etag = (await get('/static/recorder.js')).headers!.etag!;
    for (const tag of [etag, etag.slice(2), `"x", ${etag}`, '*']) {
      const res = await get('/static/recorder.js', { 'if-none-match': tag });
      expect(res.status, tag).toBe(304);
      expect(res.body).toBeUndefined();
      expect(res.headers).toMatchObject({ etag, 'cache-control': 'public, max-age=3600' });
    }
    expect((await get('/static/recorder.js', { 'if-none-match': 'W/"0000000000000000"' })).status).toBe(200);
  });

  it('answers other origins as remote config does, HEAD as GET and OPTIONS as a preflight', async () => {
    const origin = 'https://shop.example';
    const ok = await get('/static/surveys.js', { origin, 'accept-encoding': 'gzip' });
    expect(ok.headers).toMatchObject({
      'access-control-allow-origin': origin,
      'access-control-allow-credentials': 'true',
      vary: 'origin, access-control-request-headers, accept-encoding',
    });
    expect((await get('/static/surveys.js', { origin }, 'HEAD')).status).toBe(200);
    const preflight = await get('/static/surveys.js', { origin, 'access-control-request-headers': 'x-a' }, 'OPTIONS');
    expect(preflight.status).toBe(204);
    expect(preflight.headers).toMatchObject({ 'access-control-allow-origin': origin, 'access-control-allow-headers': 'x-a' });
    const post = await get('/static/surveys.js', { origin }, 'POST');
    expect(post.status).toBe(405);
    expect(post.headers?.['access-control-allow-origin']).toBe(origin);
  });

  it('refuses unknown names, module builds, source maps and any path outside the list with PostHog 404', async () => {
    for (const p of [
      '/static/nope.js',
      '/static/main.js',
      '/static/module.js',
      '/static/surveys-preview.js',
      '/static/array.js.map',
      '/static/toolbar.js',
      '/static/..%2Fpackage.json',
      '/static/%2e%2e%2fLICENSE',
      '/static/../package.json',
      '/static/%2Fetc%2Fpasswd',
      '/static/dist%2Farray.js',
      '/static/array.js%00',
      '/static/%E0%A4%A',
      '/static/a/b/array.js',
      '/static/',
    ]) {
      const res = await get(p, { origin: 'https://shop.example' });
      expect(res.status, p).toBe(404);
    }
    const res = await get('/static/nope.js', { origin: 'https://shop.example' });
    expect(JSON.parse(res.body as string)).toEqual({ type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null });
    expect(res.headers?.['access-control-allow-origin']).toBe('https://shop.example');
  });

  it("serves the snippet's pinned paths for the bundled major and version, and 404 for others", async () => {
    const major = VERSION.split('.')[0]!;
    for (const p of [`/static/${major}/array.js`, `/static/${VERSION}/array.full.js`]) expect((await get(p)).status, p).toBe(200);
    for (const p of [
      `/static/${Number(major) + 1}/array.js`,
      '/static/1.0.0/array.js',
      `/static/${VERSION}/main.js`,
      '/static/latest/array.js',
    ]) {
      expect((await get(p)).status, p).toBe(404);
    }
  });
});

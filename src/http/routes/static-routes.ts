/**
 * posthog-js's browser bundles under `/static/` (docs/api.md#static-bundles): `GET
 * /static/array.js` is what PostHog's web snippet loads from `api_host`, and posthog-js loads its
 * extensions from the same place (`/static/recorder.js?v=<version>`, ...). The pinned paths of
 * PostHog's snippet versioning, `/static/1/<file>` and `/static/<version>/<file>`, serve the same
 * files when they name the bundled version's major or the version itself. Cross-origin like
 * remote config; `If-None-Match` gets 304; gzip when the client accepts it.
 */
import { HedgerowError } from '../../errors.js';
import { ifNoneMatchMatches } from '../../flags/definitions/etag.js';
import { acceptsGzip } from '../accept-encoding.js';
import { withCors } from '../cors.js';
import type { PosthogJsBundles } from '../posthog-js-bundles.js';
import type { Router } from '../router.js';
import type { HttpRequest, HttpResponse } from '../types.js';

/**
 * An hour: browsers use their copy that long without asking, then revalidate it with its ETag, so
 * the bundles of an upgraded daemon reach them within the hour.
 */
const CACHE_CONTROL = 'public, max-age=3600';

export interface StaticRoutesDeps {
  bundles: PosthogJsBundles;
}

export function addStaticRoutes(router: Router, deps: StaticRoutesDeps): void {
  router.add('*', '/static/:file', 'static', (req, params) => withCors(req, () => serve(req, params.file ?? '', deps.bundles)));
  router.add('*', '/static/:version/:file', 'static', (req, params) =>
    withCors(req, async () => {
      const version = await deps.bundles.version();
      if (params.version !== version && params.version !== version.split('.')[0]) throw new HedgerowError('HR_NOT_FOUND');
      return serve(req, params.file ?? '', deps.bundles);
    }),
  );
}

async function serve(req: HttpRequest, name: string, bundles: PosthogJsBundles): Promise<HttpResponse> {
  const bundle = await bundles.get(name);
  if (bundle === undefined) throw new HedgerowError('HR_NOT_FOUND');
  const headers: Record<string, string> = { etag: bundle.etag, 'cache-control': CACHE_CONTROL, vary: 'accept-encoding' };
  const ifNoneMatch = req.header('if-none-match');
  if (ifNoneMatch !== '' && ifNoneMatchMatches(ifNoneMatch, bundle.etag)) return { status: 304, headers };
  headers['content-type'] = 'application/javascript; charset=utf-8';
  if (!acceptsGzip(req.header('accept-encoding'))) return { status: 200, headers, body: bundle.body };
  headers['content-encoding'] = 'gzip';
  return { status: 200, headers, body: bundle.gzip };
}

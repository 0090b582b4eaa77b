/**
 * A small router: exact paths and `:param` segments, trailing slash optional (PostHog's routers
 * accept both forms). Each route has a stable name used as the metrics label.
 */
import { catalogueError, HedgerowError } from '../errors.js';
import type { HttpRequest, HttpResponse } from './types.js';

export type Params = Readonly<Record<string, string>>;
export type RouteHandler = (req: HttpRequest, params: Params) => Promise<HttpResponse> | HttpResponse;

interface Route {
  name: string;
  methods: ReadonlySet<string> | '*';
  segments: string[];
  handler: RouteHandler;
}

export interface Matched {
  name: string;
  run: () => Promise<HttpResponse> | HttpResponse;
}

export class Router {
  private readonly exact = new Map<string, Route[]>();
  private readonly patterns: Route[] = [];

  /** `methods` '*' hands every method to the handler (it answers OPTIONS/405 itself). */
  add(methods: readonly string[] | '*', pattern: string, name: string, handler: RouteHandler): this {
    const path = stripSlash(pattern);
    const route: Route = {
      name,
      methods: methods === '*' ? '*' : new Set(methods),
      segments: path.split('/'),
      handler,
    };
    if (path.includes('/:')) this.patterns.push(route);
    else this.exact.set(path, [...(this.exact.get(path) ?? []), route]);
    return this;
  }

  /** The route for a request; throws 404 for an unknown path and 405 for a known path with another method. */
  match(req: HttpRequest): Matched {
    const path = stripSlash(req.path);
    const candidates: { route: Route; params: Params }[] = [];
    for (const route of this.exact.get(path) ?? []) candidates.push({ route, params: {} });
    if (candidates.length === 0) {
      // Only the routes with the fewest parameters that match: a fixed segment names an action
      // (`feature_flags/activity`), which answers 405 for another method rather than falling
      // through to the `:id` route, as Django resolves the path before the view checks the method.
      const segments = path.split('/');
      let fewest = Infinity;
      for (const route of this.patterns) {
        const params = matchSegments(route.segments, segments);
        if (!params) continue;
        const count = Object.keys(params).length;
        if (count > fewest) continue;
        if (count < fewest) candidates.length = 0;
        fewest = count;
        candidates.push({ route, params });
      }
    }
    if (candidates.length === 0) throw new HedgerowError('HR_NOT_FOUND');
    for (const { route, params } of candidates) {
      if (route.methods === '*' || route.methods.has(req.method)) {
        return { name: route.name, run: () => route.handler(req, params) };
      }
    }
    throw catalogueError('HR_METHOD_NOT_ALLOWED', { method: req.method });
  }
}

function stripSlash(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

function matchSegments(pattern: string[], actual: string[]): Params | undefined {
  if (pattern.length !== actual.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i] as string;
    const a = actual[i] as string;
    if (p.startsWith(':')) {
      if (a === '') return undefined;
      try {
        params[p.slice(1)] = decodeURIComponent(a);
      } catch {
        return undefined; // malformed %-escape: no such resource
      }
    } else if (p !== a) return undefined;
  }
  return params;
}

import { describe, expect, it } from 'vitest';
import type { HedgerowError } from '../../src/errors.js';
import { Router } from '../../src/http/router.js';
import type { HttpRequest } from '../../src/http/types.js';

function request(method: string, path: string): HttpRequest {
  return { method, path, query: '', header: () => '', ip: '127.0.0.1', body: new Uint8Array(0), receivedAt: 0 };
}

/** The route name a request reaches, or the catalogued error code it gets. */
function routed(router: Router, method: string, path: string): string {
  try {
    return router.match(request(method, path)).name;
  } catch (err) {
    return (err as HedgerowError).hedgerowCode;
  }
}

describe('Router', () => {
  const noop = () => ({ status: 204 });
  const router = new Router()
    .add(['GET'], '/api/projects/:project_id/feature_flags/activity', 'activity', noop)
    .add(['GET', 'PATCH', 'DELETE'], '/api/projects/:project_id/feature_flags/:id', 'flag', noop)
    .add(['POST'], '/api/projects/:project_id/feature_flags/:id/dashboard', 'dashboard', noop)
    .add(['GET'], '/_health', 'health', noop)
    .add(['POST'], '/_health', 'health-post', noop);

  it('matches fixed paths, parameters and either trailing slash', () => {
    expect(routed(router, 'GET', '/_health/')).toBe('health');
    expect(routed(router, 'POST', '/_health')).toBe('health-post');
    expect(routed(router, 'PATCH', '/api/projects/1/feature_flags/7/')).toBe('flag');
    expect(routed(router, 'POST', '/api/projects/@current/feature_flags/7/dashboard')).toBe('dashboard');
    expect(routed(router, 'GET', '/api/projects/1/feature_flags')).toBe('HR_NOT_FOUND');
  });

  it("answers 405 for another method on an action's path instead of taking it as an :id, as DRF does", () => {
    expect(routed(router, 'GET', '/api/projects/1/feature_flags/activity')).toBe('activity');
    expect(routed(router, 'PATCH', '/api/projects/1/feature_flags/activity')).toBe('HR_METHOD_NOT_ALLOWED');
    expect(routed(router, 'DELETE', '/api/projects/1/feature_flags/activity/')).toBe('HR_METHOD_NOT_ALLOWED');
    expect(routed(router, 'PUT', '/_health')).toBe('HR_METHOD_NOT_ALLOWED');
  });
});

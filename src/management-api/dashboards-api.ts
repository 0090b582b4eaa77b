/**
 * Dashboards (docs/compatibility.md#usage-dashboards; for now the flags' usage dashboards):
 * - `GET /api/projects/:project_id/dashboards/`: the project's dashboards, limit/offset paginated;
 * - `GET /api/projects/:project_id/dashboards/:id/`: one, with its tiles' series computed from
 *   the usage rollups;
 * - `GET /project/:project_id/dashboard/:id`: the same as a self-contained HTML page, for a
 *   personal API key (`dashboard:read`) or a signed link (`?exp=…&sig=…`, see auth/signed-link.ts).
 */
import { authenticatePersonalKey, requireScope, resolveProject } from '../auth/authenticate-personal-key.js';
import { signedDashboardPath, verifyDashboardLink } from '../auth/signed-link.js';
import { dashboardPageModel, type UsageSource } from '../dashboards/compute-tiles.js';
import { renderDashboardPage } from '../dashboards/render-dashboard-page.js';
import { HedgerowError } from '../errors.js';
import type { AuthStore } from '../store/auth-store.js';
import type { DashboardRecord, DashboardStore } from '../store/dashboard-store.js';
import type { UsageRollupReader } from '../store/usage-rollups.js';
import { projectRequest, requestOrigin } from '../http/api-request.js';
import { limitOffsetPage, parseLimitOffset } from './pagination.js';
import { renderDashboard, renderDashboardBasic } from './render-dashboard.js';
import { json } from '../http/respond.js';
import type { Params, Router } from '../http/router.js';
import type { HttpRequest } from '../http/types.js';

export interface DashboardsApiDeps {
  auth: AuthStore;
  dashboards: DashboardStore;
  rollups: UsageRollupReader;
  /** The data directory's link secret (read when a link is signed or checked: in cluster mode the first start's command makes it). */
  linkSecret: () => Buffer;
  /** Make reads see the person processor's latest commits (rollups are written by its thread). */
  freshReads(): void;
}

const PAGE_SECURITY_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  // The page is self-contained: no scripts, no requests; inline styles and SVG only.
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'private, no-store',
};

export function addDashboardsApiRoutes(router: Router, deps: DashboardsApiDeps): void {
  const userById = (id: number) => deps.auth.user(id);

  router.add(['GET'], '/api/projects/:project_id/dashboards', 'api:dashboards', (http, params) => {
    const req = projectRequest(deps.auth, http, params, 'dashboard:read');
    const live = deps.dashboards.list(req.project.id).filter((d) => !d.deleted);
    return json(
      200,
      limitOffsetPage(http, req.query, live, parseLimitOffset(req.query), (d) => renderDashboardBasic(d, userById)),
    );
  });

  router.add(['GET'], '/api/projects/:project_id/dashboards/:id', 'api:dashboard', (http, params) => {
    const req = projectRequest(deps.auth, http, params, 'dashboard:read');
    const dashboard = dashboardOf(deps, req.project.id, params);
    deps.freshReads();
    const now = new Date();
    const computed = dashboardPageModel(dashboard, now, usageSource(deps, dashboard.project_id));
    const path = signedDashboardPath(deps.linkSecret(), dashboard.project_id, dashboard.id, now.getTime() / 1000);
    return json(200, renderDashboard(dashboard, computed, userById, `${requestOrigin(http)}${path}`));
  });

  router.add(['GET'], '/project/:project_id/dashboard/:id', 'page:dashboard', (http, params) => {
    const projectId = pageProjectId(deps, http, params);
    const dashboard = dashboardOf(deps, projectId, params);
    deps.freshReads();
    const model = dashboardPageModel(dashboard, new Date(), usageSource(deps, projectId));
    return { status: 200, headers: PAGE_SECURITY_HEADERS, body: renderDashboardPage(model) };
  });
}

/** The page's project: a valid signed link for this dashboard, else a personal key with `dashboard:read`. */
function pageProjectId(deps: DashboardsApiDeps, http: HttpRequest, params: Params): number {
  const query = new URLSearchParams(http.query);
  const sig = query.get('sig');
  const exp = query.get('exp');
  if (sig !== null || exp !== null) {
    const projectId = Number(params.project_id);
    const dashboardId = Number(params.id);
    const valid =
      /^\d{1,15}$/.test(params.project_id ?? '') &&
      /^\d{1,15}$/.test(params.id ?? '') &&
      verifyDashboardLink(deps.linkSecret(), projectId, dashboardId, exp ?? '', sig ?? '', Date.now() / 1000);
    if (!valid) throw new HedgerowError('HR_DASHBOARD_LINK_INVALID');
    return projectId;
  }
  const principal = authenticatePersonalKey(deps.auth, http.header('authorization'), query);
  requireScope(principal, 'dashboard:read');
  return resolveProject(deps.auth, principal, params.project_id ?? '').id;
}

function dashboardOf(deps: DashboardsApiDeps, projectId: number, params: Params): DashboardRecord {
  const raw = params.id ?? '';
  const dashboard = /^\d{1,15}$/.test(raw) ? deps.dashboards.get(projectId, Number(raw)) : undefined;
  if (!dashboard || dashboard.deleted) throw new HedgerowError('HR_NOT_FOUND');
  return dashboard;
}

function usageSource(deps: DashboardsApiDeps, projectId: number): UsageSource {
  return { daily: (kind, event, flagKey, from, to) => deps.rollups.daily(projectId, kind, event, flagKey, from, to) };
}

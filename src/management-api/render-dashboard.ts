/**
 * PostHog's dashboard object as the dashboards API returns it: `DashboardBasicSerializer` fields
 * in lists, and with `tiles` (each holding its insight and computed `result`) when retrieved.
 * Hedgerow has no sharing, pinning, tags or access control on dashboards, so those print as
 * PostHog's defaults. `hedgerow_page_url` (Hedgerow's own) is a signed link to the HTML page.
 */
import { apiDateTime } from '../compat/iso-micros.js';
import type { DashboardPageModel, TileView } from '../dashboards/dashboard-view.js';
import { USAGE_EVENTS } from '../dashboards/usage-insights.js';
import type { InsightDefinition } from '../dashboards/usage-insights.js';
import type { DashboardRecord } from '../store/dashboard-store.js';
import { basicUserOrNull } from './serialize-user.js';
import type { User } from '../store/auth-store.js';

/** PostHog's "everyone in the project can edit" restriction level, and the privilege it gives. */
const RESTRICTION_LEVEL = 21;
const PRIVILEGE_LEVEL = 37;

export function renderDashboardBasic(d: DashboardRecord, userById: (id: number) => User | undefined) {
  return {
    id: d.id,
    name: d.name,
    description: d.description,
    pinned: false,
    created_at: apiDateTime(d.created_at),
    created_by: basicUserOrNull(userById, d.created_by),
    is_shared: false,
    deleted: d.deleted,
    creation_mode: d.creation_mode,
    tags: [],
    restriction_level: RESTRICTION_LEVEL,
    effective_restriction_level: RESTRICTION_LEVEL,
    effective_privilege_level: PRIVILEGE_LEVEL,
    team_id: d.project_id,
  };
}

export function renderDashboard(
  d: DashboardRecord,
  computed: DashboardPageModel,
  userById: (id: number) => User | undefined,
  pageUrl: string,
) {
  const insights = new Map(d.tiles.map((t) => [t.id, t.insight]));
  return {
    ...renderDashboardBasic(d, userById),
    filters: d.filters,
    tiles: computed.tiles.map((tile) => ({
      id: tile.id,
      color: null,
      layouts: {},
      text: null,
      insight: renderInsight(tile, insights.get(tile.id), computed),
    })),
    hedgerow_page_url: pageUrl,
  };
}

function renderInsight(tile: TileView, def: InsightDefinition | undefined, computed: DashboardPageModel) {
  const flagProperty = USAGE_EVENTS[tile.event as keyof typeof USAGE_EVENTS];
  return {
    id: tile.id,
    name: tile.name,
    description: tile.description,
    filters: {
      events: [{ id: tile.event, name: tile.event, type: 'events', order: 0, math: tile.math }],
      display: tile.display,
      interval: 'day',
      date_from: '-30d',
      properties: {
        type: 'AND',
        values: [{ type: 'AND', values: [{ key: flagProperty, type: 'event', value: [def?.flag_key ?? ''], operator: 'exact' }] }],
      },
      ...(def?.breakdown ? { breakdown: def.breakdown, breakdown_type: 'event' } : {}),
    },
    result: tile.result.map((s) => ({
      action: { id: tile.event, type: 'events', name: tile.event, math: tile.math },
      ...s,
    })),
    last_refresh: computed.generatedAt,
    is_cached: false,
  };
}

/**
 * The insights PostHog puts on a feature flag's usage dashboard
 * (docs/compatibility.md#usage-dashboards): two on `$feature_flag_called` for the flag (filtered on
 * `$feature_flag = key`, broken down by `$feature_flag_response`), and the two enrichment insights
 * on `$feature_interaction` and `$feature_view` (filtered on `feature_flag = key`). Plain
 * definitions; their numbers come from the usage rollups (src/store/usage-rollups.ts).
 */

/** Events whose per-day rollups feed usage dashboards, with the property naming the flag. */
export const USAGE_EVENTS = Object.freeze({
  $feature_flag_called: '$feature_flag',
  $feature_interaction: 'feature_flag',
  $feature_view: 'feature_flag',
} as const);

export type UsageEvent = keyof typeof USAGE_EVENTS;

export interface InsightDefinition {
  name: string;
  /** Optional on dashboards stored before descriptions were kept. */
  description?: string;
  event: UsageEvent;
  /** The flag key the series is filtered on. */
  flag_key: string;
  /** `$feature_flag_response`, or null for one series over all values. */
  breakdown: '$feature_flag_response' | null;
  display: 'ActionsLineGraph' | 'ActionsTable';
  /** `total`: event volume; `dau`: unique users. */
  math: 'total' | 'dau';
}

/** A tile name holding this marks an enriched dashboard (PostHog's `usage_dashboard_has_enriched_insights`). */
const ENRICHED_MARKER = 'Feature Viewed';

export function usageInsights(flagKey: string): InsightDefinition[] {
  return [
    {
      name: 'Feature Flag Called Total Volume',
      description: `Shows the number of total calls made on feature flag with key: ${flagKey}`,
      event: '$feature_flag_called',
      flag_key: flagKey,
      breakdown: '$feature_flag_response',
      display: 'ActionsLineGraph',
      math: 'total',
    },
    {
      name: 'Feature Flag calls made by unique users per variant',
      description: `Shows the number of unique user calls made on feature flag per variant with key: ${flagKey}`,
      event: '$feature_flag_called',
      flag_key: flagKey,
      breakdown: '$feature_flag_response',
      display: 'ActionsTable',
      math: 'dau',
    },
  ];
}

export function enrichedInsights(flagKey: string): InsightDefinition[] {
  return [
    {
      name: 'Feature Interaction Total Volume',
      description: `Shows the total number of times the feature behind flag ${flagKey} was interacted with`,
      event: '$feature_interaction',
      flag_key: flagKey,
      breakdown: null,
      display: 'ActionsLineGraph',
      math: 'total',
    },
    {
      name: 'Feature Viewed Total Volume',
      description: `Shows the total number of times the feature behind flag ${flagKey} was viewed`,
      event: '$feature_view',
      flag_key: flagKey,
      breakdown: null,
      display: 'ActionsLineGraph',
      math: 'total',
    },
  ];
}

export function hasEnrichedInsights(tiles: readonly { insight: { name: string } }[]): boolean {
  return tiles.some((t) => t.insight.name.includes(ENRICHED_MARKER));
}

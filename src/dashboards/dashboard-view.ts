/**
 * What a usage dashboard looks like once its tiles are computed: the shape the dashboards API
 * returns under each tile's `insight.result`, and the input of the HTML page. Plain data.
 */

/** One line of a trend: one breakdown value (or one series of an unbroken insight). */
export interface SeriesResult {
  /** What the legend shows: the breakdown value (`"true"`, `"control"`, `"None"`) or the series name. */
  label: string;
  /** The breakdown value as stored; null for a series without breakdown. */
  breakdown_value: string | null;
  /** One number per day of `days`. */
  data: number[];
  /** `YYYY-MM-DD`, oldest first. */
  days: string[];
  /** PostHog's short day labels (`1-Nov-2026`), one per day. */
  labels: string[];
  /** Sum of `data`. */
  count: number;
  /** Over the whole range: the event total (`math: total`) or unique users (`math: dau`). */
  aggregated_value: number;
}

type TileDisplay = 'ActionsLineGraph' | 'ActionsTable';

export interface TileView {
  id: number;
  name: string;
  description: string;
  display: TileDisplay;
  math: 'total' | 'dau';
  /** The event the tile counts (`$feature_flag_called`, `$feature_view`, …). */
  event: string;
  result: SeriesResult[];
}

export interface DashboardPageModel {
  id: number;
  projectId: number;
  name: string;
  description: string;
  /** First and last day shown, `YYYY-MM-DD`. */
  dateFrom: string;
  dateTo: string;
  /** ISO time the series were computed. */
  generatedAt: string;
  tiles: TileView[];
}

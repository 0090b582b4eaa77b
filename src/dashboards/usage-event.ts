/**
 * Which part of a usage dashboard one ingested event counts towards: the event name (one of the
 * usage events), the flag it names, its breakdown value (`$feature_flag_response` for
 * `$feature_flag_called`, none for the others) and its UTC day. Pure.
 */
import type { StoredEvent } from '../ingest/types.js';
import { USAGE_EVENTS, type UsageEvent } from './usage-insights.js';

export interface UsageContribution {
  event: UsageEvent;
  flagKey: string;
  /** The breakdown value as text: `''` when the event has none (shown as "None"). */
  breakdown: string;
  /** `YYYY-MM-DD` (UTC). */
  day: string;
}

/** The label PostHog shows for a missing breakdown value. */
export const NONE_LABEL = 'None';

export function usageContribution(e: Pick<StoredEvent, 'event' | 'properties' | 'timestamp'>): UsageContribution | undefined {
  if (!Object.hasOwn(USAGE_EVENTS, e.event)) return undefined;
  const event = e.event as UsageEvent;
  const flagKey = e.properties[USAGE_EVENTS[event]];
  if (typeof flagKey !== 'string' || flagKey === '') return undefined;
  const breakdown = event === '$feature_flag_called' ? breakdownText(e.properties.$feature_flag_response) : '';
  return { event, flagKey, breakdown, day: e.timestamp.slice(0, 10) };
}

/** A property value as a breakdown shows it: strings as they are, other JSON as JSON text, none as `''`. */
export function breakdownText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

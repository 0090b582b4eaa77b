/**
 * Which part of a usage dashboard one ingested event counts towards: the event name (one of the
 * usage events), the flag it names, its breakdown value (`$feature_flag_response` for
 * `$feature_flag_called`, none for the others) and its UTC day. Pure.
 *
 * The flag key and the breakdown value go into the rollups' LMDB keys (at most 1,978 bytes each),
 * and any client may send any text in them: a key no flag can have is not counted (no dashboard
 * would read it), and a breakdown value is cut to `MAX_BREAKDOWN_BYTES` of UTF-8.
 */
import { isFlagKeyShaped } from '../flags/flag-key.js';
import type { StoredEvent } from '../ingest/types.js';
import { USAGE_EVENTS, type UsageEvent } from './usage-insights.js';

/** Room left in a rollup key beside a 400-character flag key and a user (`d` + a 200-character distinct id). */
const MAX_BREAKDOWN_BYTES = 400;

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
  if (typeof flagKey !== 'string' || !isFlagKeyShaped(flagKey)) return undefined;
  const breakdown = event === '$feature_flag_called' ? breakdownText(e.properties.$feature_flag_response) : '';
  return { event, flagKey, breakdown: cutUtf8(breakdown, MAX_BREAKDOWN_BYTES), day: e.timestamp.slice(0, 10) };
}

const cutBuffer = new Uint8Array(MAX_BREAKDOWN_BYTES);
const encoder = new TextEncoder();

/** `text` cut to at most `maxBytes` of UTF-8, never inside a character. */
function cutUtf8(text: string, maxBytes: number): string {
  if (text.length * 3 <= maxBytes) return text; // no UTF-16 unit takes more than 3 bytes
  const { read } = encoder.encodeInto(text, cutBuffer.subarray(0, maxBytes));
  return text.slice(0, read);
}

/** A property value as a breakdown shows it: strings as they are, other JSON as JSON text, none as `''`. */
export function breakdownText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

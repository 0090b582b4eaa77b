/**
 * Event timestamps (docs/compatibility.md#timestamps; PostHog/posthog
 * `rust/common/types/src/timestamp.rs` `parse_event_timestamp`).
 */

import { MAX_FUTURE_SKEW_MS } from '../limits.js';
import { formatIsoMs, ISO_MAX_MS as MAX_MS, ISO_MIN_MS as MIN_MS } from './iso-format.js';
import { parseDateMs } from '../compat/parse-date.js';

/** 2021-01-01T00:00:00Z: a query `sent_at` must land after 2020 (so a seconds value is ignored). */
const QUERY_SENT_AT_MIN_MS = 1_609_459_200_000;
const DIGITS = /^\d{1,16}$/;

type TimestampSource = 'Now' | 'ClientTimestamp' | 'SentAtSkew' | 'Offset';

export interface EventTimestampInput {
  /** The event's `timestamp` (used only when it is a string that parses). */
  timestamp: unknown;
  /** The event's `offset` in ms (used only when it is a finite number). */
  offsetMs: unknown;
  /** Request `sent_at` in epoch ms, when known. */
  sentAtMs: number | undefined;
  /** `properties.$ignore_sent_at === true`. */
  ignoreSentAt: boolean;
  /** Server receive time, epoch ms. */
  nowMs: number;
}

export interface EventTimestamp {
  /** ISO-8601 UTC with milliseconds. */
  timestamp: string;
  source: TimestampSource;
}

/**
 * 1. start with now; 2. a parseable timestamp is used, corrected for clock skew
 * (`timestamp - (sent_at - now)`) when sent_at is known and not ignored; 3. `offset` overrides
 * everything (`now - offset`); 4. more than 23 h in the future -> now; 5. outside years 0-9999 -> epoch.
 */
export function parseEventTimestamp(input: EventTimestampInput): EventTimestamp {
  const now = input.nowMs;
  let ms = now;
  let source: TimestampSource = 'Now';
  if (typeof input.timestamp === 'string') {
    const t = parseDateMs(input.timestamp);
    if (t !== undefined) {
      if (input.sentAtMs !== undefined && !input.ignoreSentAt) {
        ms = t - (input.sentAtMs - now);
        source = 'SentAtSkew';
      } else {
        ms = t;
        source = 'ClientTimestamp';
      }
    }
  }
  if (typeof input.offsetMs === 'number' && Number.isFinite(input.offsetMs)) {
    ms = now - input.offsetMs;
    source = 'Offset';
  }
  if (ms - now > MAX_FUTURE_SKEW_MS) ms = now;
  if (!(ms >= MIN_MS && ms <= MAX_MS)) ms = 0; // outside years 0-9999: the epoch
  return { timestamp: formatIsoMs(ms), source };
}

/** A batch-level `sent_at` string in epoch ms, or `undefined` when absent or not a date in years 0-9999. */
export function parseSentAtMs(sentAt: string | undefined): number | undefined {
  if (sentAt === undefined) return undefined;
  const ms = parseDateMs(sentAt);
  return ms !== undefined && ms >= MIN_MS && ms <= MAX_MS ? ms : undefined;
}

/** Query `sent_at` / `_`: integer epoch milliseconds, used only when it lands after 2020. */
export function parseQuerySentAtMs(raw: string | undefined): number | undefined {
  if (raw === undefined || !DIGITS.test(raw)) return undefined;
  const ms = Number(raw);
  return ms >= QUERY_SENT_AT_MIN_MS && ms <= MAX_MS ? ms : undefined;
}

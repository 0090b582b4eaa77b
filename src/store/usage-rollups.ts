/**
 * Per-day rollups of the usage events (`$feature_flag_called`, `$feature_interaction`,
 * `$feature_view`) per project, flag and breakdown value, so a usage dashboard reads at most a
 * few hundred keys instead of the event log. The person processor adds every event it applies in
 * the same transaction as its cursor (src/processing/person-processor.ts): after a crash nothing
 * is counted twice or skipped.
 *
 * Keys of the `usage_rollups` database, `[project, kind, event, flag key, …]`:
 * - TOTAL `…, day, value` → events that day;
 * - DAY_USERS `…, day, value` → distinct users that day, from DAY_MEMBER `…, day, value, user` → 1;
 * - LAST_SEEN `…, value, user` → the newest day the user was seen, and LAST_SEEN_COUNT
 *   `…, day, value` → users whose newest day it is. The users of a window ending today are then
 *   the sum of LAST_SEEN_COUNT over its days (exact, whatever the order events arrive in).
 * A user is the person the processor resolved for the event (`p<id>`), else its distinct id (`d<id>`).
 */
import type { UsageContribution } from '../dashboards/usage-event.js';
import type { StoreDatabases, StoreKey } from './open-store.js';
import type { PendingWrites } from './pending-writes.js';

const TOTAL = 0;
const DAY_USERS = 1;
const DAY_MEMBER = 2;
const LAST_SEEN = 3;
const LAST_SEEN_COUNT = 4;

export type DailyKind = 'total' | 'day_users' | 'last_seen';
const KIND: Readonly<Record<DailyKind, number>> = { total: TOTAL, day_users: DAY_USERS, last_seen: LAST_SEEN_COUNT };

/** Breakdown value → day → number. */
export type DailyCounts = Map<string, Map<string, number>>;

export function usageUser(personId: number | undefined, distinctId: string): string {
  return personId === undefined ? `d${distinctId}` : `p${personId}`;
}

/** The rollup writes of one processor batch, gathered in its `PendingWrites`; `flush()` adds the counters. */
export class UsageRollupBatch {
  private readonly deltas = new Map<string, { key: StoreKey; delta: number }>();
  private readonly members = new Set<string>();
  private readonly lastSeen = new Map<string, string | null>();

  constructor(
    private readonly dbs: StoreDatabases,
    private readonly writes: PendingWrites,
  ) {}

  add(projectId: number, c: UsageContribution, user: string): void {
    const { event, flagKey: flag, day, breakdown: value } = c;
    this.count([projectId, TOTAL, event, flag, day, value], 1);

    const member = [projectId, DAY_MEMBER, event, flag, day, value, user];
    const memberId = JSON.stringify(member);
    if (!this.members.has(memberId)) {
      this.members.add(memberId);
      // `members` holds every member this batch wrote: the store has the committed rest.
      if (this.dbs.usageRollups.get(member) === undefined) {
        this.writes.put(this.dbs.usageRollups, member, 1);
        this.count([projectId, DAY_USERS, event, flag, day, value], 1);
      }
    }

    const seenKey = [projectId, LAST_SEEN, event, flag, value, user];
    const seenId = JSON.stringify(seenKey);
    let seen = this.lastSeen.get(seenId);
    if (seen === undefined) seen = (this.dbs.usageRollups.get(seenKey) as string | undefined) ?? null;
    if (seen === null || day > seen) {
      this.writes.put(this.dbs.usageRollups, seenKey, day);
      this.lastSeen.set(seenId, day);
      if (seen !== null) this.count([projectId, LAST_SEEN_COUNT, event, flag, seen, value], -1);
      this.count([projectId, LAST_SEEN_COUNT, event, flag, day, value], 1);
    } else {
      this.lastSeen.set(seenId, seen);
    }
  }

  /** Adds the counters changed by this batch to the writes. */
  flush(): void {
    for (const { key, delta } of this.deltas.values()) {
      const next = ((this.dbs.usageRollups.get(key) as number | undefined) ?? 0) + delta;
      if (next === 0) this.writes.remove(this.dbs.usageRollups, key);
      else this.writes.put(this.dbs.usageRollups, key, next);
    }
    this.deltas.clear();
  }

  private count(key: StoreKey[], delta: number): void {
    const id = JSON.stringify(key);
    const entry = this.deltas.get(id);
    if (entry) entry.delta += delta;
    else this.deltas.set(id, { key: key as StoreKey, delta });
  }
}

export class UsageRollupReader {
  constructor(private readonly dbs: StoreDatabases) {}

  /** Per breakdown value and day, for `from`..`to` (`YYYY-MM-DD`, inclusive). */
  daily(projectId: number, kind: DailyKind, event: string, flagKey: string, from: string, to: string): DailyCounts {
    const k = KIND[kind];
    const out: DailyCounts = new Map();
    for (const { key, value } of this.dbs.usageRollups.getRange({
      start: [projectId, k, event, flagKey, from],
      end: [projectId, k, event, flagKey, `${to}\u0000`],
    })) {
      const [, , , , day, breakdown] = key as [number, number, string, string, string, string];
      let days = out.get(breakdown);
      if (!days) out.set(breakdown, (days = new Map()));
      days.set(day, value as number);
    }
    return out;
  }
}

/**
 * The activity log (PostHog's ActivityLog, docs/compatibility.md#activity-log): one entry per
 * create, update, soft delete and restore, written by the caller inside the same LMDB transaction
 * as the change it records. Entries are kept per project in write order, with an index per item (a
 * flag's id).
 */
import { apiDateTime } from '../compat/iso-micros.js';
import type { StoreDatabases } from './open-store.js';
import { nextId } from './open-store.js';

export type ActivityVerb = 'created' | 'updated' | 'deleted' | 'restored';

export interface ActivityUser {
  first_name: string;
  email: string | null;
  is_system?: true;
}

export interface ActivityChange {
  type: string;
  action: 'changed' | 'created' | 'deleted';
  field: string;
  before: unknown;
  after: unknown;
}

export interface ActivityEntry {
  id: number;
  project_id: number;
  /** The user who acted, as shown at the time (null: the system). */
  user: ActivityUser | null;
  activity: ActivityVerb;
  scope: string;
  item_id: string;
  detail: {
    changes: ActivityChange[];
    trigger: unknown;
    type: null;
    /** The item's name at the time (a flag's key). */
    name: string;
    short_id: null;
  };
  /** ISO 8601 with microseconds. */
  created_at: string;
}

export type NewActivity = Omit<ActivityEntry, 'id'>;

const SYSTEM_USER: ActivityUser = { first_name: 'System', email: null, is_system: true };

export class ActivityLog {
  constructor(private readonly dbs: StoreDatabases) {}

  /** Appends an entry; call inside the write transaction of the change it records. */
  appendInTransaction(entry: NewActivity): ActivityEntry {
    const id = nextId(this.dbs, 'activity');
    const stored: ActivityEntry = { id, ...entry };
    this.dbs.activity.putSync(['log', entry.project_id, id], stored);
    this.dbs.activity.putSync(['item', entry.project_id, entry.scope, entry.item_id, id], null);
    return stored;
  }

  /** A project's entries of one scope (optionally of one item), newest first. */
  list(projectId: number, scope: string, itemId?: string): ActivityEntry[] {
    const out: ActivityEntry[] = [];
    if (itemId === undefined) {
      for (const { value } of this.dbs.activity.getRange({
        start: ['log', projectId, Number.MAX_SAFE_INTEGER],
        end: ['log', projectId, 0],
        reverse: true,
      })) {
        const entry = value as ActivityEntry;
        if (entry.scope === scope) out.push(entry);
      }
      return out;
    }
    for (const { key } of this.dbs.activity.getRange({
      start: ['item', projectId, scope, itemId, Number.MAX_SAFE_INTEGER],
      end: ['item', projectId, scope, itemId, 0],
      reverse: true,
    })) {
      const id = (key as (string | number)[])[4] as number;
      const entry = this.dbs.activity.get(['log', projectId, id]) as ActivityEntry | undefined;
      if (entry) out.push(entry);
    }
    return out;
  }
}

/** The entry as PostHog's activity API renders it. */
export function renderActivity(entry: ActivityEntry): Record<string, unknown> {
  return {
    user: entry.user ?? SYSTEM_USER,
    activity: entry.activity,
    scope: entry.scope,
    item_id: entry.item_id,
    detail: entry.detail,
    created_at: apiDateTime(entry.created_at),
  };
}

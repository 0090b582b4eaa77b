/**
 * Experience-continuity hash keys (`hash_key_overrides`: `[project, person id, flag key]` → hash
 * key), docs/compatibility.md#experience-continuity: written insert-if-absent by `/flags` requests
 * that carry `$anon_distinct_id`, read when hashing continuity flags, moved with the person on
 * merges.
 */
import type { StoreDatabases } from './open-store.js';

/** Hash keys to insert where absent: what a `/flags` request writes. */
export interface HashKeyWrite {
  readonly projectId: number;
  readonly personIds: readonly number[];
  readonly flagKeys: readonly string[];
  readonly hashKey: string;
}

/** How long, and how many, hash keys sent to the cluster are remembered until the store has them. */
const PENDING_MS = 60_000;
const MAX_PENDING = 10_000;

export class HashKeyOverrideStore {
  /** Cluster mode: hash keys sent to the cluster and not necessarily applied here yet, by `project/person/flag`. */
  private readonly pending = new Map<string, { hashKey: string; at: number }>();

  /**
   * `replicate` (cluster mode): inserts go to the cluster instead of the store, and every node
   * applies them in the stream's order (cluster/command-applier.ts); this thread reads them from
   * memory until then.
   */
  constructor(
    private readonly dbs: StoreDatabases,
    private readonly replicate?: (w: HashKeyWrite) => void,
  ) {}

  /** Flag key → hash key for one person. */
  forPerson(projectId: number, personId: number): Map<string, string> {
    const out = new Map<string, string>();
    for (const { key, value } of this.dbs.hashKeyOverrides.getRange({
      start: [projectId, personId, ''],
      end: [projectId, personId, '\uffff'],
    })) {
      out.set((key as [number, number, string])[2], value as string);
    }
    if (this.pending.size > 0) {
      const prefix = `${projectId}/${personId}/`;
      for (const [k, p] of this.pending) {
        if (k.startsWith(prefix) && !out.has(k.slice(prefix.length))) out.set(k.slice(prefix.length), p.hashKey);
      }
    }
    return out;
  }

  /** Whether every one of `flagKeys` already has an override for every person. */
  allPresent(projectId: number, personIds: readonly number[], flagKeys: readonly string[]): boolean {
    for (const personId of personIds) {
      for (const flagKey of flagKeys) {
        if (
          this.dbs.hashKeyOverrides.get([projectId, personId, flagKey]) === undefined &&
          !this.pending.has(`${projectId}/${personId}/${flagKey}`)
        ) {
          return false;
        }
      }
    }
    return true;
  }

  /** Inserts `hashKey` for each (person, flag) that has none yet, in one transaction. */
  insertMissing(projectId: number, personIds: readonly number[], flagKeys: readonly string[], hashKey: string): void {
    if (this.replicate) {
      this.remember(projectId, personIds, flagKeys, hashKey);
      this.replicate({ projectId, personIds: [...personIds], flagKeys: [...flagKeys], hashKey });
      return;
    }
    this.dbs.root.transactionSync(() => {
      for (const personId of personIds) {
        for (const flagKey of flagKeys) {
          const key = [projectId, personId, flagKey];
          if (this.dbs.hashKeyOverrides.get(key) === undefined) this.dbs.hashKeyOverrides.putSync(key, hashKey);
        }
      }
    });
  }

  private remember(projectId: number, personIds: readonly number[], flagKeys: readonly string[], hashKey: string): void {
    const now = Date.now();
    for (const [k, p] of this.pending) {
      if (now - p.at < PENDING_MS && this.pending.size < MAX_PENDING) break;
      this.pending.delete(k); // oldest first (insertion order)
    }
    for (const personId of personIds) {
      for (const flagKey of flagKeys) {
        const k = `${projectId}/${personId}/${flagKey}`;
        if (!this.pending.has(k) && this.dbs.hashKeyOverrides.get([projectId, personId, flagKey]) === undefined) {
          this.pending.set(k, { hashKey, at: now });
        }
      }
    }
  }
}

/**
 * Experience-continuity hash keys (`hash_key_overrides`: `[project, person id, flag key]` → hash
 * key), docs/compatibility.md#experience-continuity: written insert-if-absent by `/flags` requests
 * that carry `$anon_distinct_id`, read when hashing continuity flags, moved with the person on
 * merges.
 */
import type { StoreDatabases } from './open-store.js';

export class HashKeyOverrideStore {
  constructor(private readonly dbs: StoreDatabases) {}

  /** Flag key → hash key for one person. */
  forPerson(projectId: number, personId: number): Map<string, string> {
    const out = new Map<string, string>();
    for (const { key, value } of this.dbs.hashKeyOverrides.getRange({
      start: [projectId, personId, ''],
      end: [projectId, personId, '\uffff'],
    })) {
      out.set((key as [number, number, string])[2], value as string);
    }
    return out;
  }

  /** Whether every one of `flagKeys` already has an override for every person. */
  allPresent(projectId: number, personIds: readonly number[], flagKeys: readonly string[]): boolean {
    for (const personId of personIds) {
      for (const flagKey of flagKeys) {
        if (this.dbs.hashKeyOverrides.get([projectId, personId, flagKey]) === undefined) return false;
      }
    }
    return true;
  }

  /** Inserts `hashKey` for each (person, flag) that has none yet, in one transaction. */
  insertMissing(projectId: number, personIds: readonly number[], flagKeys: readonly string[], hashKey: string): void {
    this.dbs.root.transactionSync(() => {
      for (const personId of personIds) {
        for (const flagKey of flagKeys) {
          const key = [projectId, personId, flagKey];
          if (this.dbs.hashKeyOverrides.get(key) === undefined) this.dbs.hashKeyOverrides.putSync(key, hashKey);
        }
      }
    });
  }
}

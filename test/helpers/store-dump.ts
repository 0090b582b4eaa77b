/**
 * A data directory's databases as stored (every key and value), read while or after a daemon
 * runs on it, so that tests can compare two stores byte for byte (two cluster nodes, a crashed
 * daemon and one that never stopped). `meta` leaves out the keys a node keeps for itself: its
 * stream and processor cursors.
 */
import { openStore, type StoreDatabases } from '../../src/store/open-store.js';

type DatabaseName = Exclude<keyof StoreDatabases, 'root'>;

export async function dumpStore(dataDir: string, names: readonly DatabaseName[]): Promise<Record<string, unknown[]>> {
  const dbs = openStore({ dataDir, sync: 'durable', readOnly: true });
  const out: Record<string, unknown[]> = {};
  try {
    for (const name of names) {
      const db = dbs[name] as unknown as { getRange(opts: object): Iterable<{ key: unknown; value: unknown }> };
      const rows = [...db.getRange({})].map(({ key, value }) => [key, value]);
      // Each node's own records: its stream and processor cursors, its keys' last uses.
      out[name] = name === 'meta' ? rows.filter(([k]) => !/cursor|^key_used:/.test(String(k))) : rows;
    }
  } finally {
    await dbs.root.close();
  }
  return out;
}

/** What the person processor keeps: persons, distinct ids, groups and usage rollups. */
export const PERSON_DATABASES: readonly DatabaseName[] = [
  'persons',
  'distinctIds',
  'personDistinctIds',
  'groups',
  'groupTypes',
  'usageRollups',
];

/**
 * How much of the data file holds data, for `/metrics`: the file's size, and the pages in use
 * (every database's branch, leaf and overflow pages, the main and free-page trees, and the two
 * meta pages). The difference is free pages, which LMDB reuses before it grows the file.
 */
import { statSync } from 'node:fs';
import { oldestEventKey } from './event-retention.js';
import type { StoreDatabases } from './open-store.js';

interface TreeStats {
  pageSize: number;
  treeBranchPageCount: number;
  treeLeafPageCount: number;
  overflowPages: number;
}

interface EnvStats extends TreeStats {
  free?: TreeStats;
}

const META_PAGES = 2;

function pages(s: TreeStats | undefined): number {
  return s === undefined ? 0 : s.treeBranchPageCount + s.treeLeafPageCount + s.overflowPages;
}

export function storeUsage(
  dbs: StoreDatabases,
  file: string,
): { fileBytes: number; usedBytes: number; oldestEventMicros: number | undefined } {
  const env = dbs.root.getStats() as EnvStats;
  let used = META_PAGES + pages(env) + pages(env.free);
  for (const [name, db] of Object.entries(dbs)) {
    if (name === 'root') continue;
    used += pages((db as { getStats(): TreeStats }).getStats());
  }
  return { fileBytes: statSync(file).size, usedBytes: used * env.pageSize, oldestEventMicros: oldestEventKey(dbs)?.[0] };
}

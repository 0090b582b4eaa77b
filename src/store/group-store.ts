/**
 * Groups and group types (`groups`: `[project, type index, key]` → record; `group_types`:
 * `[project, name]` → index 0–4). Registered by `$groupidentify` processing; read by flag
 * evaluation (group properties, `group_type_mapping`) and the groups API. Registering a group
 * type must bump the project's flag version (`bumpFlagsVersion`) in the same transaction: flag
 * snapshots and served definitions include the mapping and are rebuilt only when it moves.
 */
import { MAX_GROUP_KEY_CHARS } from '../limits.js';
import { bumpFlagsVersion } from './flag-store.js';
import type { StoreDatabases } from './open-store.js';
import { scanInSlices, type ScanPacing } from './scan-in-slices.js';

export interface GroupRecord {
  group_type_index: number;
  group_key: string;
  group_properties: Record<string, unknown>;
  /** ISO 8601. */
  created_at: string;
  version: number;
}

export class GroupReader {
  constructor(protected readonly dbs: StoreDatabases) {}

  /** Group type index (as a string) → name, as flag definitions and snapshots take it. */
  typeMapping(projectId: number): Record<string, string> {
    const mapping: Record<string, string> = {};
    for (const [name, index] of this.typeIndexes(projectId)) mapping[String(index)] = name;
    return mapping;
  }

  /** Group type name → index. */
  typeIndexes(projectId: number): Map<string, number> {
    const indexes = new Map<string, number>();
    for (const { key, value } of this.dbs.groupTypes.getRange({ start: [projectId, ''], end: [projectId, '\uffff'] })) {
      indexes.set((key as [number, string])[1], value as number);
    }
    return indexes;
  }

  get(projectId: number, typeIndex: number, key: string): GroupRecord | undefined {
    if (key.length > MAX_GROUP_KEY_CHARS) return undefined; // never stored; may not fit in an LMDB key
    return this.dbs.groups.get([projectId, typeIndex, key]) as GroupRecord | undefined;
  }

  /** The project's group types, by index. */
  types(projectId: number): Array<{ name: string; index: number }> {
    return Object.entries(this.typeMapping(projectId))
      .map(([index, name]) => ({ name, index: Number(index) }))
      .sort((a, b) => a.index - b.index);
  }

  /** The groups of one type in key order, read in slices (scan-in-slices.ts) until `visit` returns true. */
  scan(projectId: number, typeIndex: number, pacing: ScanPacing, visit: (group: GroupRecord) => boolean): Promise<void> {
    const range = { start: [projectId, typeIndex, ''], end: [projectId, typeIndex + 1, ''] };
    return scanInSlices(this.dbs.groups, range, pacing, (v) => visit(v as GroupRecord));
  }
}

/**
 * Registers a group type outside the person processor (the PostHog import keeps PostHog's
 * indexes). Refuses a name or an index the project already has. The processor chooses indexes
 * for names it meets in events from a read outside its transaction, and checks them again inside
 * it (`PersonBatch.groupTypesStillFree`), so the two never give one index to two names.
 */
export function addGroupType(dbs: StoreDatabases, projectId: number, name: string, index: number): void {
  dbs.root.transactionSync(() => {
    const reader = new GroupReader(dbs);
    const taken = reader.typeMapping(projectId)[String(index)];
    if (taken !== undefined) throw new Error(`group type index ${index} is taken by "${taken}"`);
    if (reader.typeIndexes(projectId).has(name)) throw new Error(`group type "${name}" exists`);
    dbs.groupTypes.putSync([projectId, name], index);
    bumpFlagsVersion(dbs, projectId);
  });
}

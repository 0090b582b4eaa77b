/**
 * Each worker's compiled view of a project's flags: the evaluation snapshot, its response
 * encoder and the lookups a request needs, rebuilt only when the project's flag version moves
 * (every flag or cohort write bumps it in the same transaction). Reading the version is one
 * LMDB point read, done once per event-loop turn (TurnMemo: a front-end thread answers a turn's
 * requests together); no filters are parsed on the request path.
 */
import { compileSnapshot } from '../flags/engine/compile-snapshot.js';
import type { FlagSnapshot } from '../flags/engine/snapshot-types.js';
import { FlagsResponseEncoder } from './flags-response.js';
import type { CohortStore } from '../store/cohort-store.js';
import type { FlagReader } from '../store/flag-store.js';
import type { GroupReader } from '../store/group-store.js';
import { TurnMemo } from '../util/turn-memo.js';

export interface ProjectFlags {
  readonly version: number;
  readonly snapshot: FlagSnapshot;
  readonly encoder: FlagsResponseEncoder;
  /** Group type name → index. */
  readonly groupTypeIndex: ReadonlyMap<string, number>;
  /** Keys of active flags with `ensure_experience_continuity`. */
  readonly continuityKeys: readonly string[];
  /** Whether the project has any active flag (remote config `hasFeatureFlags`). */
  readonly hasFeatureFlags: boolean;
}

export interface ProjectFlagsSources {
  flags: FlagReader;
  cohorts: Pick<CohortStore, 'list'>;
  groups: GroupReader;
}

export class ProjectFlagsCache {
  private readonly byProject = new Map<number, ProjectFlags>();
  private readonly versions = new TurnMemo<number, number>();

  constructor(private readonly sources: ProjectFlagsSources) {}

  get(projectId: number): ProjectFlags {
    const version = this.versions.get(projectId, () => this.sources.flags.flagsVersion(projectId));
    const cached = this.byProject.get(projectId);
    if (cached !== undefined && cached.version === version) return cached;
    const built = this.build(projectId, version);
    this.byProject.set(projectId, built);
    return built;
  }

  private build(projectId: number, version: number): ProjectFlags {
    const records = this.sources.flags.list(projectId);
    const mapping = this.sources.groups.typeMapping(projectId);
    const snapshot = compileSnapshot({
      flags: records,
      cohorts: this.sources.cohorts.list(projectId),
      groupTypeMapping: mapping,
      version,
    });
    const meta = new Map(snapshot.flags.map((f) => [f.key, { id: f.id, version: f.record.version }]));
    const groupTypeIndex = new Map<string, number>();
    for (const [index, name] of Object.entries(mapping)) groupTypeIndex.set(name, Number(index));
    return {
      version,
      snapshot,
      encoder: new FlagsResponseEncoder((key) => meta.get(key)),
      groupTypeIndex,
      continuityKeys: snapshot.flags.filter((f) => f.continuity).map((f) => f.key),
      hasFeatureFlags: snapshot.flags.length > 0,
    };
  }
}

/**
 * The flag definitions body served for local evaluation, serialized once per project flag
 * version (and cohort mode) with its ETag, so an SDK poll costs a version read and a string
 * compare, not a rebuild (docs/compatibility.md#flag-definitions). The version is read once per
 * event-loop turn.
 */
import { buildDefinitions } from './build-definitions.js';
import { definitionsEtag } from './etag.js';
import type { CohortStore } from '../../store/cohort-store.js';
import type { FlagReader } from '../../store/flag-store.js';
import type { GroupReader } from '../../store/group-store.js';
import { TurnMemo } from '../../util/turn-memo.js';

export interface ServedDefinitions {
  readonly version: number;
  readonly body: string;
  readonly etag: string;
}

export class DefinitionsCache {
  private readonly cache = new Map<string, ServedDefinitions>();
  private readonly versions = new TurnMemo<number, number>();

  constructor(
    private readonly flags: FlagReader,
    private readonly cohorts: Pick<CohortStore, 'list'>,
    private readonly groups: GroupReader,
  ) {}

  get(projectId: number, sendCohorts: boolean): ServedDefinitions {
    const version = this.versions.get(projectId, () => this.flags.flagsVersion(projectId));
    const key = `${projectId}:${sendCohorts ? 1 : 0}`;
    const cached = this.cache.get(key);
    if (cached !== undefined && cached.version === version) return cached;
    const body = JSON.stringify(
      buildDefinitions({
        flags: this.flags.list(projectId),
        cohorts: this.cohorts.list(projectId),
        groupTypeMapping: this.groups.typeMapping(projectId),
        sendCohorts,
      }),
    );
    const served = { version, body, etag: definitionsEtag(body) };
    this.cache.set(key, served);
    return served;
  }
}

/**
 * Importing PostHog's local-evaluation answer into a project (docs/compatibility.md#importing-from-posthog):
 * the group types at PostHog's indexes, the cohorts the flags use, then the flags, each written
 * through the rules the management API applies, with references re-pointed to the new ids.
 * Running it again updates what it made before: flags are matched by key, cohorts by the PostHog
 * id they came from; a record that would not change is left alone. A flag or cohort that fails
 * is reported and skipped, the rest go in. A dry run does the same inside one transaction and
 * rolls it back, so it reports exactly what a real run would do.
 */
import { jsonEqual } from '../flags/json-equal.js';
import { flagChanges } from '../flags/activity-changes.js';
import { applyFlagWrite, type FeatureFlagRecord } from '../flags/feature-flag.js';
import type { FlagWriter } from '../flags/flag-writer.js';
import { type CohortWriteMode, validateCohortWrite } from '../cohorts/cohort-write-rules.js';
import { isHedgerowError } from '../errors.js';
import type { User } from '../store/auth-store.js';
import type { CohortRecord, CohortStore } from '../store/cohort-store.js';
import type { FlagStore } from '../store/flag-store.js';
import type { ImportOrigins } from '../store/import-origins.js';
import { isPlainObject } from '../util/plain-object.js';
import type { PostHogDefinitions, PostHogFlag } from './posthog-definitions.js';
import {
  cohortGroupReferences,
  flagDependencyKeys,
  type ReferenceMaps,
  rewriteCohortGroup,
  rewriteFlagFilters,
} from './rewrite-references.js';

type Outcome = 'created' | 'updated' | 'unchanged' | 'skipped';

export interface ImportReport {
  dryRun: boolean;
  groupTypes: Array<{ name: string; posthogIndex: number; index?: number; outcome: Outcome; note?: string }>;
  cohorts: Array<{ posthogId: number; id?: number; outcome: Outcome; error?: string }>;
  flags: Array<{ key: string; id?: number; outcome: Outcome; changed?: string[]; error?: string }>;
}

export interface ImportTarget {
  projectId: number;
  /** Who the flags' activity log names. */
  actor: User;
  flags: FlagStore;
  writer: FlagWriter;
  cohorts: CohortStore;
  origins: ImportOrigins;
  groupTypes: {
    /** The project's group type name → index. */
    indexes(): Map<string, number>;
    add(name: string, index: number): void;
  };
  /** Runs `fn` in one write transaction (nested writes become child transactions). */
  transaction<T>(fn: () => T): T;
}

/** PostHog keeps at most five group types per project (indexes 0 to 4). */
const GROUP_TYPE_INDEXES = [0, 1, 2, 3, 4];

class RollBack extends Error {}

export function importDefinitions(defs: PostHogDefinitions, target: ImportTarget, opts: { dryRun: boolean }): ImportReport {
  if (!opts.dryRun) return new Importer(defs, target, false).run();
  let report: ImportReport | undefined;
  try {
    target.transaction(() => {
      report = new Importer(defs, target, true).run();
      throw new RollBack();
    });
  } catch (err) {
    if (!(err instanceof RollBack)) throw err;
  }
  return report as ImportReport;
}

class Importer {
  private readonly report: ImportReport;
  private readonly groupIndex = new Map<number, number>();
  private readonly cohortIds = new Map<number, number>();
  private readonly maps: ReferenceMaps;

  constructor(
    private readonly defs: PostHogDefinitions,
    private readonly target: ImportTarget,
    dryRun: boolean,
  ) {
    this.report = { dryRun, groupTypes: [], cohorts: [], flags: [] };
    this.maps = {
      groupTypeIndex: (i) => this.groupIndex.get(i),
      cohortId: (id) => this.cohortIds.get(id),
      flagId: (key) => this.target.flags.liveIdByKey(this.target.projectId, key),
    };
  }

  run(): ImportReport {
    this.importGroupTypes();
    for (const id of cohortOrder(this.defs.cohorts)) this.importCohort(id);
    for (const flag of flagOrder(this.defs.flags)) this.importFlag(flag);
    return this.report;
  }

  /**
   * Each PostHog group type keeps its index where the project has it free; a name the project
   * already has keeps the project's index; otherwise the lowest free index. References follow.
   */
  private importGroupTypes(): void {
    const existing = this.target.groupTypes.indexes();
    const taken = new Map([...existing].map(([name, index]) => [index, name]));
    for (const { index: posthogIndex, name } of this.defs.groupTypes) {
      const known = existing.get(name);
      if (known !== undefined) {
        this.groupIndex.set(posthogIndex, known);
        const note = known === posthogIndex ? undefined : `the project has it at index ${known}: references are re-pointed`;
        this.report.groupTypes.push({ name, posthogIndex, index: known, outcome: 'unchanged', ...(note ? { note } : {}) });
        continue;
      }
      const index = taken.has(posthogIndex) ? GROUP_TYPE_INDEXES.find((i) => !taken.has(i)) : posthogIndex;
      if (index === undefined) {
        this.report.groupTypes.push({ name, posthogIndex, outcome: 'skipped', note: 'the project has five group types already' });
        continue;
      }
      this.target.groupTypes.add(name, index);
      taken.set(index, name);
      existing.set(name, index);
      this.groupIndex.set(posthogIndex, index);
      const note =
        index === posthogIndex
          ? undefined
          : `index ${posthogIndex} is "${taken.get(posthogIndex)}" in the project: references are re-pointed`;
      this.report.groupTypes.push({ name, posthogIndex, index, outcome: 'created', ...(note ? { note } : {}) });
    }
  }

  private importCohort(posthogId: number): void {
    const { projectId, cohorts, origins } = this.target;
    const group = this.defs.cohorts.get(posthogId) as Record<string, unknown>;
    const rewritten = rewriteCohortGroup(group, this.maps);
    if (!rewritten.ok) {
      this.report.cohorts.push({ posthogId, outcome: 'skipped', error: rewritten.reason });
      return;
    }
    const filters = { properties: rewritten.value };
    const previousId = origins.cohortFromPostHog(projectId, posthogId);
    const previous = previousId === undefined ? undefined : cohorts.get(projectId, previousId);
    try {
      if (previous !== undefined && !previous.deleted) {
        if (jsonEqual(previous.filters, filters) && !previous.is_static) {
          this.cohortIds.set(posthogId, previous.id);
          this.report.cohorts.push({ posthogId, id: previous.id, outcome: 'unchanged' });
          return;
        }
        const body = { filters, is_static: false };
        const updated = cohorts.update(projectId, previous.id, (current) => validateCohortWrite(body, this.cohortRules('patch', current)));
        this.cohortIds.set(posthogId, updated.id);
        this.report.cohorts.push({ posthogId, id: updated.id, outcome: 'updated' });
        return;
      }
      const body = {
        name: `PostHog cohort ${posthogId}`,
        description: `Imported from PostHog, where it is cohort ${posthogId}.`,
        filters,
        is_static: false,
      };
      const created = this.target.transaction(() => {
        const cohort = cohorts.create(projectId, this.target.actor.id, () =>
          validateCohortWrite(body, this.cohortRules('create', undefined)),
        );
        origins.recordCohortFromPostHog(projectId, posthogId, cohort.id);
        return cohort;
      });
      this.cohortIds.set(posthogId, created.id);
      this.report.cohorts.push({ posthogId, id: created.id, outcome: 'created' });
    } catch (err) {
      this.report.cohorts.push({ posthogId, outcome: 'skipped', error: refusal(err) });
    }
  }

  private cohortRules(mode: CohortWriteMode, current: CohortRecord | undefined) {
    const { projectId, cohorts, flags } = this.target;
    return { mode, current, cohort: (id: number) => cohorts.get(projectId, id), flags: () => flags.list(projectId) };
  }

  private importFlag(flag: PostHogFlag): void {
    const { projectId, flags, writer, actor } = this.target;
    const raw = flag.raw;
    if (raw.deleted === true) {
      this.report.flags.push({ key: flag.key, outcome: 'skipped', error: 'deleted in PostHog' });
      return;
    }
    const filters = rewriteFlagFilters(isPlainObject(raw.filters) ? raw.filters : {}, this.maps);
    if (!filters.ok) {
      this.report.flags.push({ key: flag.key, outcome: 'skipped', error: filters.reason });
      return;
    }
    const body = flagBody(raw, flag.key, filters.value);
    const existingId = flags.liveIdByKey(projectId, flag.key);
    try {
      if (existingId === undefined) {
        const created = writer.create(projectId, actor, body);
        this.report.flags.push({ key: flag.key, id: created.id, outcome: 'created' });
        return;
      }
      const current = flags.get(projectId, existingId) as FeatureFlagRecord;
      const changed = flagChanges(current, applyFlagWrite(current, writer.prepareUpdate(current, body, 'patch'))).map((c) => c.field);
      if (changed.length === 0) {
        this.report.flags.push({ key: flag.key, id: existingId, outcome: 'unchanged' });
        return;
      }
      writer.update(projectId, existingId, actor, body, 'patch');
      this.report.flags.push({ key: flag.key, id: existingId, outcome: 'updated', changed });
    } catch (err) {
      this.report.flags.push({
        key: flag.key,
        ...(existingId === undefined ? {} : { id: existingId }),
        outcome: 'skipped',
        error: refusal(err),
      });
    }
  }
}

/** What the API would have answered, as one line; anything but a refusal is not the record's fault. */
function refusal(err: unknown): string {
  if (!isHedgerowError(err)) throw err;
  return err.attr === null ? err.message : `${err.message} (${err.attr})`;
}

/** The API body of an imported flag: the fields a PostHog flag carries that Hedgerow keeps. */
function flagBody(raw: Readonly<Record<string, unknown>>, key: string, filters: Record<string, unknown>): Record<string, unknown> {
  const body: Record<string, unknown> = { key, name: typeof raw.name === 'string' ? raw.name : '', filters };
  for (const field of ['active', 'ensure_experience_continuity', 'evaluation_runtime', 'evaluation_tags', 'bucketing_identifier']) {
    if (raw[field] !== undefined) body[field] = raw[field];
  }
  return body;
}

/** Cohorts after the cohorts they refer to (a loop is left in the given order: validation refuses it). */
function cohortOrder(cohorts: ReadonlyMap<number, Record<string, unknown>>): number[] {
  return topological([...cohorts.keys()], (id) =>
    cohortGroupReferences(cohorts.get(id) as Record<string, unknown>).filter((ref) => cohorts.has(ref)),
  );
}

/** Flags after the flags they depend on, else in the answer's order. */
function flagOrder(flags: readonly PostHogFlag[]): PostHogFlag[] {
  const byKey = new Map(flags.map((f) => [f.key, f]));
  const keys = topological(
    flags.map((f) => f.key),
    (key) => {
      const filters = byKey.get(key)?.raw.filters;
      return isPlainObject(filters) ? flagDependencyKeys(filters).filter((k) => byKey.has(k)) : [];
    },
  );
  return keys.map((k) => byKey.get(k) as PostHogFlag);
}

/** Depth-first order: each node after its dependencies; a node met again on its own path is not waited for. */
function topological<T>(nodes: readonly T[], deps: (n: T) => readonly T[]): T[] {
  const out: T[] = [];
  const done = new Set<T>();
  for (const start of nodes) {
    if (done.has(start)) continue;
    const onPath = new Set<T>([start]);
    const stack: Array<{ node: T; deps: readonly T[]; next: number }> = [{ node: start, deps: deps(start), next: 0 }];
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as { node: T; deps: readonly T[]; next: number };
      if (top.next < top.deps.length) {
        const dep = top.deps[top.next++] as T;
        if (done.has(dep) || onPath.has(dep)) continue;
        onPath.add(dep);
        stack.push({ node: dep, deps: deps(dep), next: 0 });
        continue;
      }
      stack.pop();
      onPath.delete(top.node);
      done.add(top.node);
      out.push(top.node);
    }
  }
  return out;
}

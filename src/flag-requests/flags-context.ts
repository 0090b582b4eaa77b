/**
 * The evaluation context of one `/flags` request: stored person and group properties overlaid by
 * the request's, missing `$initial_*` person properties filled
 * (docs/compatibility.md#evaluation-context), experience-continuity hash keys read and written
 * (#experience-continuity), and static cohort membership (by person). A store failure here does not
 * fail the request: evaluation goes on with what the request carried and the response reports
 * `errorsWhileComputingFlags` (as the Rust service does for its database errors).
 */
import type { EvaluationContext } from '../flags/engine/evaluate-types.js';
import type { FlagsRequest } from './flags-request.js';
import { MAX_HASH_KEY_CHARS } from '../limits.js';
import type { CohortStore } from '../store/cohort-store.js';
import type { GroupReader } from '../store/group-store.js';
import type { HashKeyOverrideStore } from '../store/hash-key-override-store.js';
import type { PersonReader } from '../store/person-store.js';
import { exceedsCodePoints } from '../util/code-points.js';
import { copyOwn, mergeOwn } from '../util/plain-object.js';
import { withMatchTimeProperties } from './match-time-properties.js';
import type { ProjectFlags } from './project-flags-cache.js';

export interface SubjectSources {
  persons: PersonReader;
  groups: GroupReader;
  overrides: HashKeyOverrideStore;
  cohorts: Pick<CohortStore, 'isStaticMember'>;
}

export interface BuiltContext {
  ctx: EvaluationContext;
  /**
   * A store read or write failed; the answer may miss stored data. Read it after evaluating:
   * static cohort membership is read during the evaluation, and sets it when a read fails.
   */
  storeError: boolean;
}

export function buildFlagsContext(
  projectId: number,
  project: ProjectFlags,
  req: FlagsRequest,
  distinctId: string,
  sources: SubjectSources,
  now: Date,
): BuiltContext {
  let storeError = false;
  let personId: number | undefined;
  let personProperties = req.personProperties;
  try {
    personId = sources.persons.personIdOf(projectId, distinctId);
    const stored = personId === undefined ? undefined : sources.persons.get(projectId, personId);
    if (stored !== undefined) personProperties = mergeOwn(stored.properties, req.personProperties);
  } catch {
    storeError = true;
  }

  const groups: Record<string, string> = {};
  const groupProperties: Record<string, Record<string, unknown>> = {};
  for (const [typeName, key] of Object.entries(req.groups)) {
    groups[typeName] = key;
    const overrides = req.groupProperties[typeName];
    let props: Record<string, unknown> = overrides === undefined ? {} : copyOwn(overrides);
    props.$group_key = key;
    const index = project.groupTypeIndex.get(typeName);
    if (index !== undefined) {
      try {
        const stored = sources.groups.get(projectId, index, key);
        if (stored !== undefined) props = mergeOwn(stored.group_properties, props);
      } catch {
        storeError = true;
      }
    }
    groupProperties[typeName] = props;
  }

  const ctx: EvaluationContext = {
    distinctId,
    personProperties: withMatchTimeProperties(personProperties),
    groups,
    groupProperties,
    now,
  };
  const built: BuiltContext = { ctx, storeError };
  ctx.isInStaticCohort = staticMembership(sources, projectId, distinctId, personId, built);
  if (req.deviceId !== undefined) ctx.deviceId = req.deviceId;
  if (req.flagKeys !== undefined) ctx.flagKeys = req.flagKeys;

  if (project.continuityKeys.length > 0 && continuityRequested(project, req.flagKeys)) {
    const anon = req.anonDistinctId;
    if (anon !== undefined) ctx.anonDistinctId = anon;
    try {
      const overrides = continuityOverrides(projectId, project.continuityKeys, personId, anon, sources);
      if (overrides !== undefined) ctx.hashKeyOverrides = overrides;
    } catch {
      built.storeError = true;
    }
  }
  return built;
}

/**
 * Static cohort membership is kept by distinct id; a person is a member when any of its distinct
 * ids is, as PostHog keeps members by person (so an id merged into a member's person is one too).
 * The person's other ids are read only when the request's own id is not a member. A failed read
 * counts as not a member and is reported (`built.storeError`), so the rest of the answer still
 * goes out.
 */
function staticMembership(
  sources: SubjectSources,
  projectId: number,
  distinctId: string,
  personId: number | undefined,
  built: BuiltContext,
): (cohortId: number) => boolean {
  let otherIds: string[] | undefined;
  return (cohortId) => {
    // Membership is a person's (PostHog's cohort-people rows): an id with no person is in no static cohort.
    if (personId === undefined) return false;
    try {
      if (sources.cohorts.isStaticMember(projectId, cohortId, distinctId)) return true;
      otherIds ??= sources.persons.distinctIdsOf(projectId, personId).filter((id) => id !== distinctId);
      return otherIds.some((id) => sources.cohorts.isStaticMember(projectId, cohortId, id));
    } catch {
      built.storeError = true;
      return false;
    }
  };
}

function continuityRequested(project: ProjectFlags, flagKeys: readonly string[] | undefined): boolean {
  if (flagKeys === undefined) return true;
  return project.continuityKeys.some((k) => flagKeys.includes(k));
}

/**
 * The stored hash keys of the persons of the distinct id and (when sent) the anonymous id. With
 * an anonymous id, the anonymous id is first written as hash key for every continuity flag that
 * has none yet, for both persons (docs/compatibility.md#experience-continuity); the distinct id's
 * person wins. No person, nothing written.
 */
function continuityOverrides(
  projectId: number,
  keys: readonly string[],
  personId: number | undefined,
  anon: string | undefined,
  sources: SubjectSources,
): Record<string, string> | undefined {
  const anonPersonId = anon === undefined ? undefined : sources.persons.personIdOf(projectId, anon);
  const personIds = [...new Set([personId, anonPersonId].filter((id): id is number => id !== undefined))];
  if (personIds.length === 0) return undefined;
  if (anon !== undefined && !sources.overrides.allPresent(projectId, personIds, keys)) {
    // PostHog's hash key column holds 400 characters: a longer id fails its insert, and the
    // request is answered without overrides and with errorsWhileComputingFlags.
    if (exceedsCodePoints(anon, MAX_HASH_KEY_CHARS)) throw new Error(`hash key over ${MAX_HASH_KEY_CHARS} characters`);
    sources.overrides.insertMissing(projectId, personIds, keys, anon);
  }
  const merged: Record<string, string> = {};
  if (anonPersonId !== undefined) for (const [k, v] of sources.overrides.forPerson(projectId, anonPersonId)) merged[k] = v;
  if (personId !== undefined) for (const [k, v] of sources.overrides.forPerson(projectId, personId)) merged[k] = v;
  return merged;
}

/**
 * Organizations, projects, users and personal API keys in the `auth` database.
 * Writes happen in synchronous transactions (they are rare: bootstrap, `hedgerow admin`),
 * which is also what makes them safe when the CLI and the daemon write at the same time.
 * Reads are plain LMDB gets, so a change made by another process is seen on the next request.
 */
import { writeRandomUUID, writeTime } from '../util/write-context.js';
import {
  generatePersonalApiKey,
  generateProjectToken,
  hashPersonalApiKey,
  maskPersonalApiKey,
  personalApiKeyProblem,
  projectTokenProblem,
} from '../auth/keys.js';
import { isAdminLevel, ORGANIZATION_LEVEL, type OrganizationLevel } from '../auth/organization-level.js';
import { TurnMemo } from '../util/turn-memo.js';
import { bumpCounter, nextId, type StoreDatabases } from './open-store.js';

export interface Organization {
  id: string;
  name: string;
  created_at: string;
}

export interface Project {
  id: number;
  uuid: string;
  organization_id: string;
  name: string;
  api_token: string;
  created_at: string;
}

export interface User {
  id: number;
  uuid: string;
  email: string;
  first_name: string;
  /** The user's own distinct id (PostHog gives every user one). */
  distinct_id: string;
  is_staff: boolean;
  organization_id: string;
  /** Organization membership level, as PostHog numbers them (see ORGANIZATION_LEVEL). */
  organization_level: OrganizationLevel;
  current_project_id: number;
  created_at: string;
}

/** PostHog's OrganizationMembership levels (defined in src/auth/organization-level.ts). */
export { ORGANIZATION_LEVEL, type OrganizationLevel };

export function isOrganizationAdmin(user: User): boolean {
  return isAdminLevel(user.organization_level);
}

export interface PersonalApiKey {
  id: string;
  user_id: number;
  label: string;
  /**
   * Empty: an unscoped (legacy) key that may do everything. `['*']`: every action that declares a
   * scope. Otherwise a list such as `feature_flag:read` (a `:write` scope also grants `:read`).
   */
  scopes: string[];
  /** When set and not empty, the only projects the key may be used on. */
  scoped_teams?: number[];
  /** When set, the organizations the key was limited to (a user belongs to one: its own). */
  scoped_organizations?: string[];
  mask_value: string;
  secure_value_hash: string;
  created_at: string;
  /** When the key's secret was last replaced (`roll`); absent on keys never rolled. */
  last_rolled_at?: string | null;
}

/** The changes `updatePersonalApiKey` may make; an absent field is left as it is. */
export interface PersonalApiKeyChanges {
  label?: string;
  scopes?: string[];
  /** `null` or `[]`: no project limit. */
  scopedTeams?: number[] | null;
  scopedOrganizations?: string[] | null;
}

const K = {
  org: (id: string) => `org:${id}`,
  project: (id: number) => `project:${id}`,
  projectToken: (token: string) => `project_token:${token}`,
  user: (id: number) => `user:${id}`,
  userEmail: (email: string) => `user_email:${email.toLowerCase()}`,
  pak: (hash: string) => `pak:${hash}`,
  /**
   * When a key (by id, which a roll keeps) was last used (`noteKeyUse`). In the `meta` database,
   * not `auth`: it is each cluster node's own, like the stream cursor, not replicated state.
   */
  keyUsed: (id: string) => `key_used:${id}`,
};

/** PostHog records a key's use when the recorded one is more than this old. */
const KEY_USE_PRECISION_MS = 60 * 60 * 1000;

/** Token lookups remembered per process (negative answers too); beyond this the cache is cleared. */
const MAX_CACHED_TOKENS = 10_000;
/**
 * Longer tokens and secrets are looked up without being remembered: real ones are ~50 characters,
 * and a client may send megabytes in their place (10,000 remembered failures of 8 MB each was the
 * bound before, held until the next auth write).
 */
const MAX_CACHED_SECRET_CHARS = 256;

export class AuthStore {
  private readonly tokenCache = new Map<string, Project | undefined>();
  private readonly personalKeyCache = new Map<string, { key: PersonalApiKey; user: User } | undefined>();
  private cacheVersion = -1;
  private readonly versionThisTurn = new TurnMemo<string, number>();
  /** Key id → the last use this thread wrote or read for it (ms since the epoch). */
  private readonly usesNoted = new Map<string, number>();

  /** `clock`: now in ms since the epoch, for the keys' last uses (tests move it). */
  constructor(
    private readonly dbs: StoreDatabases,
    private readonly clock: () => number = Date.now,
  ) {}

  // ---- reads (hot path: capture resolves a token on every request) ----

  /**
   * The project of a token. Cached until any auth record changes: every write bumps
   * `auth_version` in the same transaction, and reading that small number is cheaper than the two
   * lookups and the record decoding (measured: ~10% of the main thread's time on /capture/).
   */
  projectByToken(token: string): Project | undefined {
    this.checkCacheVersion();
    if (this.tokenCache.has(token)) return this.tokenCache.get(token);
    const id = this.dbs.auth.get(K.projectToken(token)) as number | undefined;
    const project = id === undefined ? undefined : this.project(id);
    if (token.length <= MAX_CACHED_SECRET_CHARS) {
      if (this.tokenCache.size >= MAX_CACHED_TOKENS) this.tokenCache.clear();
      this.tokenCache.set(token, project);
    }
    return project;
  }

  organization(id: string): Organization | undefined {
    return this.dbs.auth.get(K.org(id)) as Organization | undefined;
  }

  project(id: number): Project | undefined {
    return this.dbs.auth.get(K.project(id)) as Project | undefined;
  }

  user(id: number): User | undefined {
    return this.dbs.auth.get(K.user(id)) as User | undefined;
  }

  userByEmail(email: string): User | undefined {
    const id = this.dbs.auth.get(K.userEmail(email)) as number | undefined;
    return id === undefined ? undefined : this.user(id);
  }

  /** A personal API key by its SHA-256 (a cluster's replicated request carries only that: cluster/cluster-command.ts). */
  personalKeyByHash(hash: string): { key: PersonalApiKey; user: User } | undefined {
    const key = this.dbs.auth.get(K.pak(hash)) as PersonalApiKey | undefined;
    const user = key ? this.user(key.user_id) : undefined;
    return key && user ? { key, user } : undefined;
  }

  /**
   * The key record and its user for a presented secret, or undefined when unknown; a key found is
   * noted as used (`noteKeyUse`). Cached like tokens (SDKs polling flag definitions present the
   * same key every few seconds; the lookup costs a SHA-256 and two record reads). The records
   * returned are shared: do not mutate them.
   */
  personalKey(secret: string): { key: PersonalApiKey; user: User } | undefined {
    const found = this.lookUpPersonalKey(secret);
    if (found) this.noteKeyUse(found.key);
    return found;
  }

  private lookUpPersonalKey(secret: string): { key: PersonalApiKey; user: User } | undefined {
    this.checkCacheVersion();
    if (this.personalKeyCache.has(secret)) return this.personalKeyCache.get(secret);
    const key = this.dbs.auth.get(K.pak(hashPersonalApiKey(secret))) as PersonalApiKey | undefined;
    const user = key ? this.user(key.user_id) : undefined;
    const found = key && user ? { key, user } : undefined;
    if (secret.length <= MAX_CACHED_SECRET_CHARS) {
      if (this.personalKeyCache.size >= MAX_CACHED_TOKENS) this.personalKeyCache.clear();
      this.personalKeyCache.set(secret, found);
    }
    return found;
  }

  /**
   * Records a use of a key as PostHog's `PersonalAPIKeyAuthentication` sets `last_used_at`: when
   * none is recorded or the recorded one is more than an hour old
   * (docs/compatibility.md#personal-api-keys). The time is kept beside the key's record, not in
   * it, and moves no auth version: a use clears no cache and cannot undo a change made to the key
   * meanwhile. It is written asynchronously, so no request waits for it. A write the store
   * refuses (a full disk, a read-only store) is not tried again for an hour either: one small write
   * an hour per key and thread, like a hash key override, is all a key's use adds to a full disk.
   * A use racing the key's deletion may leave the time behind, never read again (key ids are not
   * reused). Per use, one map lookup and a comparison.
   */
  private noteKeyUse(key: PersonalApiKey): void {
    const nowMs = this.clock();
    let noted = this.usesNoted.get(key.id);
    if (noted === undefined) {
      const stored = this.dbs.meta.get(K.keyUsed(key.id)) as string | undefined;
      noted = stored === undefined ? Number.NEGATIVE_INFINITY : Date.parse(stored);
      if (this.usesNoted.size >= MAX_CACHED_TOKENS) this.usesNoted.clear();
      this.usesNoted.set(key.id, noted);
    }
    if (nowMs - noted <= KEY_USE_PRECISION_MS) return;
    this.usesNoted.set(key.id, nowMs);
    try {
      this.dbs.meta.put(K.keyUsed(key.id), new Date(nowMs).toISOString()).catch(() => undefined);
    } catch {
      // As a refused commit: noted, not written.
    }
  }

  /** When the key was last used (to the hour, as PostHog records it), or null. */
  keyLastUsedAt(key: Pick<PersonalApiKey, 'id'>): string | null {
    const stored = (this.dbs.meta.get(K.keyUsed(key.id)) as string | undefined) ?? null;
    // This thread's own note may not be committed yet (the request being answered may be the use),
    // or may have been refused.
    const noted = this.usesNoted.get(key.id);
    if (noted !== undefined && Number.isFinite(noted) && (stored === null || noted > Date.parse(stored)))
      return new Date(noted).toISOString();
    return stored;
  }

  /**
   * Every auth write bumps `auth_version`; the caches hold only while it stays the same. It is
   * read once per event-loop turn (TurnMemo), and this store's own writes make the next check
   * read it again.
   */
  private checkCacheVersion(): void {
    const version = this.versionThisTurn.get(AUTH_VERSION, () => (this.dbs.meta.get(AUTH_VERSION) as number | undefined) ?? 0);
    if (version === this.cacheVersion) return;
    this.tokenCache.clear();
    this.personalKeyCache.clear();
    this.cacheVersion = version;
  }

  /** Projects a user may use: every project of the user's organization. */
  userCanAccessProject(user: User, project: Project): boolean {
    return project.organization_id === user.organization_id;
  }

  organizations(): Organization[] {
    return this.list<Organization>('org:');
  }

  projects(): Project[] {
    return this.list<Project>('project:').sort((a, b) => a.id - b.id);
  }

  users(): User[] {
    return this.list<User>('user:').sort((a, b) => a.id - b.id);
  }

  personalKeys(): PersonalApiKey[] {
    return this.list<PersonalApiKey>('pak:').sort((a, b) => a.created_at.localeCompare(b.created_at));
  }

  /** A key record by its id (keys are stored by the hash of their secret: a user has a few). */
  personalKeyById(id: string): PersonalApiKey | undefined {
    return this.list<PersonalApiKey>('pak:').find((k) => k.id === id);
  }

  isEmpty(): boolean {
    return this.organizations().length === 0;
  }

  /** Call inside the write transaction of every auth change (invalidates token caches). */
  private bumpVersion(): void {
    this.versionThisTurn.forget();
    this.dbs.meta.putSync(AUTH_VERSION, ((this.dbs.meta.get(AUTH_VERSION) as number | undefined) ?? 0) + 1);
  }

  private list<T>(prefix: string): T[] {
    const out: T[] = [];
    // ':' + 1 = ';' bounds the prefix range.
    const end = prefix.slice(0, -1) + ';';
    for (const { value } of this.dbs.auth.getRange({ start: prefix, end })) out.push(value as T);
    return out;
  }

  // ---- writes ----

  createOrganization(name: string): Organization {
    const org: Organization = { id: writeRandomUUID(), name, created_at: now() };
    this.dbs.root.transactionSync(() => {
      this.dbs.auth.putSync(K.org(org.id), org);
      this.bumpVersion();
    });
    return org;
  }

  createProject(input: { name: string; organizationId: string; apiToken?: string; id?: number }): Project {
    const token = input.apiToken ?? generateProjectToken();
    const problem = projectTokenProblem(token);
    if (problem !== undefined) throw new Error(problem);
    return this.dbs.root.transactionSync(() => {
      if (!this.dbs.auth.get(K.org(input.organizationId))) {
        throw new Error(`organization ${input.organizationId} does not exist`);
      }
      if (this.dbs.auth.get(K.projectToken(token)) !== undefined) {
        throw new Error('that api token is already used by another project');
      }
      const id = input.id ?? nextId(this.dbs, 'project');
      if (input.id !== undefined) bumpCounter(this.dbs, 'project', input.id);
      if (this.dbs.auth.get(K.project(id))) throw new Error(`project ${id} already exists`);
      const project: Project = {
        id,
        uuid: writeRandomUUID(),
        organization_id: input.organizationId,
        name: input.name,
        api_token: token,
        created_at: now(),
      };
      this.dbs.auth.putSync(K.project(id), project);
      this.dbs.auth.putSync(K.projectToken(token), id);
      this.bumpVersion();
      return project;
    });
  }

  createUser(input: {
    email: string;
    firstName?: string;
    organizationId: string;
    currentProjectId: number;
    isStaff?: boolean;
    level?: OrganizationLevel;
    /** The user's own distinct id (what `my_flags` evaluates); default a random UUID, as PostHog. */
    distinctId?: string;
  }): User {
    return this.dbs.root.transactionSync(() => {
      if (this.dbs.auth.get(K.userEmail(input.email)) !== undefined) {
        throw new Error(`a user with email ${input.email} already exists`);
      }
      if (!this.project(input.currentProjectId)) throw new Error(`project ${input.currentProjectId} does not exist`);
      const id = nextId(this.dbs, 'user');
      const user: User = {
        id,
        uuid: writeRandomUUID(),
        email: input.email,
        first_name: input.firstName ?? '',
        distinct_id: input.distinctId ?? writeRandomUUID(),
        is_staff: input.isStaff ?? false,
        organization_id: input.organizationId,
        organization_level: input.level ?? ORGANIZATION_LEVEL.member,
        current_project_id: input.currentProjectId,
        created_at: now(),
      };
      this.dbs.auth.putSync(K.user(id), user);
      this.dbs.auth.putSync(K.userEmail(input.email), id);
      this.bumpVersion();
      return user;
    });
  }

  /** Stores a personal API key (hashed) and returns the record and the secret, shown once. */
  createPersonalApiKey(input: {
    userId: number;
    label: string;
    scopes?: string[];
    scopedTeams?: number[];
    scopedOrganizations?: string[];
    secret?: string;
  }): {
    key: PersonalApiKey;
    secret: string;
  } {
    const secret = input.secret ?? generatePersonalApiKey();
    const problem = personalApiKeyProblem(secret);
    if (problem !== undefined) throw new Error(problem);
    const hash = hashPersonalApiKey(secret);
    const key = this.dbs.root.transactionSync(() => {
      if (!this.user(input.userId)) throw new Error(`user ${input.userId} does not exist`);
      if (this.dbs.auth.get(K.pak(hash)) !== undefined) throw new Error('that personal API key already exists');
      const record: PersonalApiKey = {
        id: writeRandomUUID(),
        user_id: input.userId,
        label: input.label,
        scopes: input.scopes ?? [],
        ...(input.scopedTeams && input.scopedTeams.length > 0 ? { scoped_teams: input.scopedTeams } : {}),
        ...(input.scopedOrganizations && input.scopedOrganizations.length > 0 ? { scoped_organizations: input.scopedOrganizations } : {}),
        mask_value: maskPersonalApiKey(secret),
        secure_value_hash: hash,
        created_at: now(),
        last_rolled_at: null,
      };
      this.dbs.auth.putSync(K.pak(hash), record);
      this.bumpVersion();
      return record;
    });
    return { key, secret };
  }

  /** Changes a key's label, scopes or limits; undefined when there is no such key. */
  updatePersonalApiKey(id: string, changes: PersonalApiKeyChanges): PersonalApiKey | undefined {
    return this.dbs.root.transactionSync(() => {
      const current = this.personalKeyById(id);
      if (!current) return undefined;
      const { scoped_teams: _teams, scoped_organizations: _orgs, ...rest } = current;
      const teams = changes.scopedTeams === undefined ? current.scoped_teams : changes.scopedTeams;
      const orgs = changes.scopedOrganizations === undefined ? current.scoped_organizations : changes.scopedOrganizations;
      const updated: PersonalApiKey = {
        ...rest,
        ...(changes.label !== undefined ? { label: changes.label } : {}),
        ...(changes.scopes !== undefined ? { scopes: changes.scopes } : {}),
        ...(teams && teams.length > 0 ? { scoped_teams: teams } : {}),
        ...(orgs && orgs.length > 0 ? { scoped_organizations: orgs } : {}),
      };
      this.dbs.auth.putSync(K.pak(current.secure_value_hash), updated);
      this.bumpVersion();
      return updated;
    });
  }

  /** Deletes a key: it is refused from the next request on, in every thread and process. */
  deletePersonalApiKey(id: string): boolean {
    return this.dbs.root.transactionSync(() => {
      const current = this.personalKeyById(id);
      if (!current) return false;
      this.dbs.auth.removeSync(K.pak(current.secure_value_hash));
      this.dbs.meta.removeSync(K.keyUsed(current.id));
      this.bumpVersion();
      return true;
    });
  }

  /**
   * Gives a key a new secret (PostHog's `roll`): the old secret is refused from the next request
   * on; id, label, scopes and limits stay. Returns the record and the new secret, shown once.
   */
  rollPersonalApiKey(id: string): { key: PersonalApiKey; secret: string } | undefined {
    const secret = generatePersonalApiKey();
    const hash = hashPersonalApiKey(secret);
    const key = this.dbs.root.transactionSync(() => {
      const current = this.personalKeyById(id);
      if (!current) return undefined;
      const rolled: PersonalApiKey = {
        ...current,
        mask_value: maskPersonalApiKey(secret),
        secure_value_hash: hash,
        last_rolled_at: now(),
      };
      this.dbs.auth.removeSync(K.pak(current.secure_value_hash));
      this.dbs.auth.putSync(K.pak(hash), rolled);
      this.bumpVersion();
      return rolled;
    });
    return key && { key, secret };
  }

  /**
   * Gives a project a new API token (PostHog's `reset_token`), generated as new projects' are:
   * the old token is refused from the next request on. Undefined when there is no such project.
   */
  resetProjectToken(id: number): Project | undefined {
    return this.dbs.root.transactionSync(() => {
      const current = this.project(id);
      if (!current) return undefined;
      let token = generateProjectToken();
      while (this.dbs.auth.get(K.projectToken(token)) !== undefined) token = generateProjectToken();
      const updated: Project = { ...current, api_token: token };
      this.dbs.auth.removeSync(K.projectToken(current.api_token));
      this.dbs.auth.putSync(K.projectToken(token), id);
      this.dbs.auth.putSync(K.project(id), updated);
      this.bumpVersion();
      return updated;
    });
  }
}

const AUTH_VERSION = 'auth_version';

function now(): string {
  return writeTime().toISOString();
}

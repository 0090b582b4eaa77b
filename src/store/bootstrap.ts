/**
 * First start on an empty data directory: a default organization, project 1 and an admin user
 * with a personal API key. Keys come from the configuration when given, else they are generated,
 * and either way written once to a file only the owner can read.
 */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { BootstrapConfig } from '../config/schema.js';
import { StartError } from '../start-error.js';
import { ORGANIZATION_LEVEL, type AuthStore } from './auth-store.js';

export const CREDENTIALS_FILE = 'bootstrap-credentials.json';

export interface BootstrapResult {
  projectId: number;
  projectApiKey: string;
  personalApiKey: string;
  adminEmail: string;
  credentialsFile: string;
  /** Whether each key was generated here (and so must be shown to the operator). */
  generated: { projectApiKey: boolean; personalApiKey: boolean };
}

const ADMIN_EMAIL = 'admin@hedgerow.local';

/** What a first start created: the keys, and whether each was generated (and so must be shown). */
export type Defaults = Omit<BootstrapResult, 'credentialsFile'>;

/**
 * Creates the defaults when the store is empty; returns undefined when it was not. Cluster mode
 * runs it as a command every node applies (cluster/command-applier.ts), with the same outcome on each.
 */
export function createDefaultsIfEmpty(auth: AuthStore, keys: BootstrapConfig): Defaults | undefined {
  if (!auth.isEmpty()) return undefined;
  const org = auth.createOrganization('Default organization');
  const project = auth.createProject({
    id: 1,
    name: 'Default project',
    organizationId: org.id,
    ...(keys.projectApiKey ? { apiToken: keys.projectApiKey } : {}),
  });
  const user = auth.createUser({
    email: ADMIN_EMAIL,
    firstName: 'Admin',
    organizationId: org.id,
    currentProjectId: project.id,
    isStaff: true,
    level: ORGANIZATION_LEVEL.owner,
  });
  const { secret } = auth.createPersonalApiKey({
    userId: user.id,
    label: 'bootstrap',
    ...(keys.personalApiKey ? { secret: keys.personalApiKey } : {}),
  });
  return {
    projectId: project.id,
    projectApiKey: project.api_token,
    personalApiKey: secret,
    adminEmail: user.email,
    generated: { projectApiKey: !keys.projectApiKey, personalApiKey: !keys.personalApiKey },
  };
}

/** Creates the defaults when the store is empty and writes the credentials file; returns undefined when it was not. */
export function bootstrapIfEmpty(auth: AuthStore, dataDir: string, keys: BootstrapConfig): BootstrapResult | undefined {
  if (!auth.isEmpty()) return undefined;
  refuseLeftoverCredentials(dataDir);
  const defaults = createDefaultsIfEmpty(auth, keys);
  return defaults === undefined ? undefined : writeCredentialsFile(dataDir, defaults);
}

/**
 * A credentials file left by a store that is gone (its data file deleted): its keys are no use to
 * this one, but may be the operator's only copy, so they are not overwritten. Refused before
 * anything is made, so that the next start, once the file is moved, bootstraps and writes its own.
 */
export function refuseLeftoverCredentials(dataDir: string): void {
  if (existsSync(path.join(dataDir, CREDENTIALS_FILE))) {
    throw new StartError(
      `the data directory ${dataDir} holds no store but holds ${CREDENTIALS_FILE}, the keys of an earlier one: move that file away, then start again`,
    );
  }
}

/** Writes the first start's keys to a file only the owner can read (never over an existing one). */
export function writeCredentialsFile(dataDir: string, d: Defaults): BootstrapResult {
  const credentialsFile = path.join(dataDir, CREDENTIALS_FILE);
  writeFileSync(
    credentialsFile,
    JSON.stringify(
      { project_id: d.projectId, project_api_key: d.projectApiKey, personal_api_key: d.personalApiKey, admin_email: d.adminEmail },
      null,
      2,
    ) + '\n',
    { mode: 0o600, flag: 'wx' },
  );
  return { ...d, credentialsFile };
}

/**
 * The keys the first start generated, kept to be shown until a start of the daemon reaches
 * "ready". They are shown on the operator's terminal then, never logged; a first start that
 * stopped before it was up (its port in use) leaves them for the next start to show, so they are
 * never shown only beside an error. `meta` records which keys were generated (a key the operator
 * configured is theirs already, and is never shown); the keys themselves are read back from the
 * credentials file, the one place they are kept in clear: once that file is gone, so are they.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Database } from 'lmdb';
import { type BootstrapResult, CREDENTIALS_FILE } from './bootstrap.js';

const PENDING = 'first_start_keys_pending';

/** What `meta` holds under PENDING: the records made, and which keys were generated. */
interface Pending {
  project_id: number;
  admin_email: string;
  generated_project_api_key: boolean;
  generated_personal_api_key: boolean;
}

/** The first start's records, and its generated keys (a configured key is left out). */
export interface FirstStartKeys {
  projectId: number;
  adminEmail: string;
  credentialsFile: string;
  projectApiKey?: string;
  personalApiKey?: string;
}

/** After a bootstrap: keeps which keys were generated, when any was, until a start is ready. */
export function rememberGeneratedKeys(meta: Database<unknown, string>, boot: BootstrapResult): void {
  if (!boot.generated.projectApiKey && !boot.generated.personalApiKey) return;
  meta.putSync(PENDING, {
    project_id: boot.projectId,
    admin_email: boot.adminEmail,
    generated_project_api_key: boot.generated.projectApiKey,
    generated_personal_api_key: boot.generated.personalApiKey,
  } satisfies Pending);
}

/** Whether generated keys wait to be shown. */
export function hasGeneratedKeysToShow(meta: Database<unknown, string>): boolean {
  return meta.get(PENDING) !== undefined;
}

/** The generated keys waiting to be shown, read from the credentials file; undefined when none wait or the file is gone. */
export function generatedKeysToShow(meta: Database<unknown, string>, dataDir: string): FirstStartKeys | undefined {
  const pending = meta.get(PENDING) as Pending | undefined;
  if (pending === undefined) return undefined;
  const credentialsFile = path.join(dataDir, CREDENTIALS_FILE);
  let creds: { project_api_key?: unknown; personal_api_key?: unknown };
  try {
    creds = JSON.parse(readFileSync(credentialsFile, 'utf8')) as typeof creds;
  } catch {
    return undefined; // deleted (or emptied) by the operator: nothing left to show
  }
  const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
  const projectApiKey = pending.generated_project_api_key ? text(creds.project_api_key) : undefined;
  const personalApiKey = pending.generated_personal_api_key ? text(creds.personal_api_key) : undefined;
  if (projectApiKey === undefined && personalApiKey === undefined) return undefined;
  return {
    projectId: pending.project_id,
    adminEmail: pending.admin_email,
    credentialsFile,
    ...(projectApiKey ? { projectApiKey } : {}),
    ...(personalApiKey ? { personalApiKey } : {}),
  };
}

/** Once a start is ready: the keys are not shown again. */
export function forgetGeneratedKeys(meta: Database<unknown, string>): void {
  if (hasGeneratedKeysToShow(meta)) meta.removeSync(PENDING);
}

/**
 * The first start's generated keys wait, in a real store, until a start is ready: which keys were
 * generated is kept in `meta`, the keys are read back from the credentials file, and a configured
 * key is never among them.
 */
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CREDENTIALS_FILE, type BootstrapResult } from '../../src/store/bootstrap.js';
import {
  forgetGeneratedKeys,
  generatedKeysToShow,
  hasGeneratedKeysToShow,
  rememberGeneratedKeys,
} from '../../src/store/first-start-keys.js';
import { openStore } from '../../src/store/open-store.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs('hedgerow-first-start-');

async function withStore(run: (meta: ReturnType<typeof openStore>['meta'], dataDir: string) => void): Promise<void> {
  const dataDir = tempDir();
  const dbs = openStore({ dataDir, sync: 'none' });
  try {
    run(dbs.meta, dataDir);
  } finally {
    await dbs.root.close();
  }
}

function boot(dataDir: string, generated: BootstrapResult['generated']): BootstrapResult {
  const credentialsFile = path.join(dataDir, CREDENTIALS_FILE);
  const creds = { project_id: 1, project_api_key: 'phc_p', personal_api_key: 'phx_s', admin_email: 'admin@hedgerow.local' };
  writeFileSync(credentialsFile, JSON.stringify(creds));
  return { projectId: 1, projectApiKey: 'phc_p', personalApiKey: 'phx_s', adminEmail: 'admin@hedgerow.local', credentialsFile, generated };
}

describe('the first start keys waiting to be shown', () => {
  it('are the generated ones, read from the credentials file, until forgotten', () =>
    withStore((meta, dataDir) => {
      expect(generatedKeysToShow(meta, dataDir)).toBeUndefined();
      const b = boot(dataDir, { projectApiKey: true, personalApiKey: false });
      rememberGeneratedKeys(meta, b);
      expect(hasGeneratedKeysToShow(meta)).toBe(true);
      expect(generatedKeysToShow(meta, dataDir)).toEqual({
        projectId: 1,
        adminEmail: 'admin@hedgerow.local',
        credentialsFile: b.credentialsFile,
        projectApiKey: 'phc_p',
      });
      forgetGeneratedKeys(meta);
      expect(hasGeneratedKeysToShow(meta)).toBe(false);
      expect(generatedKeysToShow(meta, dataDir)).toBeUndefined();
      forgetGeneratedKeys(meta); // twice is fine
    }));

  it('are none when every key was configured, or once the credentials file is gone', () =>
    withStore((meta, dataDir) => {
      rememberGeneratedKeys(meta, boot(dataDir, { projectApiKey: false, personalApiKey: false }));
      expect(hasGeneratedKeysToShow(meta)).toBe(false);
      const b = boot(dataDir, { projectApiKey: true, personalApiKey: true });
      rememberGeneratedKeys(meta, b);
      rmSync(b.credentialsFile);
      expect(generatedKeysToShow(meta, dataDir)).toBeUndefined();
    }));
});

/**
 * `npm ci` installs from the committed lock file: it refuses one that does not hold every package
 * package.json may need, other platforms' optional native packages included (msgpackr's and
 * lmdb's prebuilt binaries), and deployments and CI systems that use it stop at their first step.
 * `npm ci --dry-run` checks the same agreement without installing, and needs no network.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/daemon.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'hedgerow-lock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the lock file', () => {
  it('satisfies npm ci', async () => {
    for (const f of ['package.json', 'package-lock.json']) copyFileSync(path.join(REPO_ROOT, f), path.join(dir, f));
    const run = promisify(execFile);
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const result = await run(npm, ['ci', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund'], {
      cwd: dir,
      env: { ...process.env, NPM_CONFIG_CACHE: path.join(dir, 'cache'), NPM_CONFIG_UPDATE_NOTIFIER: 'false' },
    }).catch((err: { stderr?: string; message: string }) => ({ stdout: '', stderr: err.stderr ?? err.message, failed: true }));
    expect('failed' in result ? result.stderr : '').toBe('');
  }, 60_000);
});

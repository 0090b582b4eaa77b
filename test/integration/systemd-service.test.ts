/**
 * Deployment under systemd: the unit passes `systemd-analyze verify` with no warning and equals
 * `config/hedgerow.service`; `hedgerow install-service` puts the executable, unit and environment
 * file in place (keeping an edited environment file); `hedgerow wait-ready` (the unit's
 * ExecStartPost) waits for `/_readyz`; SIGHUP rereads `--env-file` and changes the log level
 * without dropping the daemon.
 */
import { execFile } from 'node:child_process';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { systemdUnit } from '../../src/service/systemd-unit.js';
import { cleanupDaemons, makeTempDir, REPO_ROOT, runCli, startDaemon } from '../helpers/daemon.js';
import { send } from '../helpers/http.js';

afterAll(cleanupDaemons);

const run = promisify(execFile);

async function verify(unitPath: string): Promise<{ code: number; stderr: string }> {
  try {
    const r = await run('systemd-analyze', ['verify', unitPath]);
    return { code: 0, stderr: r.stderr };
  } catch (err) {
    const e = err as { code: number; stderr: string };
    return { code: e.code, stderr: e.stderr };
  }
}

describe('systemd unit', () => {
  it('is the file in config/ and passes systemd-analyze verify without a warning', async () => {
    expect(readFileSync(path.join(REPO_ROOT, 'config/hedgerow.service'), 'utf8')).toBe(systemdUnit());
    const dir = makeTempDir('hedgerow-unit-');
    const binary = path.join(dir, 'hedgerow');
    writeFileSync(binary, '#!/bin/sh\nexit 0\n');
    chmodSync(binary, 0o755);
    const unit = path.join(dir, 'hedgerow.service');
    writeFileSync(unit, systemdUnit({ binary, envFile: path.join(dir, 'hedgerow.env') }));
    const result = await verify(unit);
    expect(result).toEqual({ code: 0, stderr: '' });

    // The check is real: a misspelt key is reported.
    writeFileSync(unit, systemdUnit({ binary, envFile: '/etc/hedgerow/hedgerow.env' }).replace('ProtectClock=', 'ProtectClok='));
    expect((await verify(unit)).stderr).toContain("Unknown key 'ProtectClok'");
  });

  it('install-service puts the executable, the unit and the environment file in place', async () => {
    const root = makeTempDir('hedgerow-root-');
    const source = path.join(makeTempDir('hedgerow-bin-'), 'hedgerow');
    writeFileSync(source, '#!/bin/sh\necho hedgerow\n');
    const install = () => runCli(['install-service', '--root', root, '--binary', source]);
    const first = await install();
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('systemctl daemon-reload && systemctl enable --now hedgerow');
    const mode = (p: string) => statSync(path.join(root, p)).mode & 0o777;
    expect(mode('usr/local/bin/hedgerow')).toBe(0o755);
    expect(readFileSync(path.join(root, 'usr/local/bin/hedgerow'), 'utf8')).toBe('#!/bin/sh\necho hedgerow\n');
    expect(mode('etc/systemd/system/hedgerow.service')).toBe(0o644);
    expect(readFileSync(path.join(root, 'etc/systemd/system/hedgerow.service'), 'utf8')).toBe(systemdUnit());
    expect(mode('etc/hedgerow/hedgerow.env')).toBe(0o600);

    const envFile = path.join(root, 'etc/hedgerow/hedgerow.env');
    writeFileSync(envFile, 'HEDGEROW_PORT=9000\n');
    const second = await install();
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain(`kept ${envFile}`);
    expect(readFileSync(envFile, 'utf8')).toBe('HEDGEROW_PORT=9000\n');

    const notSea = await runCli(['install-service', '--root', root]);
    expect(notSea.code).toBe(2);
    expect(notSea.stderr).toContain('npm run build:binary');
  });

  it('wait-ready returns once /_readyz answers, and fails after its timeout', async () => {
    const d = await startDaemon({ backend: 'uws' });
    const ready = await runCli(['wait-ready', '--host', '127.0.0.1', '--port', String(d.port), '--timeout', '10']);
    expect(ready.code, ready.stderr).toBe(0);
    await d.stop();
    const closed = await runCli(['wait-ready', '--host', '127.0.0.1', '--port', String(d.port), '--timeout', '0.5']);
    expect(closed.code).toBe(1);
    expect(closed.stderr).toContain(`http://127.0.0.1:${d.port}/_readyz was not ready within 0.5 s`);
  });

  it('wait-ready counts a daemon that is up but refusing writes (a disk under the reserve) as started, with a warning', async () => {
    // A reserve no disk here can meet: the daemon starts short of space.
    const d = await startDaemon({ backend: 'uws', env: { HEDGEROW_MIN_FREE_DISK_BYTES: String(2 ** 50) } });
    const readyz = await send(d, '/_readyz');
    expect([readyz.status, (readyz.json as { status: string }).status]).toEqual([503, 'store_unavailable']);
    const ready = await runCli(['wait-ready', '--host', '127.0.0.1', '--port', String(d.port), '--timeout', '10']);
    expect(ready.code).toBe(0);
    expect(ready.stderr).toMatch(
      /^hedgerow: warning: the daemon is up but the store refuses writes: the data directory's disk has \d+ bytes free/,
    );
    // It serves what does not write.
    expect(
      (await send(d, '/flags/?v=2', { method: 'POST', body: JSON.stringify({ api_key: d.projectKey, distinct_id: 'x' }) })).status,
    ).toBe(200);
    await d.stop();
  });

  it('SIGHUP rereads --env-file and changes the log level without dropping the daemon', async () => {
    const envFile = path.join(makeTempDir('hedgerow-env-'), 'hedgerow.env');
    writeFileSync(envFile, 'HEDGEROW_LOG_LEVEL=info\n');
    const d = await startDaemon({ backend: 'uws', args: ['--env-file', envFile], env: { HEDGEROW_LOG_LEVEL: undefined } });
    writeFileSync(envFile, 'HEDGEROW_LOG_LEVEL=debug\n');
    d.child.kill('SIGHUP');
    const deadline = Date.now() + 5000;
    while (!d.records().some((l) => l.msg === 'SIGHUP: reloaded the log level') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(d.records().find((l) => l.msg === 'SIGHUP: reloaded the log level')).toMatchObject({ log_level: 'debug' });
    expect((await send(d, '/_readyz')).status).toBe(200);
    expect(await d.stop()).toBe(0);
  });
});

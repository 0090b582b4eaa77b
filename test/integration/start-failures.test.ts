/**
 * What `hedgerow serve` and the commands that open the store say when they cannot start: one
 * `hedgerow: <message>` line on stderr, the exit code of its class (1: it could not start; 2: the
 * command line or a setting must change), no stack, and for `serve` the same as one JSON log line
 * when stdout is not a terminal. (A second daemon on a served directory is data-dir-lock.test.ts;
 * invalid settings are cli-lifecycle.test.ts.)
 */
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore, SCHEMA_VERSION } from '../../src/store/open-store.js';
import { BACKENDS, cleanupDaemons, makeTempDir, runCli, type CliResult } from '../helpers/daemon.js';

afterAll(cleanupDaemons);

/** `hedgerow serve` on loopback with one worker, to completion (it is expected not to start). */
function serve(env: Record<string, string>, args: string[] = []): Promise<CliResult> {
  return runCli(['serve', ...args], {
    env: { HEDGEROW_HOST: '127.0.0.1', HEDGEROW_PORT: '0', HEDGEROW_WORKERS: '1', HEDGEROW_DATA_DIR: makeTempDir(), ...env },
  });
}

/** The run's stdout as log records. */
function records(r: CliResult): Record<string, unknown>[] {
  return r.stdout
    .trimEnd()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** One line on stderr, the exit code, and the log's last line saying the same, without a stack. */
function expectStartFailure(r: CliResult, code: number, message: string): void {
  expect([r.code, r.stderr]).toEqual([code, `hedgerow: ${message}\n`]);
  expect(records(r).at(-1)).toEqual(expect.objectContaining({ level: 'fatal', msg: `failed to start: ${message}`, exit_code: code }));
  expect(r.stdout).not.toContain('"stack"');
}

function listeningServer(): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

describe.each(BACKENDS)('serve on a port in use (%s backend)', (backend) => {
  it('exits 1 with "address in use" and no stack', async () => {
    const taken = await listeningServer();
    try {
      const { port } = taken.address() as net.AddressInfo;
      const r = await serve({ HEDGEROW_PORT: String(port), HEDGEROW_HTTP_BACKEND: backend });
      expectStartFailure(r, 1, `cannot listen on 127.0.0.1:${port}: address in use`);
    } finally {
      taken.close();
    }
  });
});

describe('a data directory whose store cannot be opened', () => {
  it('a file that is not LMDB: serve and the commands exit 1 with the same words', async () => {
    const dir = makeTempDir();
    writeFileSync(path.join(dir, 'hedgerow.mdb'), 'not an LMDB file');
    const message = `cannot open the data in ${dir}: ${path.join(dir, 'hedgerow.mdb')} is not a Hedgerow data file (no LMDB meta page)`;
    expectStartFailure(await serve({ HEDGEROW_DATA_DIR: dir }), 1, message);
    for (const args of [
      ['events', 'export'],
      ['backup', path.join(makeTempDir(), 'copy')],
      ['admin', 'users', 'list'],
    ]) {
      const r = await runCli([...args, '--data-dir', dir]);
      expect([r.code, r.stderr, r.stdout]).toEqual([1, `hedgerow: ${message}\n`, '']);
    }
  });

  it('a store written by a newer Hedgerow: serve and the commands exit 1 saying so', async () => {
    const dir = makeTempDir();
    const dbs = openStore({ dataDir: dir, sync: 'none' });
    await dbs.meta.put('schema_version', SCHEMA_VERSION + 1);
    await dbs.root.close();
    const message = `cannot open the data in ${dir}: data directory has schema version ${SCHEMA_VERSION + 1}, newer than this Hedgerow (${SCHEMA_VERSION}); upgrade Hedgerow`;
    expectStartFailure(await serve({ HEDGEROW_DATA_DIR: dir }), 1, message);
    const exported = await runCli(['events', 'export', '--data-dir', dir]);
    expect([exported.code, exported.stderr]).toEqual([1, `hedgerow: ${message}\n`]);
  });
});

describe('usage errors', () => {
  it('an unknown option exits 2 in the same form, pointing to the help rather than printing it', async () => {
    const r = await runCli(['serve', '--prot', '9000']);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toBe("hedgerow: unknown option '--prot'\n(Did you mean --port?)\n(hedgerow serve --help shows its usage)\n");
  });

  it('a missing argument or subcommand exits 2', async () => {
    const restore = await runCli(['restore']);
    expect([restore.code, restore.stderr]).toEqual([
      2,
      "hedgerow: missing required argument 'src'\n(hedgerow restore --help shows its usage)\n",
    ]);
    const admin = await runCli(['admin', 'projects']);
    expect(admin.code).toBe(2);
    expect(admin.stderr).toContain('Usage: hedgerow admin projects');
  });

  it('wait-ready exits 2 on a bad setting, as serve does', async () => {
    const r = await runCli(['wait-ready', '--port', 'abc']);
    expect([r.code, r.stderr]).toEqual([
      2,
      'hedgerow: invalid configuration (1 problem):\n  --port="abc": must be an integer between 0 and 65535\n',
    ]);
  });
});

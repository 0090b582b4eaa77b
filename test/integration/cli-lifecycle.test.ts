/**
 * The `hedgerow` command line around the daemon's start and stop: `--help`; bad configuration;
 * unknown variables; first-start credentials; SIGTERM stops cleanly, answers the request in
 * flight and leaves a data directory that reopens. (`admin` against a running daemon is
 * cli-admin.test.ts.)
 */

import { randomUUID } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { BACKENDS, cleanupDaemons, makeTempDir, restartDaemon, runCli, startDaemon } from '../helpers/daemon.js';
import { eventsOf, OK, postJson, send, uniqueId } from '../helpers/http.js';

afterAll(cleanupDaemons);

// Each case is one command run to its end, with no daemon and nothing timed: they run at once.
describe.concurrent('--help and --version', () => {
  it.for([
    [['serve', '--help'], 'Usage: hedgerow serve [options]', '--data-dir <value>'],
    [['serve', '--help'], 'Usage: hedgerow serve [options]', '(default: 8000; env HEDGEROW_PORT)'],
    [['serve', '--help'], 'Usage: hedgerow serve [options]', '(default: none; env HEDGEROW_METRICS_ADDRESS)'],
    [['serve', '--help'], 'Usage: hedgerow serve [options]', 'debug and trace add an access-log line per answered request'],
    [['admin', '--help'], 'Usage: hedgerow admin [options] [command]', 'projects'],
    [['events', '--help'], 'Usage: hedgerow events [options] [command]', 'export'],
    [['events', 'export', '--help'], 'Usage: hedgerow events export [options]', '--since <time>'],
    [['admin', 'keys', 'create', '--help'], 'Usage: hedgerow admin keys create [options]', '--scopes <list>'],
    [['--help'], 'Usage: hedgerow [options] [command]', 'serve'],
  ] satisfies [string[], string, string][])('%j prints usage and exits 0', async ([args, usage, mention], { expect }) => {
    const r = await runCli(args);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe(usage);
    expect(r.stdout).toContain(mention);
  });

  it('--version prints the package version', async ({ expect }) => {
    const pkg = JSON.parse(readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8')) as { version: string };
    const r = await runCli(['--version']);
    expect([r.code, r.stdout.trim()]).toEqual([0, pkg.version]);
  });
});

describe.concurrent('bad configuration', () => {
  const serve = (args: string[], env: Record<string, string> = {}) =>
    runCli(['serve', ...args], { env: { HEDGEROW_DATA_DIR: makeTempDir(), HEDGEROW_PORT: '0', ...env } });

  it('HEDGEROW_PORT=abc exits non-zero naming the setting', async ({ expect }) => {
    const r = await serve([], { HEDGEROW_PORT: 'abc' });
    expect(r.code).toBe(2);
    const message = 'invalid configuration (1 problem):\n  HEDGEROW_PORT="abc": must be an integer between 0 and 65535';
    expect(r.stderr).toBe(`hedgerow: ${message}\n`);
    // stdout is not a terminal here: the log gets the same as its one line.
    expect(
      r.stdout
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown),
    ).toEqual([expect.objectContaining({ level: 'fatal', msg: `failed to start: ${message}`, exit_code: 2 })]);
  });

  it('--workers 999 exits non-zero naming the flag', async ({ expect }) => {
    const r = await serve(['--workers', '999']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'hedgerow: invalid configuration (1 problem):\n  --workers="999": must be an integer between 0 and 256 (0 = one per core)\n',
    );
  });

  it('a data directory that is a file exits non-zero naming the setting', async ({ expect }) => {
    const file = path.join(makeTempDir(), 'not-a-dir');
    writeFileSync(file, '');
    const r = await serve([], { HEDGEROW_DATA_DIR: file });
    expect([r.code, r.stderr]).toEqual([
      2,
      `hedgerow: invalid configuration (1 problem):\n  data directory ${JSON.stringify(file)} (HEDGEROW_DATA_DIR, --data-dir): is not a directory (a file is in its place)\n`,
    ]);
  });

  it('lists every bad setting at once and never echoes a secret', async ({ expect }) => {
    const r = await serve(['--workers', '999', '--http-backend', 'apache'], {
      HEDGEROW_PORT: 'abc',
      HEDGEROW_BOOTSTRAP_PERSONAL_API_KEY: 'phx_secret with spaces',
    });
    expect(r.code).toBe(2);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe('hedgerow: invalid configuration (4 problems):');
    expect(lines.slice(1).map((l) => l.trim().split(':')[0])).toEqual([
      'HEDGEROW_PORT="abc"',
      '--workers="999"',
      '--http-backend="apache"',
      'HEDGEROW_BOOTSTRAP_PERSONAL_API_KEY=(value hidden)',
    ]);
    expect(r.stderr).not.toContain('phx_secret');
  });
});

// The daemons these start are their own (port, data directory) and nothing is timed: they run at
// once, beside the commands above.
describe.concurrent('unknown HEDGEROW_* variables at start', () => {
  it('serve logs a warning naming the nearest setting, and reads the log level in any case', async ({ expect }) => {
    const d = await startDaemon({ backend: 'node', env: { HEDGEROW_PROT: '9000', HEDGEROW_LOG_LEVEL: 'INFO' } });
    const warnings = d.records().filter((r) => r.level === 'warn' && r.msg?.startsWith('unknown'));
    expect(warnings.map((r) => r.msg)).toEqual(['unknown environment variable HEDGEROW_PROT (did you mean HEDGEROW_PORT?); it is ignored']);
    expect(await d.stop()).toBe(0);
  });
});

describe.concurrent('the startup log', () => {
  it("names Hedgerow's version and Node's on its first line and on the ready line", async ({ expect }) => {
    const pkg = JSON.parse(readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8')) as { version: string };
    const d = await startDaemon({ backend: 'node' });
    const versions = { version: pkg.version, node_version: process.versions.node };
    expect(d.records()[0]).toMatchObject({
      level: 'info',
      msg: `starting Hedgerow ${pkg.version} on Node.js ${process.version}`,
      ...versions,
    });
    expect(d.records().find((r) => r.msg === 'ready')).toMatchObject(versions);
    expect(await d.stop()).toBe(0);
  });
});

describe.concurrent('first start', () => {
  it('without bootstrap keys, generates them and writes bootstrap-credentials.json readable only by its owner', async ({ expect }) => {
    const d = await startDaemon({ backend: 'node', projectKey: null, personalKey: null });
    const file = path.join(d.dataDir, 'bootstrap-credentials.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const creds = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    expect(creds).toEqual({
      project_id: 1,
      project_api_key: expect.stringMatching(/^phc_[A-Za-z0-9_-]{43}$/),
      personal_api_key: expect.stringMatching(/^phx_[A-Za-z0-9_-]{43}$/),
      admin_email: 'admin@hedgerow.local',
    });
    // Not on a terminal (a journal, a shipper): the log names the file and holds no key, and no banner is written.
    const first = d.records().find((r) => typeof r.msg === 'string' && r.msg.startsWith('first start'));
    expect(first).toEqual(
      expect.objectContaining({
        level: 'warn',
        project_id: 1,
        admin_email: 'admin@hedgerow.local',
        credentials_file: file,
        generated_keys: ['project_api_key', 'personal_api_key'],
        msg: `first start: created the default organization, project 1 and admin user admin@hedgerow.local; the project API key and personal API key it generated are not logged: read them in ${file} (readable by its owner only)`,
      }),
    );
    expect(d.logs().join('\n')).not.toMatch(new RegExp(`${creds.project_api_key}|${creds.personal_api_key}`));

    const keys = { baseUrl: d.baseUrl, projectKey: String(creds.project_api_key), personalKey: String(creds.personal_api_key) };
    const id = uniqueId('generated');
    const cap = await postJson(keys, '/batch/', { api_key: keys.projectKey, batch: [{ event: 'with generated key', distinct_id: id }] });
    expect([cap.status, cap.json]).toEqual([200, OK]);
    expect((await eventsOf(keys, id)).map((e) => e.event)).toEqual(['with generated key']);
    expect(await d.stop()).toBe(0);

    // A second start keeps the data and the file, prints no keys, and says where they are.
    const again = await restartDaemon(d);
    expect(again.records().some((r) => typeof r.msg === 'string' && r.msg.startsWith('first start'))).toBe(false);
    expect(again.records().find((r) => r.credentials_file === file)).toMatchObject({
      level: 'info',
      msg: `the first start's keys are kept in ${file} (readable by its owner only); once they are stored elsewhere, that file can be deleted`,
    });
    expect(again.logs().join('\n')).not.toMatch(new RegExp(`${creds.project_api_key}|${creds.personal_api_key}`));
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(creds);
    expect((await eventsOf({ ...keys, baseUrl: again.baseUrl }, id)).map((e) => e.event)).toEqual(['with generated key']);
    expect(await again.stop()).toBe(0);
  });

  it('takes a short fixture key such as phc_test as the bootstrap project key', async ({ expect }) => {
    const d = await startDaemon({ backend: 'uws', projectKey: 'phc_test' });
    const id = uniqueId('fixture');
    const cap = await postJson(d, '/batch/', { api_key: 'phc_test', batch: [{ event: 'fixture key', distinct_id: id }] });
    expect([cap.status, cap.json]).toEqual([200, OK]);
    expect((await eventsOf(d, id)).map((e) => e.event)).toEqual(['fixture key']);
    expect(await d.stop()).toBe(0);
  });

  it('with bootstrap keys, uses them and prints neither', async ({ expect }) => {
    const d = await startDaemon({ backend: 'uws' });
    const file = path.join(d.dataDir, 'bootstrap-credentials.json');
    const creds = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    expect(creds).toMatchObject({ project_api_key: d.projectKey, personal_api_key: d.personalKey });
    expect(d.logs().join('\n')).not.toContain(d.personalKey);
    expect(d.logs().join('\n')).not.toContain(d.projectKey);
    expect(d.records().find((r) => typeof r.msg === 'string' && r.msg.startsWith('first start'))).toMatchObject({
      level: 'info',
      generated_keys: [],
      msg: `first start: created the default organization, project 1 and admin user admin@hedgerow.local with the configured keys; they are also kept in ${file}`,
    });
    // One request first: once it is answered the daemon has installed its signal handlers (see the
    // "right after ready" lifecycle case for what happens otherwise).
    expect((await send(d, '/_health')).status).toBe(200);
    expect(await d.stop()).toBe(0);
  });
});

describe.each(BACKENDS)('lifecycle (%s backend)', (backend) => {
  // The two cases timed in hundreds of milliseconds (a request half sent, a shutdown timeout) run
  // one after the other, with no other daemon of this file starting beside them.
  it('SIGTERM exits 0 with a "stopped" line, and the data reopens', async ({ expect }) => {
    const d = await startDaemon({ backend });
    const id = uniqueId('sigterm');
    const uuid = randomUUID();
    const cap = await postJson(d, '/batch/', { api_key: d.projectKey, batch: [{ uuid, event: 'before stop', distinct_id: id }] });
    expect([cap.status, cap.json]).toEqual([200, OK]);

    const stopping = Date.now();
    expect(await d.stop('SIGTERM')).toBe(0);
    // Idle keep-alive connections (fetch keeps one) must not hold the shutdown (default drain timeout 10 s).
    expect(Date.now() - stopping).toBeLessThan(5000);
    const msgs = d.records().map((r) => r.msg);
    expect(msgs).toContain('stopped');
    expect(d.records().find((r) => typeof r.msg === 'string' && r.msg.startsWith('stopping'))).toMatchObject({ signal: 'SIGTERM' });

    const again = await restartDaemon(d);
    expect((await eventsOf(again, id)).map((e) => e.id)).toEqual([uuid]);
    expect(await again.stop('SIGINT')).toBe(0);
    expect(again.records().map((r) => r.msg)).toContain('stopped');
  });

  it('answers a request in flight during SIGTERM, then exits 0', async ({ expect }) => {
    const d = await startDaemon({ backend });
    const id = uniqueId('inflight');
    const uuid = randomUUID();
    const body = Buffer.from(
      JSON.stringify({
        api_key: d.projectKey,
        batch: [{ uuid, event: 'in flight', distinct_id: id, properties: { pad: 'p'.repeat(5000) } }],
      }),
    );
    const half = Math.floor(body.length / 2);
    const req = http.request({
      host: '127.0.0.1',
      port: d.port,
      method: 'POST',
      path: '/batch/',
      headers: { 'content-type': 'application/json', 'content-length': String(body.length) },
    });
    const answered = new Promise<{ status: number; body: string }>((resolve, reject) => {
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      });
      req.on('error', reject);
    });
    req.write(body.subarray(0, half));
    await sleep(300); // the daemon has the headers and half of the body

    const exit = d.stop('SIGTERM');
    await sleep(300);
    expect(d.exited).toBe(false); // waiting for the request
    req.end(body.subarray(half));

    const res = await answered;
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual(OK);
    expect(await exit).toBe(0);
    expect(d.records().map((r) => r.msg)).toContain('stopped');

    const again = await restartDaemon(d);
    expect((await eventsOf(again, id)).map((e) => e.id)).toEqual([uuid]);
    expect(await again.stop()).toBe(0);
  });

  it('a request that never finishes holds the shutdown only for HEDGEROW_SHUTDOWN_TIMEOUT_MS', async ({ expect }) => {
    const d = await startDaemon({ backend, env: { HEDGEROW_SHUTDOWN_TIMEOUT_MS: '500' } });
    const req = http.request({
      host: '127.0.0.1',
      port: d.port,
      method: 'POST',
      path: '/batch/',
      headers: { 'content-type': 'application/json', 'content-length': '1000' },
    });
    const outcome = new Promise<string>((resolve) => {
      req.on('response', (res) => resolve(`HTTP ${res.statusCode}`));
      req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    });
    req.write('{"api_key":');
    await sleep(200);
    const started = Date.now();
    expect(await d.stop('SIGTERM')).toBe(0);
    const ms = Date.now() - started;
    expect(ms).toBeGreaterThanOrEqual(450);
    expect(ms).toBeLessThan(4000);
    expect(d.records().find((r) => r.msg === 'shutdown timeout: closing with requests in flight')).toMatchObject({ in_flight: 1 });
    expect(d.records().map((r) => r.msg)).toContain('stopped');
    expect(await outcome).toBe('ECONNRESET');
  });

  it('SIGTERM sent the moment the "ready" line appears is a clean stop (exit 0, "stopped")', async () => {
    // The race this checks is narrow, so it is tried several times: eight daemons at once, each
    // signalled the moment its own "ready" line appears.
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const d = await startDaemon({ backend });
        d.child.kill('SIGTERM');
        const code = await d.stop();
        return `${code}/${d.child.signalCode ?? '-'}/${d.records().some((r) => r.msg === 'stopped') ? 'stopped' : 'no stopped line'}`;
      }),
    );
    expect(outcomes).toEqual(Array.from({ length: 8 }, () => '0/-/stopped'));
  });
});

/**
 * The single executable (`npm run build:binary`, which `npm test` runs first): copied alone into
 * an empty directory it serves with the native uWS backend, captures what posthog-node sends,
 * evaluates a flag on the processed person, serves posthog-js's bundles under /static/, answers
 * `admin` while serving, exits 0 on SIGTERM, finds its events after a restart and installs itself
 * as a service. Its cache of carried files is checked too: verified, repaired when damaged, safe
 * when several processes start at once on an empty cache, and a clear error when it cannot be
 * written.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, readFileSync, readdirSync, statSync, truncateSync } from 'node:fs';
import path from 'node:path';
import { PostHog } from 'posthog-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AssetManifest } from '../../src/binary/asset-cache.js';
import { apiClient } from '../helpers/api.js';
import {
  REPO_ROOT,
  cleanupDaemons,
  exportEvents,
  makeTempDir,
  restartDaemon,
  runCli,
  startDaemon,
  type DaemonHandle,
} from '../helpers/daemon.js';
import { eventsOf, uniqueId, waitForPersons } from '../helpers/http.js';

afterAll(cleanupDaemons);

const BUILT = path.join(REPO_ROOT, 'dist/hedgerow');
const MANIFEST = path.join(REPO_ROOT, 'dist/binary-build/stage/manifest.json');
const VERSION = (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

function sha256(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** Every file under `dir`, relative, sorted. */
function filesUnder(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as Array<{ isFile(): boolean; parentPath: string; name: string }>)
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}

describe('the single executable', () => {
  let dir: string;
  let exe: string;
  let manifest: AssetManifest;
  let cacheHome: string;
  let versionDir: string;
  /** The data directory the serving daemon made (used again once it has stopped). */
  let dataDir = '';
  const env = (): Record<string, string> => ({ XDG_CACHE_HOME: cacheHome });

  beforeAll(() => {
    if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: run \`npm run build:binary\` (npm test does)`);
    manifest = JSON.parse(readFileSync(MANIFEST, 'utf8')) as AssetManifest;
    dir = makeTempDir('hedgerow-bin-');
    exe = path.join(dir, 'hedgerow');
    copyFileSync(BUILT, exe);
    expect(readdirSync(dir)).toEqual(['hedgerow']);
    cacheHome = makeTempDir('hedgerow-bin-cache-');
    versionDir = path.join(cacheHome, 'hedgerow', `${manifest.version}-${manifest.id}`);
  });

  it('prints the package version', async () => {
    const r = await runCli(['--version'], { executable: exe, cwd: dir, env: env() });
    expect([r.code, r.stdout.trim(), r.stderr]).toEqual([0, VERSION, '']);
  });

  it('has written its carried files to the versioned cache, each with its checksum and mode', () => {
    expect(filesUnder(versionDir)).toEqual(manifest.files.map((f) => f.path).sort());
    for (const f of manifest.files) {
      const file = path.join(versionDir, f.path);
      expect(sha256(file), f.path).toBe(f.sha256);
      expect(statSync(file).mode & 0o777, f.path).toBe(f.mode);
    }
    expect(statSync(path.join(cacheHome, 'hedgerow')).mode & 0o777).toBe(0o700);
  });

  describe('serving', () => {
    let d: DaemonHandle;
    const person = uniqueId('binary');
    const other = uniqueId('binary-other');

    beforeAll(async () => {
      d = await startDaemon({ backend: 'uws', executable: exe, cwd: dir, env: env() });
      dataDir = d.dataDir;
    });

    it('runs the native uWS backend, its workers and its addons from the cache, nothing from the source tree', () => {
      const listening = d.records().find((r) => typeof r.msg === 'string' && r.msg.startsWith('listening on'));
      expect(listening?.http_backend).toBe('uws');
      expect(listening?.msg).toContain('uWebSockets.js (native)');
      const mapped = readFileSync(`/proc/${d.child.pid}/maps`, 'utf8');
      for (const f of manifest.files.filter((file) => file.path.endsWith('.node'))) {
        expect(mapped, f.path).toContain(path.join(versionDir, f.path));
      }
      expect(mapped).not.toContain(REPO_ROOT);
    });

    it('captures through posthog-node and evaluates a flag on the processed person', async () => {
      const admin = apiClient(d, d.personalKey);
      const created = await admin.post('/api/projects/1/feature_flags/', {
        key: 'pro-only',
        filters: { groups: [{ properties: [{ key: 'plan', value: ['pro'], type: 'person' }], rollout_percentage: 100 }] },
      });
      expect(created.status, created.text).toBe(201);

      const ph = new PostHog(d.projectKey, { host: d.baseUrl, flushAt: 1, fetchRetryCount: 0 });
      try {
        ph.capture({ distinctId: person, event: 'binary started', properties: { n: 1 } });
        ph.identify({ distinctId: person, properties: { plan: 'pro' } });
        ph.capture({ distinctId: other, event: 'binary started', properties: { n: 2 } });
        await ph.flush();
        await waitForPersons(d);
        expect(await ph.getFeatureFlag('pro-only', person)).toBe(true);
        expect(await ph.getFeatureFlag('pro-only', other)).toBe(false);
      } finally {
        await ph.shutdown();
      }
      const names = ['binary started', '$identify', '$feature_flag_called'];
      expect((await eventsOf(d, person)).map((e) => e.event)).toEqual(names);
    });

    it("serves posthog-js's browser bundles under /static/ from its cache", async () => {
      const dist = path.join(REPO_ROOT, 'node_modules/posthog-js/dist');
      const carried = manifest.files.filter((f) => f.path.startsWith('node_modules/posthog-js/dist/'));
      expect(carried.map((f) => path.basename(f.path))).toEqual(expect.arrayContaining(['array.js', 'array.full.js', 'recorder.js']));
      const array = await fetch(`${d.baseUrl}/static/array.js`, { headers: { origin: 'https://shop.example' } });
      expect(array.status).toBe(200);
      expect(array.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
      expect(array.headers.get('content-encoding')).toBe('gzip'); // fetch asks for it, and decodes it
      expect(array.headers.get('access-control-allow-origin')).toBe('https://shop.example');
      expect(Buffer.from(await array.arrayBuffer()).equals(readFileSync(path.join(dist, 'array.js')))).toBe(true);
      const again = await fetch(`${d.baseUrl}/static/array.js`, { headers: { 'if-none-match': array.headers.get('etag')! } });
      expect(again.status).toBe(304);
      expect((await fetch(`${d.baseUrl}/static/recorder.js?v=1.260.0`)).status).toBe(200);
      expect((await fetch(`${d.baseUrl}/static/main.js`)).status).toBe(404);
    });

    it('answers admin commands on the same data directory while serving', async () => {
      const r = await runCli(['admin', 'projects', 'list', '--data-dir', d.dataDir], { executable: exe, cwd: dir, env: env() });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(d.projectKey);
    });

    it('exits 0 on SIGTERM and finds its events after a restart; the npm path reads the same data', async () => {
      expect(await d.stop('SIGTERM')).toBe(0);
      expect(d.records().at(-1)?.msg).toBe('stopped');
      d = await restartDaemon(d);
      expect((await eventsOf(d, person)).map((e) => e.event)).toEqual(['binary started', '$identify', '$feature_flag_called']);
      expect((await eventsOf(d, other)).map((e) => [e.event, e.properties.n ?? null])).toEqual([
        ['binary started', 2],
        ['$feature_flag_called', null],
      ]);
      expect(await d.stop()).toBe(0);
      const exported = await exportEvents(d.dataDir);
      expect(exported.filter((e) => e.distinct_id === person)).toHaveLength(3);
    });
  });

  it('installs itself with install-service (no --binary needed)', async () => {
    const root = makeTempDir('hedgerow-bin-root-');
    const r = await runCli(['install-service', '--root', root], { executable: exe, cwd: dir, env: env() });
    expect([r.code, r.stderr]).toEqual([0, '']);
    const installed = path.join(root, 'usr/local/bin/hedgerow');
    expect(sha256(installed)).toBe(sha256(exe));
    expect(statSync(installed).mode & 0o777).toBe(0o755);
    expect(readFileSync(path.join(root, 'etc/systemd/system/hedgerow.service'), 'utf8')).toContain(
      'ExecStart=/usr/local/bin/hedgerow serve --env-file /etc/hedgerow/hedgerow.env',
    );
    expect(statSync(path.join(root, 'etc/hedgerow/hedgerow.env')).mode & 0o777).toBe(0o600);
  });

  it('rewrites a damaged cached addon before loading it', async () => {
    const lmdb = manifest.files.find((f) => f.asset === 'lmdb.node')!;
    const file = path.join(versionDir, lmdb.path);
    truncateSync(file, 1000);
    const r = await runCli(['admin', 'projects', 'list', '--data-dir', dataDir], { executable: exe, cwd: dir, env: env() });
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toContain('Default project');
    expect(sha256(file)).toBe(lmdb.sha256);
  });

  it('lets several processes start at once on an empty cache', async () => {
    const cache = makeTempDir('hedgerow-bin-race-');
    const runs = await Promise.all(
      Array.from({ length: 6 }, () => runCli(['--version'], { executable: exe, cwd: dir, env: { HEDGEROW_CACHE_DIR: cache } })),
    );
    for (const r of runs) expect([r.code, r.stdout.trim(), r.stderr]).toEqual([0, VERSION, '']);
    const root = path.join(cache, `${manifest.version}-${manifest.id}`);
    expect(filesUnder(root)).toEqual(manifest.files.map((f) => f.path).sort());
    for (const f of manifest.files) expect(sha256(path.join(root, f.path)), f.path).toBe(f.sha256);
  });

  it('says which cache directory it cannot use, and exits', async () => {
    const blocker = path.join(makeTempDir(), 'a-file');
    execFileSync('touch', [blocker]);
    const r = await runCli(['--version'], { executable: exe, cwd: dir, env: { HEDGEROW_CACHE_DIR: blocker } });
    expect(r.code).toBe(73);
    expect(r.stderr).toContain('cannot prepare the cache of native modules');
    expect(r.stderr).toContain(blocker);
    expect(r.stderr).toContain('HEDGEROW_CACHE_DIR');
  });
});

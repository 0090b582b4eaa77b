/**
 * Nodes joining a cluster (three real `nats-server` processes on loopback):
 * - The first node, with no keys configured, makes the cluster's defaults and writes its
 *   credentials file; a node started later with an empty data directory catches up from the
 *   stream, makes nothing of its own, and ends with the same records, events and persons.
 * - `hedgerow admin` on one node's data directory changes the records of every node, printing
 *   what a single box prints (a generated key works on every node); so does a PostHog import.
 * - Once the stream no longer reaches back to a new node's (empty) start, the node refuses to run
 *   (exit 2) and says how to start it from a backup; started from a running node's backup, it
 *   catches up from the backup's place in the stream and ends identical to that node.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/api.js';
import { cleanupDaemons, makeTempDir, REPO_ROOT, runCli, startDaemon, type DaemonHandle } from '../helpers/daemon.js';
import { gzip, listAllEvents, send, waitForPersons } from '../helpers/http.js';
import { startNatsCluster, stopNatsClusters, type NatsCluster } from '../helpers/nats-cluster.js';
import { dumpStore } from '../helpers/store-dump.js';

/** Waits for the node to catch up; a timeout's message carries the node's last log lines. */
async function caughtUp(d: DaemonHandle, timeoutMs: number): Promise<void> {
  try {
    await waitForPersons(d, timeoutMs);
  } catch (err) {
    const lines = d
      .records()
      .slice(-40)
      .map((r) => JSON.stringify(r));
    throw new Error(`${err instanceof Error ? err.message : String(err)}; the node's last log lines:\n${lines.join('\n')}`);
  }
}

/** Every record but the node's own cursors. */
const dump = (dataDir: string) => dumpStore(dataDir, ['auth', 'flags', 'persons', 'distinctIds', 'groups', 'meta']);

afterAll(async () => {
  await cleanupDaemons();
  await stopNatsClusters();
});

interface Credentials {
  project_api_key: string;
  personal_api_key: string;
}

describe('cluster mode: joining', () => {
  let nats: NatsCluster;
  let first: DaemonHandle;
  let keys: Credentials;
  const node = (name: string, dataDir?: string) =>
    startDaemon({
      backend: 'uws',
      projectKey: null,
      personalKey: null,
      ...(dataDir ? { dataDir } : {}),
      env: { HEDGEROW_CLUSTER_NATS: nats.servers, HEDGEROW_NODE_NAME: name, HEDGEROW_HTTP_THREADS: '1' },
    });
  const capture = async (d: DaemonHandle, from: number, n: number): Promise<void> => {
    const batch = Array.from({ length: n }, (_, i) => ({
      event: 'joined',
      distinct_id: `user-${(from + i) % 25}`,
      uuid: `00000000-0000-4000-8000-${(from + i).toString(16).padStart(12, '0')}`,
      properties: { $set: { n: from + i } },
    }));
    const r = await send(d, '/batch/', {
      body: gzip(JSON.stringify({ api_key: keys.project_api_key, batch })),
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(r.status).toBe(200);
  };

  beforeAll(async () => {
    nats = await startNatsCluster(3);
    first = await node('first');
    keys = JSON.parse(readFileSync(path.join(first.dataDir, 'bootstrap-credentials.json'), 'utf8')) as Credentials;
  }, 60_000);

  it('makes the defaults once: a later node with an empty data directory catches up and makes none', { timeout: 60_000 }, async () => {
    await capture(first, 0, 200);
    const flag = await apiClient(first, keys.personal_api_key).post('/api/projects/1/feature_flags/', {
      key: 'joined-flag',
      filters: { groups: [{ rollout_percentage: 100 }] },
    });
    expect([flag.status, flag.text]).toEqual([201, expect.any(String)]);
    const second = await node('second');
    expect(existsSync(path.join(second.dataDir, 'bootstrap-credentials.json'))).toBe(false);
    expect(second.records().some((r) => r.msg === 'ready')).toBe(true);
    // The first node's keys work on the second.
    const flags = await apiClient(second, keys.personal_api_key).get('/api/projects/1/feature_flags/');
    expect((flags.json as { results: { key: string }[] }).results.map((f) => f.key)).toEqual(['joined-flag']);
    await capture(second, 200, 100);
    for (const d of [first, second]) await caughtUp(d, 30_000);
    const events = await Promise.all([first, second].map((d) => listAllEvents({ baseUrl: d.baseUrl, personalKey: keys.personal_api_key })));
    expect(events[0]).toHaveLength(300);
    expect(events[1]).toEqual(events[0]);
    expect(await dump(second.dataDir)).toEqual(await dump(first.dataDir));
    await second.stop();
  });

  it('applies `hedgerow admin` changes made on one node on every node, answering as on a single box', { timeout: 60_000 }, async () => {
    const env = { HEDGEROW_CLUSTER_NATS: nats.servers };
    const second = await node('second-again');
    const admin = (args: string[], on: DaemonHandle) => runCli(['admin', ...args, '--data-dir', on.dataDir], { env, timeoutMs: 40_000 });
    const created = await admin(['users', 'create', '--email', 'late@example.com'], first);
    expect([created.code, created.stderr, created.stdout]).toEqual([
      0,
      '',
      expect.stringMatching(/^created user \d+ <late@example.com>\n$/),
    ]);
    // Refused on every node alike, with the single box's message and code.
    const again = await admin(['users', 'create', '--email', 'late@example.com'], second);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/^hedgerow: .*late@example.com/);
    // A key made through the other node works on both (the same secret on each).
    const key = await admin(['keys', 'create', '--user', 'late@example.com', '--full-access', '--json'], second);
    expect([key.code, key.stderr]).toEqual([0, '']);
    const secret = (JSON.parse(key.stdout) as { key: string }).key;
    await caughtUp(first, 30_000); // the first node has applied the stream so far
    for (const d of [first, second]) {
      expect((await apiClient(d, secret).get('/api/projects/1/feature_flags/')).status).toBe(200);
      const list = await admin(['users', 'list'], d);
      expect([list.code, list.stdout]).toEqual([0, expect.stringContaining('late@example.com')]);
    }
    // A PostHog import read on one node is made on both.
    const fixture = path.join(REPO_ROOT, 'test/fixtures/posthog-local-evaluation.json');
    const imported = await admin(['import', 'posthog', '--file', fixture, '--project', '1'], first);
    expect([imported.code, imported.stderr]).toEqual([0, '']);
    expect(imported.stdout.trimEnd().split('\n').at(-1)).toMatch(/^flags 15 created, 0 updated, 0 unchanged, 0 skipped; cohorts 2 created/);
    await caughtUp(second, 30_000);
    const counts = await Promise.all(
      [first, second].map(
        async (d) => ((await apiClient(d, secret).get('/api/projects/1/feature_flags/')).json as { count: number }).count,
      ),
    );
    expect(counts).toEqual([16, 16]);
    await second.stop();
  });

  it('refuses to start where the stream no longer reaches back, and starts from a backup of a running node', {
    timeout: 90_000,
  }, async () => {
    // The stream keeps only its last messages, as its age limit would leave it.
    const nc = await connect({ servers: nats.urls });
    const jsm = await jetstreamManager(nc);
    await jsm.streams.purge('HEDGEROW', { keep: 2 });
    await nc.close();

    const refused = await node('late').then(
      () => undefined,
      (err: Error) => err.message,
    );
    expect(refused).toMatch(/exited during startup with code 2/);
    expect(refused).toMatch(/hedgerow backup/);

    const backup = path.join(makeTempDir(), 'backup');
    expect((await runCli(['backup', backup, '--data-dir', first.dataDir], { timeoutMs: 60_000 })).code).toBe(0);
    await capture(first, 300, 50); // after the backup: the restored node takes these from the stream
    const restoredDir = path.join(makeTempDir(), 'restored');
    expect((await runCli(['restore', backup, '--data-dir', restoredDir])).code).toBe(0);
    const restored = await node('restored', restoredDir);
    for (const d of [first, restored]) await caughtUp(d, 30_000);
    const events = await Promise.all(
      [first, restored].map((d) => listAllEvents({ baseUrl: d.baseUrl, personalKey: keys.personal_api_key })),
    );
    expect(events[0]).toHaveLength(350);
    expect(events[1]).toEqual(events[0]);
    expect(await dump(restoredDir)).toEqual(await dump(first.dataDir));
  });
});

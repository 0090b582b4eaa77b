/**
 * Cluster mode on loopback: three real `nats-server` processes in one JetStream cluster and two
 * Hedgerow nodes. posthog-node captures through both nodes; every acknowledged uuid is read back
 * exactly once from the events API of each node, and both nodes end with the same events (same
 * order), persons, distinct ids, groups and usage rollups, byte for byte.
 */
import { PostHog } from 'posthog-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import { cleanupDaemons, newPersonalKey, newProjectKey, startDaemon, type DaemonHandle } from '../helpers/daemon.js';
import { listAllEvents, send, waitForPersons } from '../helpers/http.js';
import { startNatsCluster, stopNatsClusters, type NatsCluster } from '../helpers/nats-cluster.js';

afterAll(async () => {
  await cleanupDaemons();
  await stopNatsClusters();
});

const USERS = 40;
const EVENTS_PER_NODE = 600;

/** Every person, distinct id, group and usage rollup, as stored. */
async function dump(dataDir: string): Promise<unknown> {
  const dbs = openStore({ dataDir, sync: 'durable', readOnly: true });
  const all = (db: typeof dbs.persons) => [...db.getRange({})].map(({ key, value }) => [key, value]);
  const out = {
    persons: all(dbs.persons),
    distinctIds: all(dbs.distinctIds),
    personDistinctIds: all(dbs.personDistinctIds),
    groups: all(dbs.groups),
    groupTypes: all(dbs.groupTypes),
    usageRollups: all(dbs.usageRollups),
  };
  await dbs.root.close();
  return out;
}

describe('cluster mode: capture through two nodes', () => {
  let nats: NatsCluster;
  const nodes: DaemonHandle[] = [];

  beforeAll(async () => {
    nats = await startNatsCluster(3);
    const projectKey = newProjectKey();
    const personalKey = newPersonalKey();
    for (const name of ['a', 'b']) {
      nodes.push(
        await startDaemon({
          backend: 'uws',
          projectKey,
          personalKey,
          env: { HEDGEROW_CLUSTER_NATS: nats.servers, HEDGEROW_NODE_NAME: name, HEDGEROW_HTTP_THREADS: '1' },
        }),
      );
    }
  }, 90_000);

  it('acknowledges only what the cluster holds, and every node applies all of it identically', { timeout: 120_000 }, async () => {
    const acknowledged = new Set<string>();
    await Promise.all(
      nodes.map(async (d, n) => {
        const ph = new PostHog(d.projectKey, { host: d.baseUrl, flushAt: 50, flushInterval: 0, fetchRetryCount: 0 });
        const errors: unknown[] = [];
        ph.on('error', (e: unknown) => errors.push(e));
        for (let i = 0; i < EVENTS_PER_NODE; i++) {
          const user = `user-${(i * 7 + n) % USERS}`;
          const uuid = `00000000-0000-4000-8${n}00-${i.toString(16).padStart(12, '0')}`;
          if (i % 50 === 7) ph.alias({ distinctId: user, alias: `anon-${n}-${i % USERS}` });
          else if (i % 10 === 3) ph.identify({ distinctId: user, properties: { node: n, step: i } });
          else {
            ph.capture({
              distinctId: user,
              event: i % 5 === 0 ? '$feature_flag_called' : 'clicked',
              uuid,
              properties: { $feature_flag: 'beta', $feature_flag_response: true, i, $set_once: { first_node: n } },
              groups: { company: `co-${i % 3}` },
            });
            acknowledged.add(uuid);
          }
        }
        await ph.shutdown();
        expect(errors).toEqual([]);
      }),
    );

    for (const d of nodes) await waitForPersons(d, 60_000);
    const byNode = await Promise.all(nodes.map((d) => listAllEvents(d)));
    for (const events of byNode) {
      const seen = new Map<string, number>();
      for (const e of events) seen.set(e.id, (seen.get(e.id) ?? 0) + 1);
      for (const uuid of acknowledged) expect(seen.get(uuid), uuid).toBe(1);
    }
    // The same log, in the same order, on both nodes.
    expect(byNode[1]?.map((e) => e.id)).toEqual(byNode[0]?.map((e) => e.id));
    const [a, b] = await Promise.all(nodes.map((d) => dump(d.dataDir)));
    expect((a as { persons: unknown[] }).persons.length).toBeGreaterThanOrEqual(USERS);
    expect(b).toEqual(a);
  });

  it('reports the cluster connection in /_health and the tail in /metrics', async () => {
    const health = await send(nodes[0] as DaemonHandle, '/_health');
    expect(health.json).toMatchObject({ status: 'ok', cluster: { node: 'a', state: 'connected' } });
    const metrics = (await send(nodes[1] as DaemonHandle, '/metrics')).text;
    expect(metrics).toMatch(/^hedgerow_cluster_connected 1$/m);
    expect(metrics).toMatch(/^hedgerow_cluster_tail_blocks_total [1-9]/m);
    expect(metrics).toMatch(/^hedgerow_cluster_publish_acks_total [1-9]/m);
  });
});

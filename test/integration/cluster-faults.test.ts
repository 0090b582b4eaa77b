/**
 * Cluster mode under faults (three real `nats-server` processes on loopback, two Hedgerow nodes):
 * - Under capture load on both nodes, the stream leader's server is killed with SIGKILL and, once
 *   a new leader acknowledges again, started again; then one node is killed and started again; every acknowledged event is on both nodes exactly once, the
 *   persons are identical, and the only answers other than 200 were 503s.
 * - With every server down, capture answers 503 `not_ready` and /_readyz 503 at once; /flags goes
 *   on from the node's own store; once the servers are back, capture is acknowledged again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cleanupDaemons,
  exportEvents,
  newPersonalKey,
  newProjectKey,
  restartDaemon,
  startDaemon,
  type DaemonHandle,
} from '../helpers/daemon.js';
import { gzip, send, waitForPersons } from '../helpers/http.js';
import { startNatsCluster, stopNatsClusters, type NatsCluster } from '../helpers/nats-cluster.js';
import { dumpStore } from '../helpers/store-dump.js';

const dumpPersons = (dataDir: string) => dumpStore(dataDir, ['persons', 'distinctIds', 'personDistinctIds']);

afterAll(async () => {
  await cleanupDaemons();
  await stopNatsClusters();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('cluster mode: faults', () => {
  let nats: NatsCluster;
  const nodes: DaemonHandle[] = [];
  const projectKey = newProjectKey();
  const personalKey = newPersonalKey();
  const start = (name: string) =>
    startDaemon({
      backend: 'uws',
      projectKey,
      personalKey,
      env: {
        HEDGEROW_CLUSTER_NATS: nats.servers,
        HEDGEROW_NODE_NAME: name,
        HEDGEROW_HTTP_THREADS: '1',
        HEDGEROW_CLUSTER_PUBLISH_TIMEOUT_MS: '2000',
      },
    });

  beforeAll(async () => {
    nats = await startNatsCluster(3);
    nodes.push(await start('a'), await start('b'));
  }, 60_000);

  it('loses and doubles nothing when the stream leader’s server and then a node are killed under load', { timeout: 150_000 }, async () => {
    const acked: string[] = [];
    const statuses = new Map<number, number>();
    let stop = false;
    let next = 0;
    const lane = async (which: number): Promise<void> => {
      while (!stop) {
        const d = nodes[which] as DaemonHandle;
        const batch = Array.from({ length: 20 }, () => {
          const n = next++;
          return {
            event: 'loaded',
            distinct_id: `user-${n % 300}`,
            uuid: `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`,
            properties: { $set: { n } },
          };
        });
        try {
          const r = await send(d, '/batch/', {
            body: gzip(JSON.stringify({ api_key: projectKey, batch })),
            headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
            signal: AbortSignal.timeout(10_000),
          });
          statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
          if (r.status === 200) acked.push(...batch.map((e) => e.uuid));
          else await sleep(50);
        } catch {
          // The node is down (killed): nothing was acknowledged.
          await sleep(100);
        }
      }
    };
    /** Resolves once both nodes have acknowledged requests again since the call. */
    const acknowledgedAgain = async (): Promise<void> => {
      const before = statuses.get(200) ?? 0;
      const deadline = Date.now() + 30_000;
      while ((statuses.get(200) ?? 0) < before + 4) {
        if (Date.now() > deadline) throw new Error('no acknowledgement for 30 s');
        await sleep(100);
      }
    };
    const lanes = [lane(0), lane(1)];
    await sleep(1_000);
    const leader = await nats.streamLeader('HEDGEROW');
    expect(leader).toBeDefined();
    const i = nats.indexOf(leader as string);
    await nats.kill(i, 'SIGKILL');
    await sleep(1_000);
    await acknowledgedAgain(); // a new leader was elected
    await nats.start(i);
    const b = nodes[1] as DaemonHandle;
    await b.kill();
    nodes[1] = await restartDaemon(b);
    await acknowledgedAgain();
    stop = true;
    await Promise.all(lanes);

    expect([...statuses.keys()].filter((s) => s !== 200 && s !== 503)).toEqual([]);
    expect(statuses.get(200) ?? 0).toBeGreaterThan(50);
    for (const d of nodes) {
      try {
        await waitForPersons(d, 60_000);
      } catch (err) {
        console.log(
          d
            .logs()
            .filter((l) => /cluster|NATS|error|warn/i.test(l))
            .join('\n'),
        );
        console.log(
          (await send(d, '/metrics')).text
            .split('\n')
            .filter((l) => l.startsWith('hedgerow_cluster'))
            .join('\n'),
        );
        throw err;
      }
    }
    for (const d of nodes) {
      const counts = new Map<string, number>();
      for (const e of await exportEvents(d.dataDir)) counts.set(e.uuid, (counts.get(e.uuid) ?? 0) + 1);
      const missing = acked.filter((u) => counts.get(u) !== 1);
      expect(missing.length, `acknowledged events missing or doubled on ${d.baseUrl}`).toBe(0);
    }
    const [pa, pb] = await Promise.all(nodes.map((d) => dumpPersons(d.dataDir)));
    expect(pb).toEqual(pa);
    console.log(`cluster faults: ${acked.length} events acknowledged; answers ${JSON.stringify(Object.fromEntries(statuses))}`);
  });

  it('answers 503 at once while no server is reachable, serves /flags meanwhile, and recovers', { timeout: 90_000 }, async () => {
    const a = nodes[0] as DaemonHandle;
    for (let i = 0; i < 3; i++) await nats.kill(i, 'SIGTERM');
    // The client notices within its ping interval.
    let capture = await send(a, '/capture/', { body: JSON.stringify({ api_key: projectKey, event: 'down', distinct_id: 'x' }) });
    for (let t = 0; capture.status === 200 && t < 100; t++) {
      await sleep(100);
      capture = await send(a, '/capture/', { body: JSON.stringify({ api_key: projectKey, event: 'down', distinct_id: 'x' }) });
    }
    const started = performance.now();
    capture = await send(a, '/capture/', { body: JSON.stringify({ api_key: projectKey, event: 'down', distinct_id: 'x' }) });
    expect(performance.now() - started).toBeLessThan(500);
    expect([capture.status, (capture.json as { code?: string }).code]).toEqual([503, 'not_ready']);
    expect((await send(a, '/_readyz')).json).toMatchObject({ status: 'cluster_unavailable' });
    const flags = await send(a, '/flags/?v=2', { body: JSON.stringify({ api_key: projectKey, distinct_id: 'x' }) });
    expect(flags.status).toBe(200);

    await nats.startAll();
    const deadline = Date.now() + 60_000;
    for (;;) {
      const r = await send(a, '/capture/', { body: JSON.stringify({ api_key: projectKey, event: 'back', distinct_id: 'x' }) }).catch(
        (err: unknown) => {
          // The node stopped answering: say how it ended, with its last words.
          throw new Error(
            `node a stopped answering (${String(err)}; exited: ${a.exited}); its last log lines:\n${a.logs().slice(-30).join('\n')}`,
          );
        },
      );
      if (r.status === 200) break;
      expect(r.status).toBe(503);
      if (Date.now() > deadline) throw new Error('capture did not recover within 60 s of the servers coming back');
      await sleep(250);
    }
    expect((await send(a, '/_readyz')).status).toBe(200);
  });
});

/**
 * Real `nats-server` processes (Debian's 2.9.10) in one JetStream cluster on loopback, for the
 * cluster-mode tests: each server has its own store directory and monitoring port; servers can
 * be killed (any signal) and started again on the same ports and store.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeTempDir } from './daemon.js';
import { freePort } from './free-port.js';

/** HEDGEROW_NATS_SERVER, else Debian's (on PATH, or in /usr/sbin, which a user's PATH may lack). */
const NATS_SERVER = process.env.HEDGEROW_NATS_SERVER ?? (existsSync('/usr/sbin/nats-server') ? '/usr/sbin/nats-server' : 'nats-server');

interface ServerSlot {
  name: string;
  port: number;
  clusterPort: number;
  monitorPort: number;
  dir: string;
  child: ChildProcess | undefined;
  log: string[];
}

export interface NatsCluster {
  /** `nats://127.0.0.1:port` of each server, in order. */
  readonly urls: string[];
  /** The comma-separated list `HEDGEROW_CLUSTER_NATS` takes. */
  readonly servers: string;
  /** Stops server `i` with `signal` and waits until it has exited. */
  kill(i: number, signal?: NodeJS.Signals): Promise<void>;
  /** Starts server `i` again (same ports, same store) and waits until it is ready. */
  start(i: number): Promise<void>;
  /** Starts every server that is down at once (a lone server is never ready: it needs a quorum). */
  startAll(): Promise<void>;
  /** The name (`n1`…) of the server leading a stream, from the monitoring endpoint. */
  streamLeader(stream: string): Promise<string | undefined>;
  /** Index of a server by name. */
  indexOf(name: string): number;
  logs(i: number): string[];
  stop(): Promise<void>;
}

const live = new Set<NatsCluster>();

export async function startNatsCluster(size = 3): Promise<NatsCluster> {
  const root = makeTempDir('hedgerow-nats-');
  const slots: ServerSlot[] = [];
  for (let i = 0; i < size; i++) {
    slots.push({
      name: `n${i + 1}`,
      port: await freePort(),
      clusterPort: await freePort(),
      monitorPort: await freePort(),
      dir: path.join(root, `n${i + 1}`),
      child: undefined,
      log: [],
    });
  }
  const routes = slots.map((s) => `nats-route://127.0.0.1:${s.clusterPort}`).join(', ');
  for (const s of slots) {
    writeFileSync(
      path.join(root, `${s.name}.conf`),
      [
        `server_name: ${s.name}`,
        `listen: 127.0.0.1:${s.port}`,
        `http: 127.0.0.1:${s.monitorPort}`,
        `max_payload: 8MB`,
        `jetstream { store_dir: "${s.dir}", max_memory_store: 64MB, max_file_store: 4GB }`,
        `cluster { name: hedgerow-test, listen: 127.0.0.1:${s.clusterPort}, routes: [${routes}] }`,
      ].join('\n'),
    );
  }

  const launch = (s: ServerSlot): void => {
    const child = spawn(NATS_SERVER, ['-c', path.join(root, `${s.name}.conf`)], { stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (b: Buffer) => {
      s.log.push(...b.toString().split('\n').filter(Boolean));
      if (s.log.length > 2000) s.log.splice(0, s.log.length - 2000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    s.child = child;
  };
  const ready = async (s: ServerSlot, timeoutMs = 30_000): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        const r = await fetch(`http://127.0.0.1:${s.monitorPort}/healthz`);
        if (r.status === 200) return;
      } catch {
        // not listening yet
      }
      if (s.child?.exitCode !== null && s.child?.exitCode !== undefined) {
        throw new Error(`nats-server ${s.name} exited ${s.child.exitCode}:\n${s.log.slice(-20).join('\n')}`);
      }
      if (Date.now() > deadline) throw new Error(`nats-server ${s.name} not ready after ${timeoutMs} ms:\n${s.log.slice(-20).join('\n')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const metaLeader = async (): Promise<void> => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      for (const s of slots) {
        try {
          const jsz = (await (await fetch(`http://127.0.0.1:${s.monitorPort}/jsz`)).json()) as { meta_cluster?: { leader?: string } };
          if (jsz.meta_cluster?.leader) return;
        } catch {
          // this one is down
        }
      }
      if (Date.now() > deadline) throw new Error('no JetStream meta leader after 30 s');
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  for (const s of slots) launch(s);
  await Promise.all(slots.map((s) => ready(s)));
  await metaLeader();

  const cluster: NatsCluster = {
    urls: slots.map((s) => `nats://127.0.0.1:${s.port}`),
    get servers() {
      return this.urls.join(',');
    },
    async kill(i, signal = 'SIGKILL') {
      const s = slots[i] as ServerSlot;
      const child = s.child;
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill(signal);
      await exited;
    },
    async start(i) {
      const s = slots[i] as ServerSlot;
      launch(s);
      await ready(s);
    },
    async startAll() {
      const down = slots.filter((s) => !s.child || s.child.exitCode !== null || s.child.signalCode !== null);
      for (const s of down) launch(s);
      await Promise.all(down.map((s) => ready(s)));
    },
    async streamLeader(stream) {
      for (const s of slots) {
        try {
          const jsz = (await (await fetch(`http://127.0.0.1:${s.monitorPort}/jsz?streams=true`)).json()) as {
            account_details?: Array<{ stream_detail?: Array<{ name: string; cluster?: { leader?: string } }> }>;
          };
          for (const a of jsz.account_details ?? []) {
            for (const d of a.stream_detail ?? []) if (d.name === stream && d.cluster?.leader) return d.cluster.leader;
          }
        } catch {
          // this one is down
        }
      }
      return undefined;
    },
    indexOf(name) {
      return slots.findIndex((s) => s.name === name);
    },
    logs(i) {
      return [...(slots[i] as ServerSlot).log];
    },
    async stop() {
      live.delete(cluster);
      await Promise.all(slots.map((_, i) => cluster.kill(i, 'SIGTERM')));
    },
  };
  live.add(cluster);
  return cluster;
}

/** Stops every cluster a test file started (for `afterAll`). */
export async function stopNatsClusters(): Promise<void> {
  await Promise.all([...live].map((c) => c.stop()));
}

/** Cluster mode's metrics, on the daemon's registry: publishing, the stream's tail, the connection. */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface ClusterMetrics {
  readonly publishLatency: Histogram;
  readonly publishAcks: Counter;
  readonly publishFailures: Counter;
  readonly tailBehindMessages: Gauge;
  readonly tailLagSeconds: Gauge;
  readonly tailBlocks: Counter;
  readonly connected: Gauge;
  readonly commandsApplied: Counter<'kind'>;
}

export function createClusterMetrics(registry: Registry, nodeName: string): ClusterMetrics {
  const registers = [registry];
  new Gauge({
    name: 'hedgerow_cluster_node_info',
    help: "Always 1 in cluster mode; the label is this node's name",
    labelNames: ['node'] as const,
    registers,
  }).set({ node: nodeName }, 1);
  return {
    publishLatency: new Histogram({
      name: 'hedgerow_cluster_publish_seconds',
      help: "Time from publishing a block of captured events to the events stream until JetStream acknowledged it (a quorum of the stream's servers holds it)",
      buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    publishAcks: new Counter({
      name: 'hedgerow_cluster_publish_acks_total',
      help: 'Blocks of captured events JetStream acknowledged',
      registers,
    }),
    publishFailures: new Counter({
      name: 'hedgerow_cluster_publish_failures_total',
      help: 'Blocks JetStream did not acknowledge (cluster unreachable, timeout): their captures were answered 503',
      registers,
    }),
    tailBehindMessages: new Gauge({
      name: 'hedgerow_cluster_tail_behind_messages',
      help: 'Messages of the events stream this node has not yet written into its own event log',
      registers,
    }),
    tailLagSeconds: new Gauge({
      name: 'hedgerow_cluster_tail_lag_seconds',
      help: 'How long the oldest message of the events stream this node has not written yet has been in the stream (0 when caught up)',
      registers,
    }),
    tailBlocks: new Counter({
      name: 'hedgerow_cluster_tail_blocks_total',
      help: "Blocks of the events stream written into this node's event log",
      registers,
    }),
    commandsApplied: new Counter({
      name: 'hedgerow_cluster_commands_applied_total',
      help: 'Commands of the stream (management writes, the first start) this node applied, by kind',
      labelNames: ['kind'] as const,
      registers,
    }),
    connected: new Gauge({
      name: 'hedgerow_cluster_connected',
      help: '1 while this node is connected to the NATS cluster',
      registers,
    }),
  };
}

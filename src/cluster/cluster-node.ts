/**
 * A node's part in a cluster (HEDGEROW_CLUSTER_NATS set): the connection, the streams (created
 * or checked), the publisher capture commits through, and the tail that writes the events
 * stream into the node's own store. docs/cluster.md tells the whole design.
 */
import type { Logger } from '../observability/logger.js';
import type { ClusterMetrics } from '../observability/cluster-metrics.js';
import { BlockPublisher, PublishFailed } from './block-publisher.js';
import { type ClusterCommand, encodeCommand } from './cluster-command.js';
import { COMMANDS_SUBJECT, LOG_STREAM, ensureStreams } from './cluster-streams.js';
import { EventTail, type TailSink } from './event-tail.js';
import { NatsLink, type LinkState } from './nats-link.js';

export interface ClusterNodeOptions {
  readonly servers: readonly string[];
  readonly nodeName: string;
  readonly replicas: number;
  readonly streamMaxAgeHours: number;
  readonly publishTimeoutMs: number;
  readonly metrics: ClusterMetrics;
  readonly log: Logger;
}

/** What /_health and /_readyz say about the cluster. */
export interface ClusterStatus {
  readonly node: string;
  readonly state: LinkState | 'connecting';
  readonly server?: string;
}

/** Splits HEDGEROW_CLUSTER_NATS into its URLs. */
export function clusterServers(setting: string): string[] {
  return setting
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

export class ClusterNode {
  private link: NatsLink | undefined;
  private publisher: BlockPublisher | undefined;
  private tail: EventTail | undefined;
  private sink: TailSink | undefined;
  private readonly aborted = new AbortController();

  constructor(private readonly opts: ClusterNodeOptions) {}

  /** True once `close()` was called. */
  get closed(): boolean {
    return this.aborted.signal.aborted;
  }

  get metrics(): ClusterMetrics {
    return this.opts.metrics;
  }

  get status(): ClusterStatus {
    const link = this.link;
    if (link === undefined) return { node: this.opts.nodeName, state: 'connecting' };
    const server = link.server;
    return server === undefined ? { node: this.opts.nodeName, state: link.state } : { node: this.opts.nodeName, state: link.state, server };
  }

  /** True while captures can be acknowledged. */
  get connected(): boolean {
    return this.publisher !== undefined && this.link?.state === 'connected';
  }

  /**
   * Connects (waiting for a reachable server as long as it takes, or until `close()`), creates or
   * checks the streams (ClusterSetupError), then starts the tail into `sink` (StreamGapError
   * when the stream no longer reaches back to the node's cursor).
   */
  async start(sink: TailSink, onFatal: (err: Error) => void): Promise<void> {
    const { metrics, log, nodeName } = this.opts;
    // Started again after a failure of the moment: the connection made before is kept.
    const link =
      this.link ??
      (await NatsLink.open(
        {
          servers: this.opts.servers,
          nodeName,
          onState: (state, server) => {
            metrics.connected.set(state === 'connected' ? 1 : 0);
            if (state === 'connected') log.info({ server }, 'connected to the NATS cluster');
            else log.warn({ server }, `NATS cluster connection ${state}`);
          },
        },
        this.aborted.signal,
      ));
    if (this.link === undefined) {
      this.link = link;
      if (this.closed) {
        await link.close();
        throw new Error('closed while connecting');
      }
    }
    metrics.connected.set(1);
    log.info({ server: link.server, node: nodeName }, 'connected to the NATS cluster');
    const checked = await ensureStreams(
      link.jsm,
      { replicas: this.opts.replicas, maxAgeHours: this.opts.streamMaxAgeHours },
      link.maxPayload,
    );
    for (const name of checked.created) log.info({ stream: name, replicas: this.opts.replicas }, `created the JetStream stream ${name}`);
    for (const w of checked.warnings) log.warn(w);
    const tail = new EventTail(link, sink, {
      onProgress: (behind, lagSeconds) => {
        metrics.tailBehindMessages.set(behind);
        metrics.tailLagSeconds.set(lagSeconds);
      },
      onBlocks: (blocks) => metrics.tailBlocks.inc(blocks),
      onError: (error) => log.error({ error }, 'cluster: reading the events stream failed; starting again from the last block written'),
      onFatal,
    });
    await tail.start();
    this.tail = tail;
    if (this.closed) await tail.stop();
    this.sink = sink;
    this.publisher = new BlockPublisher(link, nodeName, this.opts.publishTimeoutMs);
  }

  /** The largest message the servers take (their max_payload), once connected. */
  get maxMessageBytes(): number {
    return this.link?.maxPayload ?? 1024 * 1024;
  }

  /** Capture's commit: resolves once the cluster holds the block; throws PublishFailed otherwise. */
  async publish(block: Uint8Array, events: number): Promise<void> {
    const publisher = this.publisher;
    if (publisher === undefined) throw new PublishFailed('not connected to the NATS cluster yet');
    const { metrics } = this.opts;
    const started = performance.now();
    try {
      await publisher.publish(block, events);
    } catch (err) {
      metrics.publishFailures.inc();
      throw err;
    }
    metrics.publishLatency.observe((performance.now() - started) / 1000);
    metrics.publishAcks.inc();
  }

  /** Publishes a command; resolves once the stream holds it (PublishFailed otherwise). */
  async publishCommand(command: ClusterCommand): Promise<void> {
    const link = this.link;
    if (link === undefined || link.state !== 'connected')
      throw new PublishFailed(`the connection to the NATS cluster is ${link?.state ?? 'not open yet'}`);
    try {
      await link.js.publish(COMMANDS_SUBJECT, encodeCommand(command), { msgID: command.id, timeout: this.opts.publishTimeoutMs });
    } catch (err) {
      throw new PublishFailed((err as Error)?.message ?? String(err));
    }
  }

  /**
   * Waits until this node has written every message the events stream held at the call (for
   * `/_persons/caught_up`); false when `timeoutMs` passed first or the cluster is not reached.
   */
  async tailCaughtUp(timeoutMs: number): Promise<boolean> {
    const link = this.link;
    const sink = this.sink;
    if (link === undefined || sink === undefined) return false;
    const deadline = Date.now() + timeoutMs;
    let last: number;
    try {
      last = (await link.jsm.streams.info(LOG_STREAM)).state.last_seq;
    } catch {
      return false;
    }
    while (sink.position().seq < last) {
      if (Date.now() >= deadline) return false;
      await new Promise((r) => setTimeout(r, 5));
    }
    return true;
  }

  async close(): Promise<void> {
    this.aborted.abort(new Error('closing'));
    this.publisher = undefined;
    await this.tail?.stop();
    await this.link?.close();
  }
}

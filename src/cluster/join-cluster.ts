/**
 * A node joining its cluster at start: the connection and the streams (ClusterNode), the tail
 * that writes the stream's blocks into the node's event log and applies its commands
 * (CommandApplier), then, once the node has applied what the stream held, management writes
 * through the stream (ReplicatedWrites) and the cluster's defaults when it has none yet.
 */
import type { BootstrapConfig } from '../config/schema.js';
import type { Router } from '../http/router.js';
import type { HttpRequest, HttpResponse } from '../http/types.js';
import type { IngestPipeline } from '../ingest/ingest-pipeline.js';
import type { Logger } from '../observability/logger.js';
import type { AuthStore } from '../store/auth-store.js';
import type { BootstrapResult } from '../store/bootstrap.js';
import type { HashKeyWrite } from '../store/hash-key-override-store.js';
import type { EventKey, StoreDatabases } from '../store/open-store.js';
import type { ClusterNode } from './cluster-node.js';
import type { StreamBlock } from '../store/stream-event-log.js';
import { ClusterSetupError } from './cluster-streams.js';
import { CommandApplier, type CommandApplierDeps } from './command-applier.js';
import { StreamGapError } from './event-tail.js';
import { ReplicatedWrites } from './replicated-writes.js';

export interface JoinClusterDeps {
  readonly cluster: ClusterNode;
  readonly pipeline: IngestPipeline;
  readonly dbs: StoreDatabases;
  readonly router: Router;
  readonly auth: AuthStore;
  readonly bootstrap: BootstrapConfig;
  readonly dataDir: string;
  readonly nodeName: string;
  readonly log: Logger;
  /** Runs an `hedgerow admin` action the stream carries against this node's store. */
  readonly runAdmin: CommandApplierDeps['runAdmin'];
}

export interface Joined {
  /** A management write, through the stream. */
  replicate(req: HttpRequest): Promise<HttpResponse>;
  /** Experience-continuity hash keys this node's `/flags` requests wrote, for every node. */
  hashKeys(writes: readonly HashKeyWrite[]): void;
  /** What this node's first-start command created, when it was the one. */
  readonly bootstrap: BootstrapResult | undefined;
}

/** Rejects with ClusterSetupError or StreamGapError when the node cannot run in this cluster, or when it is closed first. */
export async function joinCluster(deps: JoinClusterDeps, onFatal: (err: Error) => void): Promise<Joined> {
  const { cluster, pipeline, dbs, auth, log } = deps;
  const streamLog = pipeline.streamLog;
  const applier = new CommandApplier({
    dbs,
    streamLog,
    router: deps.router,
    auth,
    processorCaughtUp: () => processorCaughtUp(pipeline, dbs, log, () => cluster.closed),
    onApplied: (kind) => cluster.metrics.commandsApplied.inc({ kind }),
    runAdmin: deps.runAdmin,
    closing: () => cluster.closed,
    log,
  });
  const sink = {
    position: () => streamLog.position,
    write: (blocks: readonly StreamBlock[], events: number) => pipeline.appendFromStream(blocks, events),
    command: (seq: number, data: Uint8Array) => applier.apply(seq, data),
  };
  for (;;) {
    try {
      await cluster.start(sink, onFatal);
      break;
    } catch (err) {
      // Settings the node cannot use, or a stream that no longer reaches back, need the operator.
      if (err instanceof ClusterSetupError || err instanceof StreamGapError || cluster.closed) throw err;
      log.warn({ error: (err as Error)?.message ?? String(err) }, 'cluster: joining failed; trying again in 2 s');
      await new Promise((r) => setTimeout(r, 2_000));
    }
  }
  // Writes are taken once the node has applied what the stream held when it joined: a write
  // checked against an older state would be refused where the cluster would take it, or the reverse.
  while (!(await cluster.tailCaughtUp(10_000))) {
    if (cluster.closed) throw new Error('closed while joining');
    log.warn('cluster: still applying the stream before taking management writes');
    await new Promise((r) => setTimeout(r, 1_000));
  }
  const writes = new ReplicatedWrites(cluster, applier, deps.nodeName, log);
  const bootstrap = await writes.bootstrapIfEmpty(auth, deps.bootstrap, deps.dataDir);
  return { replicate: (req) => writes.replicate(req, auth), hashKeys: (w) => writes.hashKeys(w), bootstrap };
}

/** Resolves once the person processor has applied every block of the node's event log (a command reads what it wrote). */
async function processorCaughtUp(pipeline: IngestPipeline, dbs: StoreDatabases, log: Logger, closing: () => boolean): Promise<void> {
  for (;;) {
    if (closing()) throw new Error('stopping: the command is applied after the restart');
    const processor = pipeline.processor;
    // Without a processor (stopping, or crashed) nothing will move: the command goes on.
    if (processor === undefined || pipeline.processorFailed) return;
    dbs.root.resetReadTxn();
    let last: EventKey | undefined;
    for (const key of dbs.events.getKeys({ reverse: true, limit: 1 })) last = key;
    if (await processor.caughtUp(last, 10_000)) return;
    log.warn('cluster: a command waits for the person processor to catch up');
  }
}

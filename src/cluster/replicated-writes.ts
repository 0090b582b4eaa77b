/**
 * The receiving side of a management write in cluster mode: the request becomes a command of
 * the stream, and the node answers with what applying it on its own store came to, once it has
 * (cluster/command-applier.ts). Also the first start's defaults, made once for the cluster.
 */
import { catalogueError } from '../errors.js';
import type { HttpRequest, HttpResponse } from '../http/types.js';
import type { BootstrapConfig } from '../config/schema.js';
import type { AuthStore } from '../store/auth-store.js';
import { type BootstrapResult, refuseLeftoverCredentials, writeCredentialsFile } from '../store/bootstrap.js';
import { checkAuthenticated } from '../http/api-request.js';
import type { Logger } from '../observability/logger.js';
import type { HashKeyWrite } from '../store/hash-key-override-store.js';
import { bootstrapCommand, type ClusterCommand, encodeCommand, hashKeysCommand, httpCommand } from './cluster-command.js';
import type { ClusterNode } from './cluster-node.js';
import type { Applied, CommandApplier } from './command-applier.js';

/**
 * How long a write waits for its command to be applied on the receiving node: the person
 * processor's backlog (HEDGEROW_MAX_PERSON_BACKLOG events) comes first.
 */
const ANSWER_TIMEOUT_MS = 30_000;
/** The first start waits for its own proposal as long as it takes (a day): only this node knows generated keys. */
const BOOTSTRAP_TIMEOUT_MS = 24 * 3600_000;

/** Room for a command's fields besides the body. */
const COMMAND_ROOM = 64 * 1024;

export class ReplicatedWrites {
  private hashKeyBatch: HashKeyWrite[] = [];

  constructor(
    private readonly node: ClusterNode,
    private readonly applier: CommandApplier,
    private readonly nodeName: string,
    private readonly log: Logger,
  ) {}

  /**
   * A management write: answered with this node's outcome of applying it, or 503 `not_ready`. A
   * request no stored key authenticates is answered here, never put in the stream (every node
   * would refuse it alike).
   */
  async replicate(req: HttpRequest, auth: AuthStore): Promise<HttpResponse> {
    checkAuthenticated(auth, req);
    const command = httpCommand(req, this.nodeName);
    if (encodeCommand(command).byteLength > this.node.maxMessageBytes) {
      throw catalogueError('HR_BODY_TOO_LARGE', { max_bytes: this.node.maxMessageBytes - COMMAND_ROOM });
    }
    const applied = await this.run(command);
    if (applied.kind !== 'http') throw new Error('a request command came back as another kind');
    return applied.response;
  }

  /**
   * Once the node has applied the whole stream: when the cluster has no defaults yet, proposes
   * this node's; the first such command in the stream makes them on every node. Returns what this
   * node's command created (its credentials file written), or undefined.
   */
  async bootstrapIfEmpty(auth: AuthStore, keys: BootstrapConfig, dataDir: string): Promise<BootstrapResult | undefined> {
    if (!auth.isEmpty()) return undefined;
    refuseLeftoverCredentials(dataDir);
    // One command, published until the stream takes it: a retry has its message id, so the stream
    // keeps one, and this node hears its outcome however late (generated keys are known only here).
    const command = bootstrapCommand(keys, this.nodeName);
    const { outcome, forget } = this.applier.expect(command.id, BOOTSTRAP_TIMEOUT_MS);
    for (;;) {
      try {
        await this.node.publishCommand(command);
        break;
      } catch (err) {
        if (this.node.closed) {
          forget();
          throw err;
        }
        this.log.warn(
          { error: (err as Error)?.message ?? String(err) },
          "cluster: proposing the cluster's defaults failed; trying again in 2 s",
        );
        await new Promise((r) => setTimeout(r, 2_000));
      }
    }
    const applied = await outcome;
    return applied.kind === 'bootstrap' && applied.created ? writeCredentialsFile(dataDir, applied.created) : undefined;
  }

  /**
   * Experience-continuity hash keys `/flags` requests on this node wrote: published without
   * waiting (the request was answered with them already); every node, this one included,
   * applies them in the stream's order. Gathered per event-loop turn.
   */
  hashKeys(writes: readonly HashKeyWrite[]): void {
    if (this.hashKeyBatch.length === 0) {
      setImmediate(() => {
        const batch = this.hashKeyBatch;
        this.hashKeyBatch = [];
        this.node.publishCommand(hashKeysCommand(batch, this.nodeName)).catch((err: unknown) => {
          this.log.warn(
            { error: (err as Error)?.message ?? String(err), writes: batch.length },
            'cluster: hash keys of /flags requests not published',
          );
        });
      });
    }
    this.hashKeyBatch.push(...writes);
  }

  private async run(command: ClusterCommand): Promise<Applied> {
    const { outcome, forget } = this.applier.expect(command.id, ANSWER_TIMEOUT_MS);
    try {
      await this.node.publishCommand(command);
    } catch (err) {
      forget();
      throw catalogueError('HR_CLUSTER_WRITE_UNAVAILABLE', { reason: (err as Error)?.message ?? String(err) });
    }
    try {
      return await outcome;
    } catch (err) {
      throw catalogueError('HR_CLUSTER_WRITE_UNAVAILABLE', {
        reason: `the cluster holds the change, but this node has ${(err as Error).message}`,
      });
    }
  }
}

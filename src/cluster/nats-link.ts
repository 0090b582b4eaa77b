/**
 * The node's connection to the NATS cluster (cluster mode): one connection for the whole daemon,
 * reconnecting for ever, with its state for /_readyz, /_health and capture (a capture while the
 * connection is down is answered 503 at once instead of waiting for a publish to time out).
 */
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';

export type LinkState = 'connected' | 'reconnecting' | 'closed';

export interface NatsLinkOptions {
  readonly servers: readonly string[];
  readonly nodeName: string;
  /** Told of each change of state, with the server when there is one. */
  readonly onState?: (state: LinkState, server: string | undefined) => void;
}

export class NatsLink {
  private stateNow: LinkState = 'connected';
  private serverNow: string | undefined;

  /** Connects, trying every server in turn until one answers (or `signal` aborts). */
  static async open(opts: NatsLinkOptions, signal: AbortSignal): Promise<NatsLink> {
    for (let attempt = 0; ; attempt++) {
      if (signal.aborted) throw signal.reason;
      try {
        const nc = await connect({
          servers: [...opts.servers],
          name: `hedgerow:${opts.nodeName}`,
          maxReconnectAttempts: -1,
          reconnectTimeWait: 250,
          reconnectJitter: 100,
          // A server that stops answering is noticed within ~6 s, then the next one is tried.
          pingInterval: 2_000,
          maxPingOut: 3,
          timeout: 2_000,
        });
        try {
          const jsm = await jetstreamManager(nc, { timeout: 5_000 });
          return new NatsLink(nc, jsm, opts);
        } catch (err) {
          await nc.close().catch(() => undefined); // JetStream not answering yet: the next attempt connects anew
          throw err;
        }
      } catch (err) {
        if (attempt === 0 || attempt % 10 === 0) opts.onState?.('reconnecting', String((err as Error)?.message ?? err));
        await abortableDelay(Math.min(2_000, 250 * (attempt + 1)), signal);
      }
    }
  }

  readonly js: JetStreamClient;

  private constructor(
    readonly nc: NatsConnection,
    readonly jsm: JetStreamManager,
    private readonly opts: NatsLinkOptions,
  ) {
    this.js = jetstream(nc, { timeout: 5_000 });
    this.serverNow = nc.getServer();
    void this.watch();
  }

  get state(): LinkState {
    return this.stateNow;
  }

  /** The server the connection is on (`host:port`), while connected. */
  get server(): string | undefined {
    return this.stateNow === 'connected' ? this.serverNow : undefined;
  }

  /** The largest message the servers take, in bytes (their `max_payload`). */
  get maxPayload(): number {
    return this.nc.info?.max_payload ?? 1024 * 1024;
  }

  async close(): Promise<void> {
    if (this.stateNow === 'closed') return;
    this.stateNow = 'closed';
    await this.nc.close().catch(() => undefined);
  }

  private async watch(): Promise<void> {
    for await (const s of this.nc.status()) {
      if (s.type === 'disconnect') this.set('reconnecting', s.server);
      else if (s.type === 'reconnect') this.set('connected', s.server);
      else if (s.type === 'close') this.set('closed', undefined);
    }
  }

  private set(state: LinkState, server: string | undefined): void {
    if (this.stateNow === 'closed') return;
    this.stateNow = state;
    this.serverNow = server;
    this.opts.onState?.(state, server);
  }
}

function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

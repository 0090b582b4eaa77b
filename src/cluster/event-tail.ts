/**
 * Every node's copy of the events stream: an ordered consumer from the node's stored stream
 * cursor, whose messages are written into the node's own event log (with the cursor, in one
 * transaction) in batches of what has arrived, and handed to the person processor as the
 * capture path hands its blocks in the embedded mode. A failure (the store refusing writes, the
 * consumer lost) starts again from the committed cursor after a pause.
 */
import { DeliverPolicy, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import type { StreamBlock, StreamCursor } from '../store/stream-event-log.js';
import { EVENTS_HEADER, MICROS_HEADER } from './block-publisher.js';
import { COMMANDS_SUBJECT, LOG_STREAM } from './cluster-streams.js';
import type { NatsLink } from './nats-link.js';

/** Blocks written in one transaction at most. */
const MAX_BATCH_BLOCKS = 256;
const RETRY_MS = 1_000;
/** A consumer silent this long while the stream holds more than the node wrote is made again. */
const STALL_MS = 10_000;
const STALL_CHECK_MS = 2_500;

export interface TailSink {
  /** The stream position committed last. */
  position(): StreamCursor;
  /** Writes the blocks (in stream order, after `position()`) and their cursor in one commit. */
  write(blocks: readonly StreamBlock[], events: number): Promise<void>;
  /** Applies the command at `seq` (the blocks before it written), its cursor with it. */
  command(seq: number, data: Uint8Array): Promise<void>;
}

export interface TailHooks {
  /** After each commit: messages still behind in the stream, and how old the oldest of them is. */
  onProgress(behind: number, lagSeconds: number): void;
  /** Blocks written into the node's event log. */
  onBlocks(blocks: number): void;
  onError(error: string): void;
  /** The stream lost messages this node had not read (StreamGapError): it cannot go on. */
  onFatal(err: Error): void;
}

/** The stream no longer holds the messages after the node's cursor: it cannot catch up from it. */
export class StreamGapError extends Error {
  constructor(
    readonly after: number,
    readonly firstHeld: number,
  ) {
    super(
      `the events stream ${LOG_STREAM} starts at message ${firstHeld}, but this node holds events only up to ${after}: the messages between have expired (HEDGEROW_CLUSTER_STREAM_MAX_AGE_HOURS). Start it from a backup of a running node: \`hedgerow backup DIR\` there, then \`hedgerow restore DIR --data-dir …\` here (docs/cluster.md#joining-a-cluster)`,
    );
  }
}

export class EventTail {
  private stopped = false;
  private messages: ConsumerMessages | undefined;
  private running: Promise<void> | undefined;
  /** When the last message arrived (or the consumer was made). */
  private lastArrival = Date.now();
  /** True while a batch or command is being written (a slow write is not a stalled consumer). */
  private busy = false;
  private stalled = false;
  /** Blocks read and not yet written (more were pending). */
  private batch: StreamBlock[] = [];
  private batchEvents = 0;
  /** The sequence the next message must have. */
  private expected = 0;

  constructor(
    private readonly link: NatsLink,
    private readonly sink: TailSink,
    private readonly hooks: TailHooks,
  ) {}

  /** Throws StreamGapError when the stream cannot bring this node up to date; then tails in the background. */
  async start(): Promise<void> {
    await this.checkReachable();
    this.running = this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.messages?.close();
    await this.running;
  }

  private async checkReachable(): Promise<void> {
    const info = await this.link.jsm.streams.info(LOG_STREAM);
    const after = this.sink.position().seq;
    // An empty stream whose first sequence is past the node's next: its messages expired unread.
    if (info.state.first_seq > after + 1) throw new StreamGapError(after, info.state.first_seq);
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.follow();
      } catch (err) {
        if (this.stopped) return;
        if (err instanceof StreamGapError) {
          this.stopped = true;
          this.hooks.onFatal(err);
          return;
        }
        this.hooks.onError((err as Error)?.message ?? String(err));
        await new Promise((r) => setTimeout(r, RETRY_MS));
      }
    }
  }

  private async follow(): Promise<void> {
    const from = this.sink.position().seq + 1;
    const consumer = await this.link.js.consumers.get(LOG_STREAM, {
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: from,
    });
    // A request for more every 5 s (heartbeats every 2.5 s when idle): a consumer lost with its
    // server (a stream leader killed) is noticed and made again within ~5 s, not the default 30 s.
    const messages = await consumer.consume({ max_messages: 1024, expires: 5_000 });
    this.messages = messages;
    if (this.stopped) await messages.close();
    const watchdog = setInterval(() => void this.checkStalled(messages), STALL_CHECK_MS);
    try {
      await this.drain(messages);
    } finally {
      clearInterval(watchdog);
      await messages.close();
    }
    if (this.stalled) {
      this.stalled = false;
      throw new Error(`no message arrived for ${STALL_MS / 1000} s while the stream held more: reading it again`);
    }
  }

  /**
   * A consumer that stops delivering while the stream holds more than the node has written (its
   * server lost, and the client's own recovery not done) is closed, so the loop makes a new one.
   */
  private async checkStalled(messages: ConsumerMessages): Promise<void> {
    if (this.stopped || this.busy || Date.now() - this.lastArrival < STALL_MS) return;
    try {
      const info = await this.link.jsm.streams.info(LOG_STREAM);
      if (info.state.last_seq <= this.sink.position().seq || Date.now() - this.lastArrival < STALL_MS) return;
    } catch {
      return; // the cluster is unreachable: nothing to read either
    }
    this.stalled = true;
    await messages.close();
  }

  private async drain(messages: ConsumerMessages): Promise<void> {
    this.batch = [];
    this.batchEvents = 0;
    this.expected = this.sink.position().seq + 1;
    this.lastArrival = Date.now();
    for await (const m of messages) {
      this.lastArrival = Date.now();
      this.busy = true;
      try {
        await this.take(m);
      } finally {
        this.busy = false;
        this.lastArrival = Date.now();
      }
      if (this.stopped) break;
    }
  }

  /** One message: a block joins the batch (written once no more are pending, or it is full); a command is applied after the batch. */
  private async take(m: JsMsg): Promise<void> {
    // The stream's sequences have no holes but expired ones: one here is messages this node never had.
    if (m.seq !== this.expected) throw new StreamGapError(this.expected - 1, m.seq);
    this.expected = m.seq + 1;
    if (m.subject === COMMANDS_SUBJECT) {
      await this.flush();
      await this.sink.command(m.seq, m.data);
      this.progress(m);
      return;
    }
    this.batch.push({
      seq: m.seq,
      micros: Number(m.headers?.get(MICROS_HEADER)) || Math.floor(m.info.timestampNanos / 1000),
      block: m.data,
    });
    this.batchEvents += Number(m.headers?.get(EVENTS_HEADER)) || 0;
    if (m.info.pending > 0 && this.batch.length < MAX_BATCH_BLOCKS) return;
    await this.flush();
    this.progress(m);
  }

  private async flush(): Promise<void> {
    if (this.batch.length === 0) return;
    const { batch, batchEvents } = this;
    this.batch = [];
    this.batchEvents = 0;
    await this.sink.write(batch, batchEvents);
    this.hooks.onBlocks(batch.length);
  }

  private progress(last: JsMsg): void {
    const behind = last.info.pending;
    this.hooks.onProgress(behind, behind > 0 ? Math.max(0, Date.now() - last.info.timestampNanos / 1e6) / 1000 : 0);
  }
}

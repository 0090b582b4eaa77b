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
}

/** The stream no longer holds the messages after the node's cursor: it cannot catch up from it. */
class StreamGapError extends Error {
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
    if (info.state.messages > 0 && info.state.first_seq > after + 1) throw new StreamGapError(after, info.state.first_seq);
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.follow();
      } catch (err) {
        if (this.stopped) return;
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
    const messages = await consumer.consume({ max_messages: 1024 });
    this.messages = messages;
    if (this.stopped) await messages.close();
    try {
      await this.drain(messages);
    } finally {
      await messages.close();
    }
  }

  private async drain(messages: ConsumerMessages): Promise<void> {
    let batch: StreamBlock[] = [];
    let events = 0;
    const flush = async (): Promise<void> => {
      if (batch.length === 0) return;
      await this.sink.write(batch, events);
      this.hooks.onBlocks(batch.length);
      batch = [];
      events = 0;
    };
    for await (const m of messages) {
      if (m.subject === COMMANDS_SUBJECT) {
        await flush();
        await this.sink.command(m.seq, m.data);
        this.progress(m);
        if (this.stopped) break;
        continue;
      }
      batch.push({ seq: m.seq, micros: Number(m.headers?.get(MICROS_HEADER)) || Math.floor(m.info.timestampNanos / 1000), block: m.data });
      events += Number(m.headers?.get(EVENTS_HEADER)) || 0;
      if (m.info.pending > 0 && batch.length < MAX_BATCH_BLOCKS) continue;
      await flush();
      this.progress(m);
      if (this.stopped) break;
    }
  }

  private progress(last: JsMsg): void {
    const behind = last.info.pending;
    this.hooks.onProgress(behind, behind > 0 ? Math.max(0, Date.now() - last.info.timestampNanos / 1e6) / 1000 : 0);
  }
}

/**
 * Capture's commit in cluster mode: each encoded block of accepted events is published to the
 * events stream, and the capture is answered once JetStream has acknowledged it (held by a quorum
 * of the stream's servers). The message id makes a retried publish a duplicate the stream drops;
 * the headers carry what every node needs to place the block in its own event log without
 * decoding it. A block over the servers' message size (a large `/batch/`) is split by events.
 */
import { randomInt } from 'node:crypto';
import { headers } from '@nats-io/transport-node';
import { decodeBlock, encodeBlock } from '../store/event-log.js';
import { EVENTS_SUBJECT } from './cluster-streams.js';
import type { NatsLink } from './nats-link.js';

/** The publishing node's receive time of the block, in µs since the epoch. */
export const MICROS_HEADER = 'Hedgerow-Micros';
/** How many events the block holds. */
export const EVENTS_HEADER = 'Hedgerow-Events';

/** Room left in each message for its headers and protocol. */
const HEADER_ROOM = 4096;

export class PublishFailed extends Error {}

export class BlockPublisher {
  /** Random per daemon start: with the node's name and the counter, a message id no other publish has. */
  private readonly publisherId = randomInt(0, 2 ** 31).toString(36);
  private counter = 0;
  private lastMicros = 0;

  constructor(
    private readonly link: NatsLink,
    private readonly nodeName: string,
    private readonly timeoutMs: number,
  ) {}

  /**
   * Resolves once the stream holds every part of the block; throws PublishFailed when the
   * cluster is unreachable or does not acknowledge within the timeout (nothing may be assumed
   * stored then: the SDK retries the request).
   */
  async publish(block: Uint8Array, events: number): Promise<{ seq: number; duplicate: boolean }[]> {
    if (this.link.state !== 'connected') throw new PublishFailed(`the connection to the NATS cluster is ${this.link.state}`);
    const limit = this.link.maxPayload - HEADER_ROOM;
    const parts = block.byteLength <= limit ? [{ block, events }] : splitBlock(block, limit);
    return Promise.all(parts.map((p) => this.publishOne(p.block, p.events)));
  }

  private async publishOne(block: Uint8Array, events: number): Promise<{ seq: number; duplicate: boolean }> {
    const h = headers();
    h.set(MICROS_HEADER, String(this.nextMicros()));
    h.set(EVENTS_HEADER, String(events));
    const msgID = `${this.nodeName}.${this.publisherId}.${this.counter++}`;
    try {
      const ack = await this.link.js.publish(EVENTS_SUBJECT, block, { msgID, headers: h, timeout: this.timeoutMs });
      return { seq: ack.seq, duplicate: ack.duplicate };
    } catch (err) {
      throw new PublishFailed((err as Error)?.message ?? String(err));
    }
  }

  private nextMicros(): number {
    const now = Date.now() * 1000;
    this.lastMicros = now > this.lastMicros ? now : this.lastMicros + 1;
    return this.lastMicros;
  }
}

/** A block cut into blocks of at most `limit` bytes each (one event alone always fits: limits.ts). */
export function splitBlock(block: Uint8Array, limit: number): { block: Uint8Array; events: number }[] {
  const all = decodeBlock(block);
  const out: { block: Uint8Array; events: number }[] = [];
  const cut = (from: number, to: number): void => {
    const encoded = encodeBlock(all.slice(from, to));
    if (encoded.byteLength <= limit || to - from === 1) {
      out.push({ block: encoded, events: to - from });
      return;
    }
    const mid = (from + to) >>> 1;
    cut(from, mid);
    cut(mid, to);
  };
  if (all.length > 0) cut(0, all.length);
  return out;
}

/**
 * The daemon's handle on the person processor thread: starts it, hands it each event-log block
 * once committed and wakes it, follows its progress (for the lag metrics and for `caughtUp`,
 * which lets a caller wait until every event committed so far has been applied), and stops it.
 */
import { fileURLToPath } from 'node:url';
import { THREAD_RESOURCE_LIMITS } from '../util/thread-heap.js';
import { Worker } from 'node:worker_threads';
import type { EventKey } from '../store/open-store.js';
import type { BatchReport } from './person-processor.js';
import { compareEventKeys } from '../store/event-keys.js';
import type { BlastRadiusQuery } from '../blast-radius/blast-radius-index.js';
import { HandOffRing, type RingSlot } from './handoff-ring.js';
import type { BlastRadiusReply, ProcessorCommand, ProcessorMessage, ProcessorSetup } from './processor-messages.js';

export interface ProcessorEvents {
  onBatch(report: BatchReport): void;
  /** A batch the store refused for now (a full or failing disk); the processor tries it again after `delayMs`. */
  onRetry(error: string, delayMs: number): void;
  onCrash(error: string): void;
  /** Expired blocks removed from the event log (retention). */
  onPruned(blocks: number): void;
  onPruneFailed(error: string): void;
}

interface Waiter {
  target: EventKey;
  resolve: (caughtUp: boolean) => void;
}

export class PersonProcessorThread {
  private cursor: EventKey | null;
  private waiters: Waiter[] = [];
  private readonly questions = new Map<number, (answer: BlastRadiusReply) => void>();
  private nextQuestion = 1;
  private tickQueued = false;
  /** Blocks put in the ring since the last wake-up message. */
  private handedOff: RingSlot[] = [];
  private stopped: Promise<void> | undefined;
  /** Resolves when the thread has exited, whether stopped or crashed. */
  private readonly exited: Promise<void>;
  private hasExited = false;
  /** Events processed since start, and the backlog found at start (for the lag gauge). */
  processed = 0;
  readonly backlogAtStart: number;

  private constructor(
    private readonly worker: Worker,
    ready: Extract<ProcessorMessage, { type: 'ready' }>,
    private readonly events: ProcessorEvents,
    private readonly ring: HandOffRing,
  ) {
    this.cursor = ready.cursor;
    this.backlogAtStart = ready.backlog;
    worker.on('message', (m: ProcessorMessage) => this.onMessage(m));
    // Heard from the start: a thread that crashed before stop() must not leave stop() waiting for
    // an exit that already happened, nor questions for answers that will not come.
    this.exited = new Promise<void>((resolve) => {
      worker.once('exit', () => {
        this.hasExited = true;
        this.answerAll({ ok: false, error: 'the person processor stopped' });
        resolve();
      });
    });
  }

  static start(setup: Omit<ProcessorSetup, 'handOffRing'>, events: ProcessorEvents): Promise<PersonProcessorThread> {
    const ring = new HandOffRing();
    const worker = new Worker(fileURLToPath(new URL('../../workers/person-worker.js', import.meta.url)), {
      workerData: { ...setup, handOffRing: ring.buffer } satisfies ProcessorSetup,
      resourceLimits: THREAD_RESOURCE_LIMITS,
    });
    return new Promise((resolve, reject) => {
      const onError = (err: Error) => reject(err);
      worker.once('error', onError);
      worker.once('message', (m: ProcessorMessage) => {
        worker.off('error', onError);
        if (m.type !== 'ready') {
          reject(new Error(`person processor did not start: ${JSON.stringify(m)}`));
          return;
        }
        const thread = new PersonProcessorThread(worker, m, events, ring);
        worker.on('error', (err) => events.onCrash(err.stack ?? err.message));
        resolve(thread);
      });
    });
  }

  /**
   * A block just written to the event log (its commit may still be on its way): copied into the
   * hand-off ring and announced with the next message, so that the processor need not read it
   * back (handoff-ring.ts). A ring with no room for it leaves it to be read back.
   */
  handOff(key: EventKey, block: Uint8Array): void {
    if (this.stopped !== undefined) return;
    const slot = this.ring.place(key, block);
    if (slot === undefined) return;
    this.handedOff.push(slot);
    // Sent as soon as the current task ends (blocks written in it share one message), rather than
    // with the next wake-up: the commit can be visible sooner than that.
    if (this.handedOff.length === 1) queueMicrotask(() => this.sendHandedOff());
  }

  private sendHandedOff(): void {
    const blocks = this.handedOff;
    this.handedOff = [];
    if (blocks.length > 0 && this.stopped === undefined) this.worker.postMessage({ type: 'tick', blocks } satisfies ProcessorCommand);
  }

  /** Wakes the processor (coalesced: one message per event-loop turn). */
  notify(): void {
    if (this.tickQueued || this.stopped !== undefined) return;
    this.tickQueued = true;
    setImmediate(() => {
      this.tickQueued = false;
      if (this.stopped === undefined) this.worker.postMessage({ type: 'tick' } satisfies ProcessorCommand);
    });
  }

  /** Resolves true once the processor has applied every block up to `target`, false after `timeoutMs`. */
  caughtUp(target: EventKey | undefined, timeoutMs: number): Promise<boolean> {
    if (target === undefined || this.reached(target)) return Promise.resolve(true);
    this.notify();
    return new Promise((resolve) => {
      const waiter: Waiter = { target, resolve };
      this.waiters.push(waiter);
      setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(false);
      }, timeoutMs);
    });
  }

  /** Asks the processor's thread for a blast radius (answered between two batches). */
  blastRadius(query: BlastRadiusQuery): Promise<BlastRadiusReply> {
    if (this.hasExited) return Promise.resolve({ ok: false, error: 'the person processor is not running' });
    if (this.stopped !== undefined) return Promise.resolve({ ok: false, error: 'the person processor is stopping' });
    const id = this.nextQuestion++;
    return new Promise((resolve) => {
      this.questions.set(id, resolve);
      this.worker.postMessage({ type: 'blast-radius', id, query } satisfies ProcessorCommand);
    });
  }

  get position(): EventKey | null {
    return this.cursor;
  }

  stop(): Promise<void> {
    if (this.stopped === undefined) {
      if (!this.hasExited) {
        this.worker.on('message', (m: ProcessorMessage) => {
          if (m.type === 'stopped') void this.worker.terminate();
        });
        this.worker.postMessage({ type: 'stop' });
      }
      this.stopped = this.exited;
    }
    return this.stopped;
  }

  private reached(target: EventKey): boolean {
    return this.cursor !== null && compareEventKeys(this.cursor, target) >= 0;
  }

  private onMessage(m: ProcessorMessage): void {
    if (m.type === 'batch') {
      this.cursor = m.report.cursor;
      this.ring.release(m.report.cursor); // the processor is done with those blocks' bytes
      this.processed += m.report.events;
      this.events.onBatch(m.report);
      const done = this.waiters.filter((w) => this.reached(w.target));
      this.waiters = this.waiters.filter((w) => !this.reached(w.target));
      for (const w of done) w.resolve(true);
    } else if (m.type === 'blast-radius') {
      const resolve = this.questions.get(m.id);
      this.questions.delete(m.id);
      resolve?.(m.answer);
    } else if (m.type === 'retrying') {
      this.events.onRetry(m.error, m.delayMs);
    } else if (m.type === 'pruned') {
      this.events.onPruned(m.blocks);
    } else if (m.type === 'prune-failed') {
      this.events.onPruneFailed(m.error);
    } else if (m.type === 'crashed') {
      this.answerAll({ ok: false, error: 'the person processor crashed' });
      this.events.onCrash(m.error);
    }
  }

  private answerAll(reply: BlastRadiusReply): void {
    for (const resolve of this.questions.values()) resolve(reply);
    this.questions.clear();
  }
}

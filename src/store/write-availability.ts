/**
 * Whether the store takes writes now. A write the store refused (a full disk, an I/O error, a
 * full map) marks it unavailable: capture then answers 503 at once (SDKs retry) instead of
 * decoding requests whose commit would fail too, and `/_readyz` says why. While it is
 * unavailable a small probe write is tried every `intervalMs`; the first that commits, or any
 * other write that does, makes it available again, without a restart.
 *
 * With a free-space reserve (`shortfall`), a disk with less free than the reserve makes the store
 * unavailable too, before any write is refused: `check()` looks, and while the disk stays short
 * the periodic look is the free space, not a probe write, and no commit ends it.
 */

export interface Unavailability {
  /** When the first refused write was seen (ms since the epoch). */
  readonly since: number;
  /** The store's own words for the last refusal (`No space left on device`, …). */
  reason: string;
}

export interface WriteAvailabilityOptions {
  /** One small write, resolved once committed as every other write is (per the sync mode). */
  probe: () => Promise<unknown>;
  /** Why a probe failed, in words. */
  describe: (err: unknown) => Promise<string> | string;
  intervalMs: number;
  /** Why writes must wait for free space (the reserve, store/disk-reserve.ts), or undefined. */
  shortfall?: () => string | undefined;
  onUnavailable: (reason: string) => void;
  onAvailable: (unavailableMs: number) => void;
}

export class WriteAvailability {
  private down: Unavailability | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly opts: WriteAvailabilityOptions) {}

  /** Set while writes are refused. */
  get unavailable(): Readonly<Unavailability> | undefined {
    return this.down;
  }

  /** Whether writes are refused now, the free-space reserve included: set while they are. */
  check(): Readonly<Unavailability> | undefined {
    const short = this.opts.shortfall?.();
    if (short !== undefined) this.failed(short);
    return this.down;
  }

  /** A write was refused. */
  failed(reason: string): void {
    if (this.down) {
      this.down.reason = reason;
      return;
    }
    this.down = { since: Date.now(), reason };
    this.opts.onUnavailable(reason);
    this.scheduleProbe();
  }

  /** A write committed. */
  succeeded(): void {
    const down = this.down;
    if (!down) return;
    // A write that passed the reserve before the disk got short does not end the wait for space.
    const short = this.opts.shortfall?.();
    if (short !== undefined) {
      down.reason = short;
      return;
    }
    this.down = undefined;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.opts.onAvailable(Date.now() - down.since);
  }

  /** Stops probing (shutdown). */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private scheduleProbe(): void {
    if (this.closed || this.timer) return;
    this.timer = setTimeout(() => void this.runProbe(), this.opts.intervalMs);
    this.timer.unref();
  }

  private async runProbe(): Promise<void> {
    const short = this.opts.shortfall?.();
    if (short !== undefined) {
      // No write while the disk is short: the free space is what is looked at.
      this.timer = undefined;
      if (this.down) this.down.reason = short;
      this.scheduleProbe();
      return;
    }
    try {
      await this.opts.probe();
      this.timer = undefined;
      this.succeeded();
    } catch (err) {
      const reason = await this.opts.describe(err);
      this.timer = undefined;
      // Another write may have committed meanwhile: then there is nothing left to probe for.
      if (this.down) {
        this.down.reason = reason;
        this.scheduleProbe();
      }
    }
  }
}

/**
 * Whether the store takes writes now. A write the store refused (a full disk, an I/O error, a
 * full map) marks it unavailable: capture then answers 503 at once (SDKs retry) instead of
 * decoding requests whose commit would fail too, and `/_readyz` says why. While it is
 * unavailable a small probe write is tried every `intervalMs`; the first that commits, or any
 * other write that does, makes it available again, without a restart.
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

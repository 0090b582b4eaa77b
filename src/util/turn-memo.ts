/**
 * Values remembered until the end of the current event-loop turn. Requests handled in one turn
 * arrived together, so a change committed elsewhere (another process, another thread) is seen
 * from the next turn on; no client can tell, since nothing it sent after seeing the change can
 * be handled in the turn that remembered the old value. Used for small per-request store reads
 * (a version number) that profiles showed on the hot paths of the main thread.
 */
export class TurnMemo<K, V> {
  private readonly values = new Map<K, V>();
  private clearScheduled = false;

  get(key: K, read: () => V): V {
    if (this.values.has(key)) return this.values.get(key) as V;
    const value = read();
    this.values.set(key, value);
    if (!this.clearScheduled) {
      this.clearScheduled = true;
      setImmediate(() => this.forget()).unref();
    }
    return value;
  }

  /** Forgets everything now (after a write in this thread). */
  forget(): void {
    this.values.clear();
    this.clearScheduled = false;
  }
}

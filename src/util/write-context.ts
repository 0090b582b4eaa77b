/**
 * The time and randomness a management write uses. In the embedded mode they are the clock and
 * the system's random source. In cluster mode a write is a command every node applies in the
 * stream's order, and each must write the same records: the node that received the request fixes
 * the time and a random seed in the command, and every node applies it inside `runReplicated`,
 * where `writeTime()` is that time and the random bytes are drawn from the seed (SHA-256 in
 * counter mode). Code that writes records calls these instead of `new Date()` or `node:crypto`.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, randomBytes } from 'node:crypto';

export interface ReplicatedWrite {
  /** The time the receiving node fixed, ms since the epoch. */
  readonly nowMs: number;
  /** 32 random bytes the receiving node drew. */
  readonly seed: Uint8Array;
  /** Called when a write transaction of the command begins, inside it (cluster/command-applier.ts). */
  readonly onTransaction?: () => void;
}

interface Running extends ReplicatedWrite {
  drawn: number;
}

const current = new AsyncLocalStorage<Running>();

/** Runs `fn` (and everything it awaits) as the replicated write `w`. */
export function runReplicated<T>(w: ReplicatedWrite, fn: () => T): T {
  return current.run({ ...w, drawn: 0 }, fn);
}

/** The replicated write running now, if any. */
export function replicatedWrite(): ReplicatedWrite | undefined {
  return current.getStore();
}

/** Now, as the write records it. */
export function writeTime(): Date {
  const w = current.getStore();
  return w === undefined ? new Date() : new Date(w.nowMs);
}

/** `n` random bytes: from the system, or drawn from the replicated write's seed. */
export function writeRandomBytes(n: number): Buffer {
  const w = current.getStore();
  if (w === undefined) return randomBytes(n);
  const out = Buffer.alloc(n);
  for (let filled = 0; filled < n; ) {
    const block = createHash('sha256')
      .update(w.seed)
      .update(String(w.drawn++))
      .digest();
    filled += block.copy(out, filled);
  }
  return out;
}

/** A random (version 4) UUID, from `writeRandomBytes`. */
export function writeRandomUUID(): string {
  const b = writeRandomBytes(16);
  b[6] = ((b[6] as number) & 0x0f) | 0x40;
  b[8] = ((b[8] as number) & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

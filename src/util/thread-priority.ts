/**
 * Lowers the scheduling priority of the calling thread (Linux: a thread has its own nice value,
 * set through its thread id; `/proc/thread-self` names that id). Lowering needs no privileges.
 * Elsewhere, or when /proc is not mounted, it reports why it did nothing.
 */
import { getPriority, setPriority } from 'node:os';
import { osThreadId } from './os-thread-id.js';

/** The highest nice value (lowest priority) Linux accepts. */
const MAX_NICE = 19;

export type NiceResult = { ok: true; nice: number } | { ok: false; reason: string };

/** Raises the calling thread's nice value by `by` (capped at 19); `by` 0 leaves it alone. */
export function lowerThreadPriority(by: number): NiceResult {
  if (by === 0) return { ok: true, nice: currentNice() ?? 0 };
  try {
    const tid = osThreadId();
    const nice = Math.min(MAX_NICE, getPriority(tid) + by);
    setPriority(tid, nice);
    return { ok: true, nice };
  } catch (err) {
    return { ok: false, reason: err instanceof Error ? err.message : String(err) };
  }
}

function currentNice(): number | undefined {
  try {
    return getPriority(osThreadId());
  } catch {
    return undefined;
  }
}

/** The calling thread's OS id on Linux (`/proc/thread-self` → `<pid>/task/<tid>`). */
import { readlinkSync } from 'node:fs';

/** Throws where /proc is missing (not Linux, or not mounted). */
export function osThreadId(): number {
  const tid = Number(readlinkSync('/proc/thread-self').split('/')[2]);
  if (!Number.isSafeInteger(tid) || tid <= 0) throw new Error('no thread id in /proc/thread-self');
  return tid;
}

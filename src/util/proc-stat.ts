/** Reading /proc/…/stat lines (Linux): a process's or thread's state and CPU time. */

/** USER_HZ, the unit of utime/stime in /proc: 100 on every mainstream Linux build. */
export const TICKS_PER_SECOND = 100;

/**
 * The fields of a stat line after the command name, which is in parentheses and may contain
 * spaces: [0] is the state, [11] utime and [12] stime (fields 3, 14 and 15 of proc(5)).
 */
export function statFields(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** User + system time of a stat line, in ticks. */
export function cpuTicks(fields: readonly string[]): number {
  return Number(fields[11]) + Number(fields[12]);
}

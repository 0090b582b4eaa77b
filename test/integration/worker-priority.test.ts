/**
 * HEDGEROW_WORKER_NICE: the pool's worker threads run at the daemon's nice value plus the setting,
 * every other thread (the front end, the person processor, lmdb's writer) at the daemon's own.
 * Read from /proc/<pid>/task/<tid>/stat (Linux, where the daemon runs).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupDaemons, startDaemon, type DaemonHandle } from '../helpers/daemon.js';

afterAll(cleanupDaemons);

/** Nice value per thread id (field 19 of a stat line; the fields after the command name start at 3). */
function threadNices(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(tid), Number(fields[16]));
    } catch {
      // the thread ended between readdir and read
    }
  }
  return out;
}

async function nicesOf(env: Record<string, string>): Promise<{ d: DaemonHandle; main: number; others: number[] }> {
  const d = await startDaemon({ backend: 'uws', env: { HEDGEROW_WORKERS: '2', ...env } });
  const pid = d.child.pid as number;
  const nices = threadNices(pid);
  const main = nices.get(pid) as number;
  nices.delete(pid);
  return { d, main, others: [...nices.values()] };
}

describe('worker thread priority', () => {
  it('lowers exactly the pool workers by HEDGEROW_WORKER_NICE', async () => {
    const { d, main, others } = await nicesOf({ HEDGEROW_WORKER_NICE: '7' });
    expect(others.filter((n) => n === main + 7)).toHaveLength(2);
    expect(others.filter((n) => n !== main && n !== main + 7)).toEqual([]);
    const ready = d.records().find((r) => r.msg === 'ready');
    expect(ready).toMatchObject({ workers: 2, worker_nice: 7 });
    expect(d.records().some((r) => String(r.msg).includes('could not lower'))).toBe(false);
    expect(await d.stop()).toBe(0);
  });

  it('leaves every thread at the daemon priority with 0', async () => {
    const { d, main, others } = await nicesOf({ HEDGEROW_WORKER_NICE: '0' });
    expect(others.every((n) => n === main)).toBe(true);
    expect(await d.stop()).toBe(0);
  });

  it('rejects a value outside 0–19 at boot, naming the setting', async () => {
    await expect(startDaemon({ backend: 'uws', env: { HEDGEROW_WORKER_NICE: '20' } })).rejects.toThrow(
      /HEDGEROW_WORKER_NICE="20": must be an integer between 0 and 19/,
    );
  });
});

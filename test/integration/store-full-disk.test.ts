/**
 * A full disk under capture load. The data directory is on a small tmpfs, nearly filled by a
 * ballast file; three clients send /batch/ until the free-space reserve (2 MiB here) refuses
 * their commits. The daemon must not exit: capture answers 503 `store_unavailable` (SDKs retry),
 * `/_readyz` says why (the reserve and the free bytes), `/flags` and reads go on, a management
 * write on a disk with no byte left is refused before it reaches LMDB, and once the ballast is
 * gone capture resumes by itself. Every acknowledged event is in the log afterwards. Needs to
 * mount a tmpfs (root): skipped where that is not allowed.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/api.js';
import { cleanupDaemons, exportEvents, startDaemon } from '../helpers/daemon.js';
import { metricSample, postJson, send, waitForPersons, type Reply } from '../helpers/http.js';

const mountPoint = mkdtempSync(path.join(os.tmpdir(), 'hedgerow-full-disk-'));
let mounted = false;
try {
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=40m', 'tmpfs', mountPoint], { stdio: 'ignore' });
  mounted = true;
} catch {
  // not root, or no mount permission
}

afterAll(async () => {
  await cleanupDaemons();
  if (mounted) execFileSync('umount', [mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

const RESERVE = 2 * 1024 * 1024;

const freeBytes = (): number => {
  const s = statfsSync(mountPoint);
  return s.bavail * s.bsize;
};

describe('a full disk', () => {
  it.skipIf(!mounted)(
    'answers 503 once the disk is short of the reserve, keeps serving, and resumes capture when space returns',
    async () => {
      const d = await startDaemon({
        backend: 'uws',
        dataDir: path.join(mountPoint, 'data'),
        env: { HEDGEROW_MIN_FREE_DISK_BYTES: String(RESERVE) },
      });
      const ballast = path.join(mountPoint, 'ballast');
      writeFileSync(ballast, Buffer.alloc(Math.max(0, freeBytes() - 3 * 1024 * 1024)));

      const acked = new Set<string>();
      const statuses = new Map<number, number>();
      const unexpected: string[] = [];
      let refused = 0;
      let stop = false;
      const sendBatch = async (): Promise<Reply> => {
        const batch = Array.from({ length: 50 }, () => ({
          uuid: randomUUID(),
          event: 'filler',
          distinct_id: `user-${Math.floor(Math.random() * 200)}`,
          properties: { pad: randomUUID().repeat(8) },
        }));
        const r = await postJson(d, '/batch/', { api_key: d.projectKey, batch });
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        if (r.status === 200) for (const e of batch) acked.add(e.uuid);
        else if (r.status === 503 && (r.json as { code?: string }).code === 'store_unavailable') refused++;
        else unexpected.push(`${r.status} ${r.text}`);
        return r;
      };
      const lane = async (): Promise<void> => {
        while (!stop) {
          try {
            await sendBatch();
          } catch (err) {
            unexpected.push(`no answer: ${(err as Error).message}`);
            await new Promise((r) => setTimeout(r, 50));
          }
        }
      };
      const lanes = [lane(), lane(), lane()];
      const deadline = Date.now() + 30_000;
      while (refused < 20 && Date.now() < deadline && !d.exited) await new Promise((r) => setTimeout(r, 100));
      stop = true;
      await Promise.all(lanes);
      expect(d.exited).toBe(false);
      expect(refused, `statuses ${JSON.stringify([...statuses])}`).toBeGreaterThanOrEqual(20);
      expect(unexpected).toEqual([]);

      // Still full: capture is refused at once, readiness says why, flags and reads go on.
      const refusal = await sendBatch();
      expect(refusal.status).toBe(503);
      expect(refusal.json).toMatchObject({ type: 'server_error', code: 'store_unavailable', attr: null });
      expect((refusal.json as { detail: string }).detail).toMatch(/^Hedgerow cannot write to its store right now \(.+\); retry shortly\.$/);
      const ready = await send(d, '/_readyz');
      expect(ready.status).toBe(503);
      expect(ready.json).toMatchObject({ status: 'store_unavailable' });
      // The reserve refused, not LMDB: the disk still has room.
      const detail = (ready.json as { detail: string }).detail;
      const short =
        /^the store refuses writes: the data directory's disk has (\d+) bytes free, less than HEDGEROW_MIN_FREE_DISK_BYTES \(2097152\)$/.exec(
          detail,
        );
      expect(short, detail).not.toBeNull();
      expect(Number(short?.[1])).toBeGreaterThan(0);
      expect(Number(short?.[1])).toBeLessThan(RESERVE);
      expect(freeBytes()).toBeGreaterThan(RESERVE / 2);
      expect((refusal.json as { detail: string }).detail).toContain('less than HEDGEROW_MIN_FREE_DISK_BYTES (2097152)');
      const down = d.records().find((r) => r.level === 'error' && r.msg?.startsWith('the store refuses writes'));
      expect(down?.['reason']).toMatch(/^the data directory's disk has \d+ bytes free, less than HEDGEROW_MIN_FREE_DISK_BYTES/);
      expect(d.records().some((r) => /No space left/.test(JSON.stringify(r)))).toBe(false);
      const flags = await postJson(d, '/flags/?v=2', { token: d.projectKey, distinct_id: 'user-1' });
      expect(flags.status).toBe(200);
      expect(flags.json).toMatchObject({ errorsWhileComputingFlags: false });
      // The last bytes go too (once the processor has applied what was acknowledged): a
      // management write is refused before it reaches LMDB, which has no byte left to write.
      await waitForPersons(d);
      const rest = path.join(mountPoint, 'ballast-rest');
      writeFileSync(rest, Buffer.alloc(freeBytes()));
      const api = apiClient(d, d.personalKey);
      expect((await api.get('/api/projects/1/feature_flags/')).status).toBe(200);
      // Whether the disk is full is told only to a caller who may write.
      const anonymous = await postJson(d, '/api/projects/1/feature_flags/', { key: 'no-key' });
      expect([anonymous.status, (anonymous.json as { code?: string }).code]).toEqual([401, 'not_authenticated']);
      const wrongKey = await apiClient(d, 'phx_not_a_key_of_this_daemon_0000000000000000').post('/api/projects/1/feature_flags/', {
        key: 'k',
      });
      expect([wrongKey.status, (wrongKey.json as { code?: string }).code]).toEqual([401, 'authentication_failed']);
      const write = await api.post('/api/projects/1/feature_flags/', {
        key: `while-full-${randomUUID()}`,
        // ~1 MB of condition values: more than the pages LMDB has free to reuse.
        filters: {
          groups: [
            {
              properties: [
                { key: 'email', type: 'person', operator: 'exact', value: Array.from({ length: 1000 }, () => randomUUID().repeat(28)) },
              ],
              rollout_percentage: 100,
            },
          ],
        },
      });
      expect(write.status, write.text).toBe(503);
      expect(write.json).toMatchObject({ type: 'server_error', code: 'store_unavailable' });
      expect((write.json as { detail: string }).detail).toContain('less than half of HEDGEROW_MIN_FREE_DISK_BYTES (1048576)');
      const metrics = (await send(d, '/metrics')).text;
      expect(metricSample(metrics, 'hedgerow_store_writable')).toBe(0);
      expect(metricSample(metrics, 'hedgerow_store_write_failures_total')).toBeGreaterThan(0);
      expect(d.records().some((r) => r.level === 'error' && r.msg?.startsWith('the store refuses writes'))).toBe(true);

      // Space returns: capture resumes without a restart (the probe runs every second).
      rmSync(ballast);
      rmSync(rest);
      const resumeBy = Date.now() + 10_000;
      let resumed: Reply | undefined;
      while (Date.now() < resumeBy) {
        const r = await sendBatch();
        if (r.status === 200) {
          resumed = r;
          break;
        }
        await new Promise((res) => setTimeout(res, 200));
      }
      expect(resumed?.json).toEqual({ status: 1 });
      expect((await send(d, '/_readyz')).status).toBe(200);
      expect(metricSample((await send(d, '/metrics')).text, 'hedgerow_store_writable')).toBe(1);
      expect(d.records().some((r) => r.msg === 'the store takes writes again: capture resumed')).toBe(true);
      expect(unexpected).toEqual([]);

      expect(await d.stop()).toBe(0);
      const stored = new Set((await exportEvents(d.dataDir)).map((e) => e.uuid));
      const missing = [...acked].filter((u) => !stored.has(u));
      expect(missing.length, `${missing.length} of ${acked.size} acknowledged events missing`).toBe(0);
    },
    90_000,
  );
});

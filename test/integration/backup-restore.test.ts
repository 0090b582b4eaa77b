/**
 * `hedgerow backup` while the daemon takes captures, then `hedgerow restore` into a new directory
 * and a daemon started on it: every event acknowledged before the backup began is there, the
 * persons of those events match the original's, the flags match, and the restored daemon takes
 * captures. Also what both commands refuse.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/api.js';
import { cleanupDaemons, exportEvents, makeTempDir, runCli, startDaemon } from '../helpers/daemon.js';
import { OK, postJson, waitForPersons } from '../helpers/http.js';

afterAll(cleanupDaemons);

interface PersonView {
  uuid: string;
  distinct_ids: string[];
  properties: Record<string, unknown>;
}

describe('backup and restore', () => {
  it('backs up under load; the restored daemon has every event acknowledged before, the same persons and flags, and takes captures', async () => {
    const d = await startDaemon({ backend: 'uws' });
    const admin = apiClient(d, d.personalKey);
    for (const key of ['kept-flag', 'other-flag']) {
      const r = await admin.post('/api/projects/1/feature_flags/', {
        key,
        filters: { groups: [{ properties: [{ key: 'plan', value: 'pro', type: 'person' }], rollout_percentage: 60 }] },
      });
      expect(r.status, r.text).toBe(201);
    }

    const acked: string[] = [];
    const unexpected: string[] = [];
    let phase = 'before';
    let stop = false;
    // Between phases the lanes wait, so every "before" event is answered before the backup begins.
    let paused: Promise<void> | undefined;
    const lane = async (n: number): Promise<void> => {
      for (let i = 0; !stop; i++) {
        if (paused !== undefined) await paused;
        const tag = phase;
        const batch = Array.from({ length: 20 }, (_, j) => ({
          uuid: randomUUID(),
          event: 'load',
          distinct_id: `${tag}-${n}-${(i * 20 + j) % 50}`,
          properties: { $set: { plan: j % 2 === 0 ? 'pro' : 'free', lane: n, step: i } },
        }));
        inFlight++;
        const r = await postJson(d, '/batch/', { api_key: d.projectKey, batch });
        inFlight--;
        if (r.status === 200) acked.push(...batch.map((e) => e.uuid));
        else unexpected.push(`${r.status} ${r.text}`);
      }
    };
    let inFlight = 0;
    const lanes = [lane(1), lane(2)];
    while (acked.length < 1_500) await new Promise((r) => setTimeout(r, 20));
    let resume = (): void => {};
    paused = new Promise<void>((r) => {
      resume = r;
    });
    while (inFlight > 0) await new Promise((r) => setTimeout(r, 5));
    phase = 'after';
    const ackedBefore = [...acked];
    paused = undefined;
    resume();

    const dest = path.join(makeTempDir(), 'backup');
    const backup = await runCli(['backup', dest, '--data-dir', d.dataDir], { timeoutMs: 60_000 });
    expect([backup.code, backup.stderr]).toEqual([0, '']);
    expect(backup.stdout).toMatch(
      /^wrote a backup of .* in [\d.]+ s:\n {2}hedgerow\.mdb {2}\d+ bytes\n {2}bootstrap-credentials\.json {2}\d+ bytes\n$/,
    );
    while (acked.length < ackedBefore.length + 500) await new Promise((r) => setTimeout(r, 20));
    stop = true;
    await Promise.all(lanes);
    expect(unexpected).toEqual([]);
    await waitForPersons(d);

    const restoredDir = path.join(makeTempDir(), 'restored');
    const restore = await runCli(['restore', dest, '--data-dir', restoredDir]);
    expect([restore.code, restore.stderr]).toEqual([0, '']);
    expect(restore.stdout).toMatch(/^restored the backup of \S+ \(.*\) into .*restored: hedgerow\.mdb, bootstrap-credentials\.json\n$/);
    expect(statSync(path.join(restoredDir, 'hedgerow.mdb')).mode & 0o777).toBe(0o600);

    const r = await startDaemon({ backend: 'uws', dataDir: restoredDir, projectKey: d.projectKey, personalKey: d.personalKey });
    await waitForPersons(r);
    const restoredUuids = new Set((await exportEvents(restoredDir)).map((e) => e.uuid));
    expect(ackedBefore.filter((u) => !restoredUuids.has(u))).toEqual([]);

    // The persons of the events before the backup: same uuids, distinct ids and properties.
    const personsOf = async (baseUrl: string): Promise<Map<string, PersonView>> => {
      const client = apiClient({ baseUrl }, d.personalKey);
      const out = new Map<string, PersonView>();
      let next: string | null = '/api/projects/1/persons/?limit=500';
      while (next) {
        const page = (await client.get(next.replace(/^https?:\/\/[^/]+/, ''))).json as { results: PersonView[]; next: string | null };
        for (const p of page.results) if (p.distinct_ids.some((id) => id.startsWith('before-'))) out.set(p.uuid, p);
        next = page.next;
      }
      return out;
    };
    const [original, restored] = [await personsOf(d.baseUrl), await personsOf(r.baseUrl)];
    expect(original.size).toBe(100);
    const view = (m: Map<string, PersonView>) =>
      [...m.values()]
        .map((p) => ({ uuid: p.uuid, ids: [...p.distinct_ids].sort(), props: p.properties }))
        .sort((a, b) => (a.uuid < b.uuid ? -1 : 1));
    expect(view(restored)).toEqual(view(original));

    const definitions = async (baseUrl: string) =>
      (await apiClient({ baseUrl }, d.personalKey).get('/api/projects/1/feature_flags/local_evaluation/?send_cohorts')).json;
    expect(await definitions(r.baseUrl)).toEqual(await definitions(d.baseUrl));

    const cap = await postJson(r, '/batch/', { api_key: d.projectKey, batch: [{ event: 'after restore', distinct_id: 'restored' }] });
    expect([cap.status, cap.json]).toEqual([200, OK]);
    expect(await r.stop()).toBe(0);
    expect(await d.stop()).toBe(0);
  });

  it('refuses a destination or data directory that is not empty, and a directory that is not a backup', async () => {
    const d = await startDaemon({ backend: 'uws' });
    const full = makeTempDir();
    writeFileSync(path.join(full, 'something'), 'x');
    const intoFull = await runCli(['backup', full, '--data-dir', d.dataDir]);
    expect([intoFull.code, intoFull.stderr]).toEqual([2, `hedgerow: backup destination ${full} is not empty\n`]);

    const dest = path.join(makeTempDir(), 'b');
    const compacted = await runCli(['backup', dest, '--compact', '--data-dir', d.dataDir]);
    expect([compacted.code, compacted.stderr]).toEqual([0, '']);
    expect(compacted.stdout).toContain('(compacted)');
    expect(JSON.parse(readFileSync(path.join(dest, 'hedgerow-backup.json'), 'utf8'))).toMatchObject({
      kind: 'hedgerow-backup',
      schema_version: expect.any(Number),
      compacted: true,
    });

    // Over the running daemon's own directory, or any directory with files in it.
    const over = await runCli(['restore', dest, '--data-dir', d.dataDir]);
    expect([over.code, over.stderr]).toEqual([2, `hedgerow: data directory ${d.dataDir} is not empty\n`]);
    const notBackup = makeTempDir();
    mkdirSync(path.join(notBackup, 'x'));
    const fromNothing = await runCli(['restore', notBackup, '--data-dir', path.join(makeTempDir(), 'new')]);
    expect([fromNothing.code, fromNothing.stderr]).toEqual([
      2,
      `hedgerow: ${notBackup} is not a Hedgerow backup (no hedgerow-backup.json)\n`,
    ]);
    const cut = path.join(makeTempDir(), 'cut');
    mkdirSync(cut);
    writeFileSync(path.join(cut, 'hedgerow-backup.json'), readFileSync(path.join(dest, 'hedgerow-backup.json')));
    writeFileSync(path.join(cut, 'hedgerow.mdb'), readFileSync(path.join(dest, 'hedgerow.mdb')).subarray(0, 5000));
    writeFileSync(path.join(cut, 'bootstrap-credentials.json'), '{}');
    const fromCut = await runCli(['restore', cut, '--data-dir', path.join(makeTempDir(), 'new')]);
    expect([fromCut.code, fromCut.stderr]).toEqual([2, expect.stringMatching(/^hedgerow: \S+cut\/hedgerow\.mdb is cut short: 5000 bytes/)]);
    expect(await d.stop()).toBe(0);
  });
});

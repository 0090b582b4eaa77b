/**
 * The command line's writes and the free-space reserve: while the data directory's disk has less
 * free than half of HEDGEROW_MIN_FREE_DISK_BYTES (the daemon's limit for management writes), a
 * command that would change records refuses with exit 1 and changes nothing; reads, and
 * `events prune` (which frees space), still run. The reserve is set above the disk's free space
 * here, so any disk is short of it.
 */
import { readFileSync, statfsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupDaemons, makeTempDir, runCli, startDaemon } from '../helpers/daemon.js';

afterAll(cleanupDaemons);

describe('hedgerow admin on a disk short of the reserve', () => {
  it('refuses writes with exit 1, changes nothing, and still reads (writing nothing) and prunes', async () => {
    const d = await startDaemon({ backend: 'uws' });
    expect(await d.stop()).toBe(0);
    const fs = statfsSync(d.dataDir);
    const short = { HEDGEROW_MIN_FREE_DISK_BYTES: String(Math.min(2 ** 50, 4 * fs.bavail * fs.bsize + 2 ** 30)) };
    const cli = (args: string[], env: Record<string, string> = short) => runCli([...args, '--data-dir', d.dataDir], { env });

    const answer = path.join(makeTempDir(), 'local-evaluation.json');
    writeFileSync(
      answer,
      JSON.stringify({
        flags: [{ id: 1, key: 'imported', active: true, filters: { groups: [{ rollout_percentage: 100 }] } }],
        group_type_mapping: {},
        cohorts: {},
      }),
    );
    const importFlags = (extra: string[], env: Record<string, string> = short) =>
      cli(['admin', 'import', 'posthog', '--file', answer, '--project', '1', ...extra], env);
    const storeFile = path.join(d.dataDir, 'hedgerow.mdb');
    const untouched = readFileSync(storeFile);
    const [create, imported] = await Promise.all([cli(['admin', 'projects', 'create', '--name', 'Refused']), importFlags([])]);
    for (const r of [create, imported]) {
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(
        /^hedgerow: nothing was changed: the data directory's disk has \d+ bytes free, less than half of HEDGEROW_MIN_FREE_DISK_BYTES \(\d+\); free some space and run it again\n$/,
      );
    }

    // Refused before the store is opened: not a byte of the data file was written; nor by a read.
    expect(readFileSync(storeFile).equals(untouched)).toBe(true);
    const read = await cli(['admin', 'users', 'list']);
    expect([read.code, read.stderr]).toEqual([0, '']);
    expect(readFileSync(storeFile).equals(untouched)).toBe(true);

    const [list, dryRun, prune] = await Promise.all([
      cli(['admin', 'projects', 'list', '--json']),
      importFlags(['--dry-run']),
      cli(['events', 'prune', '--before', '2000-01-01']),
    ]);
    expect([list.code, list.stderr]).toEqual([0, '']);
    expect((JSON.parse(list.stdout) as { name: string }[]).map((p) => p.name)).not.toContain('Refused');
    // The refused import left nothing: the flag is still to be created.
    expect([dryRun.code, dryRun.stderr]).toEqual([0, '']);
    expect(dryRun.stdout).toContain('flag "imported": would be created');
    expect([prune.code, prune.stderr]).toEqual([0, '']);

    // With the default reserve the same writes go through.
    const [created, importedNow] = await Promise.all([cli(['admin', 'projects', 'create', '--name', 'Accepted'], {}), importFlags([], {})]);
    expect([created.code, created.stderr]).toEqual([0, '']);
    expect([importedNow.code, importedNow.stderr]).toEqual([0, '']);
  });
});

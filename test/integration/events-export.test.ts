/**
 * `hedgerow events export`: NDJSON of the whole log in ingest order, filtered by `--since`
 * (ingest time) and `--project`, read while the daemon runs on the same data directory, with
 * progress on stderr when that is a terminal.
 */

import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CLI_MAIN,
  cleanupDaemons,
  exportEvents,
  makeTempDir,
  newProjectKey,
  runCli,
  startDaemon,
  type DaemonHandle,
} from '../helpers/daemon.js';
import { apiClient } from '../helpers/api.js';
import { OK, postJson, waitForPersons } from '../helpers/http.js';

afterAll(cleanupDaemons);

describe('hedgerow events export', () => {
  let d: DaemonHandle;
  const early: string[] = [];
  const lateP1: string[] = [];
  const lateP2: string[] = [];
  let since = '';

  async function capture(token: string, names: string[]): Promise<string[]> {
    const batch = names.map((name) => ({
      uuid: randomUUID(),
      event: name,
      distinct_id: 'exporter',
      timestamp: '2020-01-01T00:00:00.000Z',
    }));
    const r = await postJson(d, '/batch/', { api_key: token, batch });
    expect([r.status, r.json]).toEqual([200, OK]);
    return batch.map((e) => e.uuid);
  }

  beforeAll(async () => {
    d = await startDaemon({ backend: 'uws' });
    const token2 = newProjectKey();
    const created = await runCli(['admin', 'projects', 'create', '--name', 'Two', '--api-token', token2, '--data-dir', d.dataDir]);
    expect(created.code).toBe(0);

    early.push(...(await capture(d.projectKey, ['early 1', 'early 2'])));
    early.push(...(await capture(token2, ['early p2'])));
    await sleep(30);
    since = new Date().toISOString();
    await sleep(30);
    lateP1.push(...(await capture(d.projectKey, ['late 1', 'late 2'])));
    lateP2.push(...(await capture(token2, ['late p2 1', 'late p2 2'])));
    lateP1.push(...(await capture(d.projectKey, ['late 3'])));
  });
  afterAll(async () => {
    expect(await d.stop()).toBe(0);
  });

  it('exports every event once, oldest first, with its stored fields', async () => {
    const all = await exportEvents(d.dataDir);
    expect(all.map((e) => e.uuid)).toEqual([...early, ...lateP1.slice(0, 2), ...lateP2, ...lateP1.slice(2)]);
    const first = all[0]!;
    expect(first).toEqual({
      uuid: early[0],
      event: 'early 1',
      distinct_id: 'exporter',
      properties: { $ip: '127.0.0.1' },
      timestamp: '2020-01-01T00:00:00.000Z',
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      project_id: 1,
    });
  });

  it('--since keeps only events ingested at or after that time', async () => {
    const late = await exportEvents(d.dataDir, ['--since', since]);
    expect(late.map((e) => e.uuid)).toEqual([...lateP1.slice(0, 2), ...lateP2, ...lateP1.slice(2)]);
    const none = await exportEvents(d.dataDir, ['--since', new Date(Date.now() + 60_000).toISOString()]);
    expect(none).toEqual([]);
  });

  it('--project keeps one project, and combines with --since', async () => {
    const p2 = await exportEvents(d.dataDir, ['--project', '2']);
    expect(p2.map((e) => e.uuid)).toEqual([...early.slice(2), ...lateP2]);
    expect(p2.every((e) => e.project_id === 2)).toBe(true);
    const p1Late = await exportEvents(d.dataDir, ['--project', '1', '--since', since]);
    expect(p1Late.map((e) => e.uuid)).toEqual(lateP1);
    expect(await exportEvents(d.dataDir, ['--project', '99'])).toEqual([]);
  });

  it('shows progress on stderr only when it is a terminal', async () => {
    const piped = await runCli(['events', 'export', '--data-dir', d.dataDir]);
    expect([piped.code, piped.stderr]).toEqual([0, '']);
    // util-linux `script` gives the command a terminal; stdout goes to a file, so the terminal
    // shows only stderr.
    const outFile = path.join(makeTempDir(), 'events.ndjson');
    const command = `${process.execPath} ${CLI_MAIN} events export --data-dir ${d.dataDir} > ${outFile}`;
    const tty = spawnSync('script', ['-qec', command, '/dev/null'], { encoding: 'utf8', timeout: 30_000 });
    expect(tty.status, tty.stderr).toBe(0);
    expect(tty.stdout).toContain('exported 8 events');
    const uuids = (ndjson: string) =>
      ndjson
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => (JSON.parse(l) as { uuid: string }).uuid);
    const exported = uuids(readFileSync(outFile, 'utf8'));
    expect(exported).toHaveLength(8);
    expect(exported).toEqual(uuids(piped.stdout));
  });

  it('refuses a bad --since or --project, and a directory without data', async () => {
    const since = await runCli(['events', 'export', '--since', 'last tuesday', '--data-dir', d.dataDir]);
    expect([since.code, since.stderr, since.stdout]).toEqual([2, 'hedgerow: --since must be an ISO-8601 date-time\n', '']);
    const project = await runCli(['events', 'export', '--project', 'two', '--data-dir', d.dataDir]);
    expect([project.code, project.stderr]).toEqual([2, 'hedgerow: --project must be an integer\n']);
    const empty = makeTempDir();
    const none = await runCli(['events', 'export', '--data-dir', empty]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^hedgerow: no Hedgerow data in /);
  });
});

describe('hedgerow events export of a larger log, with groups', () => {
  let d: DaemonHandle;

  beforeAll(async () => {
    d = await startDaemon({ backend: 'uws' });
    const identify = { event: '$groupidentify', distinct_id: 'g', properties: { $group_type: 'company', $group_key: 'acme' } };
    expect((await postJson(d, '/batch/', { api_key: d.projectKey, batch: [identify] })).status).toBe(200);
    const batch = Array.from({ length: 500 }, (_, i) => ({
      event: 'grouped',
      distinct_id: `u${i % 7}`,
      properties: { $groups: { company: 'acme' }, pad: 'x'.repeat(100) },
    }));
    for (let i = 0; i < 4; i++) expect((await postJson(d, '/batch/', { api_key: d.projectKey, batch })).status).toBe(200);
    await waitForPersons(d);
  });
  afterAll(async () => {
    expect(await d.stop()).toBe(0);
  });

  it('adds $group_<index> for $groups, as the events API does (PostHog ingestion adds them, docs/compatibility.md#groups)', async () => {
    const all = await exportEvents(d.dataDir);
    expect(all).toHaveLength(2001);
    expect(all[1]!.properties).toMatchObject({ $groups: { company: 'acme' }, $group_0: 'acme' });
    const listed = await apiClient(d, d.personalKey).get('/api/projects/1/events/?event=grouped&limit=1');
    expect((listed.json as { results: Array<{ properties: Record<string, unknown> }> }).results[0]!.properties.$group_0).toBe('acme');
  });

  it('ends quietly when its reader stops early (a closed pipe)', () => {
    const r = spawnSync(
      'bash',
      ['-c', `${process.execPath} ${CLI_MAIN} events export --data-dir ${d.dataDir} | head -c 100 > /dev/null; echo \${PIPESTATUS[0]}`],
      {
        encoding: 'utf8',
        timeout: 30_000,
      },
    );
    expect([r.stdout.trim(), r.stderr]).toEqual(['0', '']);
  });
});

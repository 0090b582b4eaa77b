/**
 * A data directory written by an earlier release opens and serves the same data. The fixture
 * (test/fixtures/store-9148124/) was made by the daemon at commit 9148124 (2026-11-27): 32 events
 * (an `$identify` merging `anon-0` into `user-0`, a `$groupidentify` of company `acme`), a cohort,
 * a flag on it with a payload and a multivariate flag; `flags-answers.json` is what that daemon
 * answered on `/flags` for 26 distinct ids before it stopped. Its bootstrap keys are below.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/api.js';
import { cleanupDaemons, exportEvents, makeTempDir, REPO_ROOT, startDaemon } from '../helpers/daemon.js';
import { OK, postJson } from '../helpers/http.js';

afterAll(cleanupDaemons);

const FIXTURE = path.join(REPO_ROOT, 'test/fixtures/store-9148124');
const PROJECT_KEY = 'phc_upgrade_fixture_project_key';
const PERSONAL_KEY = 'phx_upgrade_fixture_personal_key';

type Answers = Record<string, Record<string, { enabled: boolean; variant: string | null; payload: unknown }>>;

describe('a data directory of an earlier release', () => {
  it('opens, and serves the same events, persons, groups, flags and keys; capture goes on', async () => {
    const dataDir = path.join(makeTempDir(), 'data');
    mkdirSync(dataDir, { mode: 0o700 });
    writeFileSync(path.join(dataDir, 'hedgerow.mdb'), gunzipSync(readFileSync(path.join(FIXTURE, 'hedgerow.mdb.gz'))), { mode: 0o600 });
    const d = await startDaemon({ backend: 'uws', dataDir, projectKey: null, personalKey: null });

    const events = await exportEvents(dataDir);
    expect(events).toHaveLength(32);
    expect(events.filter((e) => e.uuid.startsWith('0190aaaa-'))).toHaveLength(32);

    const api = apiClient(d, PERSONAL_KEY);
    const persons = (await api.get('/api/projects/1/persons/?distinct_id=user-0')).json as {
      results: Array<{ distinct_ids: string[]; properties: Record<string, unknown> }>;
    };
    expect(persons.results).toHaveLength(1);
    expect([...(persons.results[0]?.distinct_ids ?? [])].sort()).toEqual(['anon-0', 'user-0']);
    expect(persons.results[0]?.properties).toMatchObject({ email: 'zero@example.com', plan: 'pro' });
    const groups = (await api.get('/api/projects/1/groups/?group_type_index=0')).json as {
      results: Array<{ group_key: string; group_properties: Record<string, unknown> }>;
    };
    expect(groups.results.map((g) => [g.group_key, g.group_properties.employees])).toEqual([['acme', 250]]);

    const expected = JSON.parse(readFileSync(path.join(FIXTURE, 'flags-answers.json'), 'utf8')) as Answers;
    for (const [id, flags] of Object.entries(expected)) {
      const r = await postJson(d, '/flags/?v=2', { api_key: PROJECT_KEY, distinct_id: id, groups: { company: 'acme' } });
      expect(r.status).toBe(200);
      const got = (r.json as { flags: Record<string, { enabled: boolean; variant?: string | null; metadata?: { payload?: unknown } }> })
        .flags;
      const answers = Object.fromEntries(
        Object.entries(got).map(([k, v]) => [k, { enabled: v.enabled, variant: v.variant ?? null, payload: v.metadata?.payload ?? null }]),
      );
      expect([id, answers]).toEqual([id, flags]);
    }

    const cap = await postJson(d, '/batch/', { api_key: PROJECT_KEY, batch: [{ event: 'after upgrade', distinct_id: 'user-0' }] });
    expect([cap.status, cap.json]).toEqual([200, OK]);
    expect(await d.stop()).toBe(0);
    expect((await exportEvents(dataDir)).map((e) => e.event)).toContain('after upgrade');
  });
});

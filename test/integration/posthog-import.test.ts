/**
 * `hedgerow admin import posthog` against a running daemon, from a saved PostHog local-evaluation
 * answer (test/fixtures/posthog-local-evaluation.json: rollouts, variants and payloads, person,
 * group and cohort conditions, nested cohorts, flag dependencies, an inactive flag, experience
 * continuity, two group types). After the import, the daemon's `/flags` answers what posthog-node's
 * own local evaluator answers from the same file, for a few hundred varied persons and groups,
 * both into a fresh project and into one whose group types already sit at other indexes.
 * Also: dry runs, re-runs, a flag that fails validation, refused files, and `--from`.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { PostHog } from 'posthog-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, createProject, type TestProject } from '../helpers/api.js';
import { cleanupDaemons, makeTempDir, REPO_ROOT, runCli, useDaemon } from '../helpers/daemon.js';
import { OK, postJson, waitForPersons } from '../helpers/http.js';

afterAll(cleanupDaemons);

const FIXTURE = path.join(REPO_ROOT, 'test/fixtures/posthog-local-evaluation.json');
const ANSWER = readFileSync(FIXTURE, 'utf8');
const FLAGS = (JSON.parse(ANSWER) as { flags: Array<{ key: string; active: boolean }> }).flags;
const FLAG_KEYS = FLAGS.map((f) => f.key);
const INACTIVE = new Set(FLAGS.filter((f) => !f.active).map((f) => f.key));
const PERSONS = 300;

/** A tiny seeded generator, so a failure names a person that can be looked at again. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

interface Subject {
  distinctId: string;
  personProperties: Record<string, string | number>;
  groups: Record<string, string>;
  groupProperties: Record<string, Record<string, string | number>>;
}

function subjects(count: number): Subject[] {
  const r = random(20261128);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const out: Subject[] = [];
  for (let i = 0; i < count; i++) {
    const personProperties: Record<string, string | number> = {};
    const plan = pick(['free', 'pro', 'enterprise', undefined]);
    if (plan) personProperties.plan = plan;
    if (r() < 0.7) personProperties.email = `person${i}@${pick(['example.com', 'mail.test', 'Example.COM'])}`;
    personProperties.country = pick(['GB', 'FR', 'US', 'DE', 'JP', 'NL']);
    personProperties.age = Math.floor(16 + r() * 50);
    personProperties.$browser = pick(['Chrome', 'Firefox', 'Safari', 'Edge']);
    if (r() < 0.8) personProperties.signup_date = `${pick(['2024', '2025', '2026'])}-0${1 + Math.floor(r() * 9)}-1${Math.floor(r() * 9)}`;
    const company = `company-${Math.floor(r() * 40)}`;
    const organization = `org-${Math.floor(r() * 25)}`;
    out.push({
      distinctId: `import-${i}-${Math.floor(r() * 1e9)}`,
      personProperties,
      groups: { company, organization },
      groupProperties: {
        company: { employees: Math.floor(r() * 400), industry: pick(['finance', 'healthcare', 'retail', 'fintech', 'health-tech']) },
        organization: { seats: Math.floor(r() * 50) },
      },
    });
  }
  return out;
}

/** Serves a saved answer where posthog-node polls for definitions, counting requests and their keys. */
async function serveAnswer(body: string, status = 200): Promise<{ url: string; auth: string[]; close(): Promise<void> }> {
  const auth: string[] = [];
  const server = http.createServer((req, res) => {
    auth.push(req.headers.authorization ?? '');
    const url = req.url ?? '';
    if (url.includes('local_evaluation') || url.includes('/flags/definitions')) {
      res.writeHead(status, { 'content-type': 'application/json' }).end(body);
    } else {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"Not found."}');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    auth,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('hedgerow admin import posthog', () => {
  const d = useDaemon({ backend: 'uws' });
  const clients: PostHog[] = [];
  let server: Awaited<ReturnType<typeof serveAnswer>>;
  let local: PostHog;
  const population = subjects(PERSONS);

  const importInto = (project: number, ...args: string[]) =>
    runCli(['admin', 'import', 'posthog', '--project', String(project), '--data-dir', d.dataDir, ...args]);

  beforeAll(async () => {
    server = await serveAnswer(ANSWER);
    local = new PostHog('phc_posthog_project', { host: server.url, personalApiKey: 'phx_posthog_key', fetchRetryCount: 0 });
    clients.push(local);
    expect(await local.waitForLocalEvaluationReady(10_000)).toBe(true);
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.shutdown()));
    await server.close();
  });

  /** Compares the daemon's /flags (through posthog-node) with posthog-node's local evaluation of the file. */
  async function compareWithLocalEvaluation(projectKey: string): Promise<{ compared: number; differences: string[]; keys: Set<string> }> {
    const remote = new PostHog(projectKey, { host: d.baseUrl, fetchRetryCount: 0, flushAt: 1 });
    clients.push(remote);
    const differences: string[] = [];
    const keys = new Set<string>();
    let compared = 0;
    const compare = async (s: Subject) => {
      const options = { personProperties: s.personProperties, groups: s.groups, groupProperties: s.groupProperties };
      const mine = await local.getAllFlagsAndPayloads(s.distinctId, { ...options, onlyEvaluateLocally: true });
      const theirs = await remote.getAllFlagsAndPayloads(s.distinctId, options);
      for (const [key, value] of Object.entries(mine.featureFlags ?? {})) {
        keys.add(key);
        compared++;
        // PostHog's /flags leaves inactive flags out; the SDK's local evaluator answers false for them.
        const answered = INACTIVE.has(key) && !(key in (theirs.featureFlags ?? {})) ? false : theirs.featureFlags?.[key];
        const payload = JSON.stringify(mine.featureFlagPayloads?.[key] ?? null);
        const served = JSON.stringify(theirs.featureFlagPayloads?.[key] ?? null);
        if (answered !== value || payload !== served) {
          differences.push(`${s.distinctId} ${key}: local ${String(value)} ${payload}, daemon ${String(answered)} ${served}`);
        }
      }
    };
    // The persons are independent: 25 remote calls at a time, not one round trip after another.
    for (let start = 0; start < population.length; start += 25) {
      await Promise.all(population.slice(start, start + 25).map(compare));
    }
    return { compared, differences, keys };
  }

  it('a dry run changes nothing; the import then creates every flag, cohort and group type; a second run changes nothing', async () => {
    const dry = await importInto(1, '--file', FIXTURE, '--dry-run');
    expect([dry.code, dry.stderr]).toEqual([0, '']);
    expect(dry.stdout).toContain('flag "beta-rollout": would be created');
    expect(dry.stdout.trimEnd().split('\n').at(-1)).toBe(
      'dry run, nothing changed: flags 15 created, 0 updated, 0 unchanged, 0 skipped; cohorts 2 created, 0 updated, 0 unchanged, 0 skipped; group types 2 created, 0 updated, 0 unchanged, 0 skipped',
    );
    const admin = apiClient(d, d.personalKey);
    expect(((await admin.get('/api/projects/1/feature_flags/')).json as { count: number }).count).toBe(0);
    expect(((await admin.get('/api/projects/1/cohorts/')).json as { count: number }).count).toBe(0);

    const run = await importInto(1, '--file', FIXTURE, '--json');
    expect([run.code, run.stderr]).toEqual([0, '']);
    const report = JSON.parse(run.stdout) as { flags: Array<{ key: string; outcome: string }>; cohorts: unknown[]; groupTypes: unknown[] };
    expect(report.flags.map((f) => f.key).sort()).toEqual([...FLAG_KEYS].sort());
    expect(new Set(report.flags.map((f) => f.outcome))).toEqual(new Set(['created']));
    expect(report.groupTypes).toEqual([
      { name: 'organization', posthogIndex: 0, index: 0, outcome: 'created' },
      { name: 'company', posthogIndex: 1, index: 1, outcome: 'created' },
    ]);

    // The served definitions are PostHog's, but for the re-pointed cohort ids.
    const served = (await admin.get('/api/projects/1/feature_flags/local_evaluation/?send_cohorts')).json as {
      flags: Array<Record<string, unknown>>;
      group_type_mapping: unknown;
      cohorts: Record<string, unknown>;
    };
    const original = JSON.parse(ANSWER) as { flags: Array<Record<string, unknown>>; cohorts: Record<string, unknown> };
    const cohortIds = new Map((report.cohorts as Array<{ posthogId: number; id: number }>).map((c) => [c.posthogId, c.id]));
    const repoint = (text: string) =>
      text.replace(/"type":"cohort","value":(\d+)/g, (_m, id: string) => `"type":"cohort","value":${cohortIds.get(Number(id))}`);
    for (const flag of original.flags) {
      const mine = served.flags.find((f) => f.key === flag.key) as Record<string, unknown>;
      const { id: _a, team_id: _b, ...theirs } = flag;
      for (const [field, value] of Object.entries(theirs)) {
        expect([flag.key, field, mine[field]]).toEqual([flag.key, field, JSON.parse(repoint(JSON.stringify(value)))]);
      }
    }
    expect(served.group_type_mapping).toEqual({ 0: 'organization', 1: 'company' });
    expect(Object.keys(served.cohorts).sort()).toEqual([...cohortIds.values()].map(String).sort());

    const again = await importInto(1, '--file', FIXTURE);
    expect([again.code, again.stderr]).toEqual([0, '']);
    expect(again.stdout.trimEnd().split('\n').at(-1)).toBe(
      'flags 0 created, 0 updated, 15 unchanged, 0 skipped; cohorts 0 created, 0 updated, 2 unchanged, 0 skipped; group types 0 created, 0 updated, 2 unchanged, 0 skipped',
    );
    expect(((await admin.get('/api/projects/1/feature_flags/')).json as { count: number }).count).toBe(15);
  });

  it("/flags then answers what posthog-node's local evaluation answers from the same file", async () => {
    const { compared, differences, keys } = await compareWithLocalEvaluation(d.projectKey);
    expect(differences.slice(0, 10)).toEqual([]);
    // Every flag but the one posthog-node cannot evaluate locally (experience continuity).
    expect([...keys].sort()).toEqual(FLAG_KEYS.filter((k) => k !== 'sticky-onboarding').sort());
    // posthog-node leaves out an answer it cannot reach locally (a property it was not given):
    // 3,876 of the 4,200 pairs are compared.
    expect(compared).toBeGreaterThan(PERSONS * 12);
  });

  it('re-points group type indexes a project already uses otherwise, and still answers as PostHog', async () => {
    const project: TestProject = await createProject(d, 'Has groups');
    // The project met "company" first: it holds index 0, which PostHog gives "organization".
    const r = await postJson(d, '/batch/', {
      api_key: project.api_token,
      batch: [{ event: '$groupidentify', distinct_id: 'setup', properties: { $group_type: 'company', $group_key: 'c', $group_set: {} } }],
    });
    expect([r.status, r.json]).toEqual([200, OK]);
    await waitForPersons(d);
    const run = await importInto(project.id, '--file', FIXTURE, '--json');
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect((JSON.parse(run.stdout) as { groupTypes: unknown[] }).groupTypes).toEqual([
      {
        name: 'organization',
        posthogIndex: 0,
        index: 1,
        outcome: 'created',
        note: 'index 0 is "company" in the project: references are re-pointed',
      },
      {
        name: 'company',
        posthogIndex: 1,
        index: 0,
        outcome: 'unchanged',
        note: 'the project has it at index 0: references are re-pointed',
      },
    ]);
    const { compared, differences } = await compareWithLocalEvaluation(project.api_token);
    expect(differences.slice(0, 10)).toEqual([]);
    expect(compared).toBeGreaterThan(PERSONS * 12);
  });

  it('updates a changed flag, reports and skips one that fails validation, and puts the rest in', async () => {
    const project = await createProject(d, 'Updates');
    expect((await importInto(project.id, '--file', FIXTURE)).code).toBe(0);
    const answer = JSON.parse(ANSWER) as {
      flags: Array<Record<string, unknown> & { filters: { groups: Array<Record<string, unknown>> } }>;
    };
    const beta = answer.flags.find((f) => f.key === 'beta-rollout')!;
    beta.filters.groups[0]!.rollout_percentage = 55;
    beta.name = 'Beta rollout to 55%';
    answer.flags.push({ key: 'bad-rollout', name: '', active: true, filters: { groups: [{ properties: [], rollout_percentage: 150 }] } });
    answer.flags.push({
      key: 'new-one',
      name: 'Added later',
      active: true,
      filters: { groups: [{ properties: [], rollout_percentage: 10 }] },
    });
    const file = path.join(makeTempDir(), 'changed.json');
    writeFileSync(file, JSON.stringify(answer));

    const dry = await importInto(project.id, '--file', file, '--dry-run');
    expect(dry.code).toBe(1);
    expect(dry.stdout).toMatch(/^flag "beta-rollout": would be updated \(id \d+\): name, filters$/m);
    const run = await importInto(project.id, '--file', file);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^flag "beta-rollout": updated \(id \d+\): name, filters$/m);
    expect(run.stdout).toMatch(/^flag "bad-rollout": skipped: .+\(filters\)$/m);
    expect(run.stdout).toMatch(/^flag "new-one": created \(id \d+\)$/m);
    expect(run.stdout.trimEnd().split('\n').at(-1)).toBe(
      'flags 1 created, 1 updated, 14 unchanged, 1 skipped; cohorts 0 created, 0 updated, 2 unchanged, 0 skipped; group types 0 created, 0 updated, 2 unchanged, 0 skipped',
    );
    const admin = apiClient(d, d.personalKey);
    const flags = (await admin.get(`/api/projects/${project.id}/feature_flags/?limit=100`)).json as {
      results: Array<{ key: string; version: number; filters: { groups: Array<{ rollout_percentage: number }> } }>;
    };
    const stored = new Map(flags.results.map((f) => [f.key, f]));
    expect(stored.has('bad-rollout')).toBe(false);
    expect(stored.get('beta-rollout')).toMatchObject({ version: 2, filters: { groups: [{ rollout_percentage: 55 }] } });
    expect(stored.get('pro-users')?.version).toBe(1);
  });

  it('refuses a file that is not such an answer, and changes nothing', async () => {
    const project = await createProject(d, 'Refusals');
    const dir = makeTempDir();
    const cases: Array<[string, string]> = [
      ['{"flags": [', 'hedgerow: not a PostHog local evaluation answer, nothing imported: not JSON'],
      ['{"count": 1, "next": null, "results": []}', 'this is the flag list (it has "results")'],
      ['[]', 'expected a JSON object with "flags", found a list'],
      ['{"flags": [{"key": "ok", "filters": {}}, {"name": "no key"}]}', 'flags[1] has no "key"'],
      ['{"flags": [], "group_type_mapping": {"7": "team"}}', '"group_type_mapping" maps "7" to "team"'],
    ];
    // Each refusal changes nothing (checked below): the imports run at once.
    const [missing, ...refused] = await Promise.all([
      importInto(project.id, '--file', path.join(dir, 'absent.json')),
      ...cases.map(([text], i) => {
        const file = path.join(dir, `bad-${i}.json`);
        writeFileSync(file, text);
        return importInto(project.id, '--file', file);
      }),
    ]);
    for (const [i, [, message]] of cases.entries()) {
      expect([refused[i]!.code, refused[i]!.stdout]).toEqual([2, '']);
      expect(refused[i]!.stderr).toContain(message);
    }
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringMatching(/^hedgerow: cannot read .*absent\.json: ENOENT/)]);
    const admin = apiClient(d, d.personalKey);
    expect(((await admin.get(`/api/projects/${project.id}/feature_flags/`)).json as { count: number }).count).toBe(0);
  });

  it('--from fetches the answer from a PostHog instance with the personal API key, and says what a refusal was', async () => {
    const [project, other] = await Promise.all([createProject(d, 'Fetched'), createProject(d, 'Refused')]);
    const key = `phx_${randomUUID()}`;
    // Servers of their own: the local evaluator polls the shared one now and then.
    const posthog = await serveAnswer(ANSWER);
    const refusing = await serveAnswer(
      '{"type":"authentication_error","code":"authentication_failed","detail":"Personal API key is invalid."}',
      401,
    );
    try {
      // Each import has its own project or is refused before reading one: they run at once.
      const [run, r, none] = await Promise.all([
        importInto(project.id, '--from', posthog.url, '--personal-api-key', key, '--posthog-project', '2', '--json'),
        runCli(['admin', 'import', 'posthog', '--project', String(other.id), '--data-dir', d.dataDir, '--from', `${refusing.url}/`], {
          env: { POSTHOG_PERSONAL_API_KEY: 'phx_wrong' },
        }),
        importInto(project.id, '--from', server.url),
      ]);
      expect([run.code, run.stderr]).toEqual([0, '']);
      expect((JSON.parse(run.stdout) as { flags: unknown[] }).flags).toHaveLength(15);
      expect(posthog.auth).toEqual([`Bearer ${key}`]);
      expect([r.code, r.stderr]).toEqual([
        2,
        `hedgerow: ${refusing.url}/api/feature_flag/local_evaluation/?send_cohorts answered 401: Personal API key is invalid.\n`,
      ]);
      expect([none.code, none.stderr]).toEqual([
        2,
        'hedgerow: --from needs a PostHog personal API key: --personal-api-key or POSTHOG_PERSONAL_API_KEY\n',
      ]);
    } finally {
      await Promise.all([posthog.close(), refusing.close()]);
    }
  });
});

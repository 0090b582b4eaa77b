/**
 * `hedgerow admin` against a running daemon: changes apply without a restart. (Help, bad
 * configuration, first start and stopping are cli-lifecycle.test.ts.)
 */

import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupDaemons, makeTempDir, newProjectKey, runCli, startDaemon, type DaemonHandle } from '../helpers/daemon.js';
import { eventsOf, listEvents, OK, postJson, send, uniqueId, type ApiPage } from '../helpers/http.js';

afterAll(cleanupDaemons);

function parseJson<T>(stdout: string): T {
  return JSON.parse(stdout) as T;
}

describe('hedgerow admin while the daemon runs', () => {
  let d: DaemonHandle;
  const admin = (...args: string[]) => runCli(['admin', ...args, '--data-dir', d.dataDir]);

  /** One event in project 1, for the keys to read. */
  const seedUuid = randomUUID();

  beforeAll(async () => {
    d = await startDaemon({ backend: 'uws' });
    const r = await postJson(d, '/batch/', { api_key: d.projectKey, batch: [{ uuid: seedUuid, event: 'seed', distinct_id: 'seed' }] });
    expect([r.status, r.json]).toEqual([200, OK]);
  });
  afterAll(async () => {
    expect(await d.stop()).toBe(0);
  });

  it('projects create --api-token: capture with that token is accepted at once, into the new project', async () => {
    const token = newProjectKey();
    const r = await admin('projects', 'create', '--name', 'Second', '--api-token', token, '--json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const project = parseJson<{ id: number; name: string; api_token: string }>(r.stdout);
    expect(project).toMatchObject({ id: 2, name: 'Second', api_token: token });

    const id = uniqueId('second');
    const uuid = randomUUID();
    const cap = await postJson(d, '/batch/', { api_key: token, batch: [{ uuid, event: 'in project 2', distinct_id: id }] });
    expect([cap.status, cap.json]).toEqual([200, OK]);
    expect((await eventsOf(d, id, 2)).map((e) => e.id)).toEqual([uuid]);
    expect(await eventsOf(d, id, 1)).toEqual([]);
  });

  it('a personal key as api_key goes to the project named by project_id, if its user may use it', async () => {
    const id = uniqueId('phx-project');
    const uuid = randomUUID();
    const r = await postJson(d, '/batch/', {
      api_key: d.personalKey,
      project_id: 2,
      batch: [{ uuid, event: 'phx into 2', distinct_id: id }],
    });
    expect([r.status, r.json]).toEqual([200, OK]);
    expect((await eventsOf(d, id, 2)).map((e) => e.id)).toEqual([uuid]);
    const missing = await postJson(d, '/batch/?project_id=99', { api_key: d.personalKey, batch: [{ event: 'nowhere', distinct_id: id }] });
    expect([missing.status, missing.json]).toEqual([
      400,
      { type: 'validation_error', code: 'invalid_project', detail: 'Project 99 not found for this personal API key.', attr: 'project_id' },
    ]);
  });

  it('projects create without a token generates one; bad and duplicate tokens are refused', async () => {
    const r = await admin('projects', 'create', '--name', 'Generated', '--json');
    expect(r.code).toBe(0);
    const p = parseJson<{ id: number; api_token: string }>(r.stdout);
    expect(p.id).toBe(3);
    expect(p.api_token).toMatch(/^phc_[A-Za-z0-9_-]{43}$/);
    const cap = await postJson(d, '/e/', [{ event: 'generated token', distinct_id: 'g', properties: { token: p.api_token } }]);
    expect([cap.status, cap.json]).toEqual([200, OK]);

    // Refusals write nothing: they run at once, and the list after them shows no project was added.
    const [bad, dup] = await Promise.all([
      admin('projects', 'create', '--name', 'Bad', '--api-token', 'phc has space'),
      admin('projects', 'create', '--name', 'Dup', '--api-token', d.projectKey),
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      'hedgerow: a project API token cannot hold whitespace or control characters: SDKs and HTTP headers would trim or mangle them\n',
    );
    expect(dup.code).toBe(2);
    expect(dup.stderr).toBe('hedgerow: that api token is already used by another project\n');

    const [list, text] = await Promise.all([admin('projects', 'list', '--json'), admin('projects', 'list')]);
    expect(list.code).toBe(0);
    expect(parseJson<Array<{ id: number; name: string }>>(list.stdout).map((x) => [x.id, x.name])).toEqual([
      [1, 'Default project'],
      [2, 'Second'],
      [3, 'Generated'],
    ]);
    expect(text.stdout.split('\n').slice(0, 2)).toEqual(['id\tapi token\tname', `1\t${d.projectKey}\tDefault project`]);
  });

  it('projects create takes any token a PostHog project holds; each captures and answers /flags', async () => {
    const older = `${uniqueId('k').replace(/[^A-Za-z0-9]/g, '')}${'Q'.repeat(43)}`.slice(0, 43);
    const tokens = ['phc_test', older, `phc_${'L'.repeat(116)}`, `phc_${'M'.repeat(196)}`];
    // Each token is a project of its own, checked through its own id: the four run at once.
    const carried = async (token: string) => {
      const r = await admin('projects', 'create', '--name', `carried ${token.length}`, '--api-token', token, '--json');
      expect([r.code, r.stderr]).toEqual([0, '']);
      const project = parseJson<{ id: number; api_token: string }>(r.stdout);
      expect(project.api_token).toBe(token);
      const id = uniqueId('carried');
      const uuid = randomUUID();
      const cap = await postJson(d, '/batch/', { api_key: token, batch: [{ uuid, event: 'carried key', distinct_id: id }] });
      expect([token.length, cap.status, cap.json]).toEqual([token.length, 200, OK]);
      expect((await eventsOf(d, id, project.id)).map((e) => e.id)).toEqual([uuid]);
      const flags = await postJson(d, '/flags/?v=2', { token, distinct_id: id });
      expect([token.length, flags.status]).toEqual([token.length, 200]);
    };
    await Promise.all(tokens.map(carried));
    // A key no project holds still gets capture-rs's answer for its shape.
    const unknown = await postJson(d, '/batch/', { api_key: `phc_${'N'.repeat(116)}`, batch: [{ event: 'x', distinct_id: 'x' }] });
    expect([unknown.status, (unknown.json as { detail: string }).detail]).toEqual([401, 'Provided API key is not valid: too_long']);
    const refusals = [
      [`phc_${'x'.repeat(197)}`, "a project API token holds at most 200 characters, as PostHog's does; this one has 201"],
      ['phx_looks_personal', 'a project API token cannot start with "phx_"'],
      ['tab\tinside', 'a project API token cannot hold whitespace or control characters'],
    ] as const;
    const refused = await Promise.all(refusals.map(([token]) => admin('projects', 'create', '--name', 'refused', '--api-token', token)));
    for (const [i, [, why]] of refusals.entries()) {
      expect(refused[i]!.code).toBe(2);
      expect(refused[i]!.stderr).toContain(`hedgerow: ${why}`);
    }
  });

  it("projects create --id keeps a PostHog project's id, so API paths keep working", async () => {
    const r = await admin('projects', 'create', '--name', 'Kept id', '--id', '4242', '--json');
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(parseJson<{ id: number }>(r.stdout).id).toBe(4242);
    const list = await send(d, '/api/projects/4242/feature_flags/', { headers: { authorization: `Bearer ${d.personalKey}` } });
    expect(list.status).toBe(200);
    const [again, bad] = await Promise.all([
      admin('projects', 'create', '--name', 'Same id', '--id', '4242'),
      admin('projects', 'create', '--name', 'Zero', '--id', '0'),
    ]);
    expect([again.code, again.stderr]).toEqual([2, 'hedgerow: project 4242 already exists\n']);
    expect([bad.code, bad.stderr]).toEqual([2, 'hedgerow: --id must be between 1 and 2147483647\n']);
  });

  it('keys create --scopes query:read --json returns a key that works on the events API', async () => {
    const r = await admin('keys', 'create', '--user', 'admin@hedgerow.local', '--scopes', 'query:read', '--label', 'reader', '--json');
    expect(r.code).toBe(0);
    const key = parseJson<{ id: string; user_id: number; label: string; scopes: string[]; key: string }>(r.stdout);
    expect(key).toMatchObject({ user_id: 1, label: 'reader', scopes: ['query:read'] });
    expect(key.key).toMatch(/^phx_[A-Za-z0-9_-]{43}$/);

    const res = await send(d, '/api/projects/@current/events/?limit=1', { headers: { authorization: `Bearer ${key.key}` } });
    expect(res.status).toBe(200);
    expect((res.json as ApiPage).results.map((e) => e.id)).toEqual([seedUuid]);

    const list = await admin('keys', 'list', '--json');
    const listed = parseJson<Array<Record<string, unknown>>>(list.stdout);
    const mine = listed.find((k) => k.id === key.id);
    expect(mine).toMatchObject({ label: 'reader', scopes: ['query:read'], mask_value: `phx_...${key.key.slice(-4)}` });
    for (const k of listed) expect(Object.keys(k)).not.toContain('secure_value_hash');
    expect(list.stdout).not.toContain(key.key);
  });

  it('users create, then a key for that user reads its current project', async () => {
    const r = await admin('users', 'create', '--email', 'bob@example.com', '--first-name', 'Bob', '--json');
    expect(r.code).toBe(0);
    const user = parseJson<Record<string, unknown>>(r.stdout);
    expect(user).toMatchObject({
      id: 2,
      email: 'bob@example.com',
      first_name: 'Bob',
      current_project_id: 1,
      is_staff: false,
      organization_level: 1,
    });

    const dup = await admin('users', 'create', '--email', 'bob@example.com');
    expect(dup.code).toBe(2);
    expect(dup.stderr).toBe('hedgerow: a user with email bob@example.com already exists\n');

    const users = await admin('users', 'list', '--json');
    expect(parseJson<Array<{ email: string }>>(users.stdout).map((u) => u.email)).toEqual(['admin@hedgerow.local', 'bob@example.com']);

    const k = await admin('keys', 'create', '--user', 'bob@example.com', '--full-access', '--json');
    expect(k.code).toBe(0);
    const bobKey = parseJson<{ key: string; scopes: string[]; user_id: number }>(k.stdout);
    expect(bobKey).toMatchObject({ user_id: 2, scopes: [] });
    const page = await listEvents(d, { limit: '1' }, { key: bobKey.key, project: '@current' });
    expect(page.results.map((e) => e.id)).toEqual([seedUuid]);

    // Scopes and projects are checked as PostHog's PersonalAPIKeySerializer checks them. Each
    // command is a key of its own (or none): they run at once.
    const createKey = ['keys', 'create', '--user', 'admin@hedgerow.local'];
    const [nobody, bogus, deleteScope, plural, noProject, scoped] = await Promise.all([
      admin('keys', 'create', '--user', 'nobody@example.com', '--full-access'),
      admin(...createKey, '--scopes', 'feature_flag:read,bogus:scope'),
      admin(...createKey, '--scopes', 'feature_flag:delete'),
      admin(...createKey, '--scopes', 'feature_flags:read'),
      admin(...createKey, '--full-access', '--projects', '1,9999'),
      admin(...createKey, '--scopes', '*,insight:read', '--projects', '1'),
    ]);
    expect(nobody.code).toBe(2);
    expect(nobody.stderr).toBe('hedgerow: no user nobody@example.com\n');
    expect(bogus).toMatchObject({
      code: 2,
      stderr: 'hedgerow: Invalid scope: bogus:scope\n',
    });
    expect(deleteScope).toMatchObject({
      code: 2,
      stderr: 'hedgerow: Invalid scope: feature_flag:delete. Did you mean feature_flag:read or feature_flag:write?\n',
    });
    expect(plural).toMatchObject({
      code: 2,
      stderr: 'hedgerow: Invalid scope: feature_flags:read. Did you mean feature_flag:read?\n',
    });
    expect(noProject.code).toBe(2);
    expect(noProject.stderr).toMatch(/^hedgerow: You must be a member of all teams that you are scoping the key to\. \(no project 9999 /);
    expect(scoped.code).toBe(0);
  });

  it('keys create asks for full access explicitly; keys revoke and roll apply at once; projects reset-token', async () => {
    const createKey = ['keys', 'create', '--user', 'admin@hedgerow.local'];
    const [emptyScopes, unsaid, both] = await Promise.all([
      admin(...createKey, '--scopes', ''),
      admin(...createKey),
      admin(...createKey, '--scopes', '*', '--full-access'),
    ]);
    expect(emptyScopes).toMatchObject({
      code: 2,
      stderr:
        "hedgerow: --scopes is empty: list at least one scope (e.g. feature_flag:read, or '*'), or use --full-access for an unscoped key\n",
    });
    expect(unsaid.stderr).toMatch(/^hedgerow: say what the key may do: --scopes <list> .* or --full-access/);
    expect(both.code).toBe(2);

    const made = parseJson<{ id: string; key: string; scopes: string[] }>((await admin(...createKey, '--full-access', '--json')).stdout);
    expect(made.scopes).toEqual([]);
    expect((await listEvents(d, { limit: '1' }, { key: made.key, project: '1' })).results).toHaveLength(1);
    const keyLines = (await admin('keys', 'list')).stdout.split('\n');
    expect(keyLines[0]).toBe('id\tuser\tkey\tlabel\tscopes\tlast used');
    const listed = keyLines.find((l) => l.startsWith(made.id));
    // Just used by the daemon, which records the use without holding the request: a time, or
    // `never` while that write is on its way.
    expect(listed).toMatch(/^\S+\tadmin@hedgerow\.local\tphx_\.\.\.\S{4}\t\S+\t\(full access\)\t(never|\d{4}-\d\d-\d\dT[\d:.]+Z)$/);

    const rolled = await admin('keys', 'roll', made.id);
    expect(rolled.code).toBe(0);
    const newKey = /^rolled personal API key \S+ \(shown once\): (phx_\S+)\n$/.exec(rolled.stdout)?.[1] ?? '';
    expect(newKey).toMatch(/^phx_/);
    const oldRefused = await send(d, '/api/projects/1/events/?limit=1', { headers: { authorization: `Bearer ${made.key}` } });
    expect(oldRefused.status).toBe(401);
    expect((await listEvents(d, { limit: '1' }, { key: newKey, project: '1' })).results).toHaveLength(1);

    expect(await admin('keys', 'revoke', made.id)).toMatchObject({ code: 0, stdout: `revoked personal API key ${made.id}\n` });
    const newRefused = await send(d, '/api/projects/1/events/?limit=1', { headers: { authorization: `Bearer ${newKey}` } });
    expect(newRefused.status).toBe(401);
    const [revokedAgain, rollNone] = await Promise.all([admin('keys', 'revoke', made.id), admin('keys', 'roll', 'nope')]);
    expect(revokedAgain).toMatchObject({ code: 2, stderr: `hedgerow: no personal API key ${made.id}\n` });
    expect(rollNone.stderr).toBe('hedgerow: no personal API key nope\n');

    // A project of its own, so that the other tests keep their tokens.
    const project = parseJson<{ id: number; api_token: string }>(
      (await admin('projects', 'create', '--name', 'Reset me', '--json')).stdout,
    );
    const accepted = await postJson(d, '/batch/', { api_key: project.api_token, batch: [{ event: 'before', distinct_id: 'r' }] });
    expect(accepted.status).toBe(200);
    const reset = await admin('projects', 'reset-token', String(project.id));
    const token = new RegExp(`^project ${project.id} "Reset me" has a new API token: (phc_\\S+)\\n$`).exec(reset.stdout)?.[1] ?? '';
    expect(token).toMatch(/^phc_[A-Za-z0-9_-]{43}$/);
    const refused = await postJson(d, '/batch/', { api_key: project.api_token, batch: [{ event: 'after', distinct_id: 'r' }] });
    expect(refused.status).toBe(401);
    const flags = await postJson(d, '/flags/?v=2', { token: project.api_token, distinct_id: 'r' });
    expect(flags.status).toBe(401);
    expect((await postJson(d, '/batch/', { api_key: token, batch: [{ event: 'after', distinct_id: 'r' }] })).status).toBe(200);
    expect(await admin('projects', 'reset-token', '999')).toMatchObject({ code: 2, stderr: 'hedgerow: project 999 does not exist\n' });
  });

  it('users create refuses a malformed email; users list has a header row', async () => {
    const bads = ['not-an-email', 'a@b', 'two@@example.com', 'sp ace@example.com'];
    const refused = await Promise.all(bads.map((bad) => admin('users', 'create', '--email', bad)));
    for (const [i, bad] of bads.entries()) {
      expect(refused[i]).toMatchObject({
        code: 2,
        stderr: `hedgerow: --email: "${bad}" is not an email address (name@example.com)\n`,
      });
    }
    const lines = (await admin('users', 'list')).stdout.split('\n');
    expect(lines[0]).toBe('id\temail\tcurrent project\torganization level');
    expect(lines[1]).toBe('1\tadmin@hedgerow.local\t1\towner');
  });

  it('roles and access take levels by name and show them by name; members by email', async () => {
    const [readers, writers, badLevel] = await Promise.all([
      admin('roles', 'create', '--name', 'Readers', '--level', 'viewer', '--json'),
      admin('roles', 'create', '--name', 'Writers', '--level', 'EDIT'),
      admin('roles', 'create', '--name', 'Bad', '--level', 'admin'),
    ]);
    const role = parseJson<{ id: string; feature_flags_access_level: number }>(readers.stdout);
    expect(role.feature_flags_access_level).toBe(21);
    expect(writers.stdout).toMatch(/^created role \S+ "Writers" \(flag access level edit \(37\)\)\n$/);
    expect(badLevel).toMatchObject({
      code: 2,
      stderr: 'hedgerow: --level must be view (or viewer, 21: can only view) or edit (or editor, 37: can always edit)\n',
    });
    const roles = (await admin('roles', 'list')).stdout.split('\n');
    expect(roles[0]).toBe('id\tflag access\tmembers\tname');
    expect(roles).toContain(`${role.id}\tview (21)\t0\tReaders`);

    expect((await admin('roles', 'add-member', '--role', 'Readers', '--user', 'admin@hedgerow.local')).code).toBe(0);
    const [membersText, membersJson] = await Promise.all([
      admin('roles', 'members', '--role', 'readers'),
      admin('roles', 'members', '--role', 'Readers', '--json'),
    ]);
    const members = membersText.stdout.split('\n');
    expect(members[0]).toBe('membership\tuser\tjoined');
    expect(members[1]).toMatch(/^\S+\tadmin@hedgerow\.local\t\d{4}-/);
    const json = parseJson<Array<{ user_id: number; email: string }>>(membersJson.stdout);
    expect(json.map((m) => [m.user_id, m.email])).toEqual([[1, 'admin@hedgerow.local']]);

    expect((await admin('access', 'set', '--resource', 'feature flags', '--level', 'view')).stdout).toBe(
      'feature flags: access level view (21)\n',
    );
    const access = (await admin('access', 'list')).stdout.split('\n');
    expect(access[0]).toBe('id\tlevel\tresource');
    expect(access[1]).toMatch(/^\S+\tview \(21\)\tfeature flags$/);
    expect((await admin('access', 'clear', '--resource', 'feature flags')).stdout).toBe(
      'feature flags: access level edit (37) (default)\n',
    );
  });

  it("flags dashboard-link prints a signed link to the flag's usage dashboard page, as the API's", async () => {
    const bearer = { authorization: `Bearer ${d.personalKey}` };
    const created = await postJson(
      d,
      '/api/projects/1/feature_flags/',
      { key: 'cli-link', filters: { groups: [{ rollout_percentage: 100 }] } },
      bearer,
    );
    expect(created.status).toBe(201);
    const flag = created.json as { id: number; usage_dashboard: number };

    const link = await admin('flags', 'dashboard-link', '--project', '1', '--flag', 'cli-link', '--port', String(d.port));
    expect([link.code, link.stderr]).toEqual([0, '']);
    const url = link.stdout.trim();
    const prefix = `http://127.0.0.1:${d.port}/project/1/dashboard/${flag.usage_dashboard}?exp=`;
    expect(url.startsWith(prefix), url).toBe(true);
    const page = await fetch(url);
    expect([page.status, page.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);

    // The API's link for the same dashboard, signed the same way (it may be a second later).
    const api = await send(d, `/api/projects/1/dashboards/${flag.usage_dashboard}/`, { headers: bearer });
    const apiUrl = (api.json as { hedgerow_page_url: string }).hedgerow_page_url;
    expect(apiUrl.startsWith(prefix)).toBe(true);
    expect(Math.abs(Number(new URL(apiUrl).searchParams.get('exp')) - Number(new URL(url).searchParams.get('exp')))).toBeLessThanOrEqual(2);

    const [byId, noFlag, ftp] = await Promise.all([
      admin(
        'flags',
        'dashboard-link',
        '--project',
        '1',
        '--flag',
        String(flag.id),
        '--base-url',
        'https://flags.example.com/hedgerow/',
        '--json',
      ),
      admin('flags', 'dashboard-link', '--project', '1', '--flag', 'no-such-flag'),
      admin('flags', 'dashboard-link', '--project', '1', '--flag', 'cli-link', '--base-url', 'ftp://x'),
    ]);
    const body = parseJson<{ url: string; dashboard: number; expires_at: string }>(byId.stdout);
    expect(body.url.startsWith(`https://flags.example.com/hedgerow/project/1/dashboard/${flag.usage_dashboard}?exp=`)).toBe(true);
    expect(body.dashboard).toBe(flag.usage_dashboard);
    expect(Date.parse(body.expires_at) - Date.now()).toBeGreaterThan(6.9 * 86400_000);

    expect(noFlag).toMatchObject({
      code: 2,
      stderr: 'hedgerow: no flag no-such-flag in project 1\n',
    });
    expect(ftp).toMatchObject({
      code: 2,
      stderr: 'hedgerow: --base-url must be an http or https URL without query, fragment or credentials, got "ftp://x"\n',
    });
  });

  it('admin, events and backup read --env-file as serve does, and warn of unknown HEDGEROW_* variables', async () => {
    const dir = makeTempDir();
    const envFile = path.join(dir, 'hedgerow.env');
    writeFileSync(envFile, `# as /etc/hedgerow/hedgerow.env\nHEDGEROW_DATA_DIR=${d.dataDir}\nHEDGEROW_PROT=9000\n`);
    const warning = 'hedgerow: warning: unknown environment variable HEDGEROW_PROT (did you mean HEDGEROW_PORT?); it is ignored\n';

    // Six commands that read the data (a backup only copies it): they run at once.
    const empty = makeTempDir();
    const [listed, exported, backup, fromEnv, elsewhere, missing] = await Promise.all([
      runCli(['admin', 'projects', 'list', '--env-file', envFile]),
      runCli(['events', 'export', '--env-file', envFile, '--project', '1']),
      runCli(['backup', path.join(dir, 'backup'), '--env-file', envFile]),
      // From the environment too; a flag still wins over the file.
      runCli(['admin', 'users', 'list', '--data-dir', d.dataDir], { env: { HEDGEROW_LOGLEVEL: 'debug' } }),
      runCli(['admin', 'projects', 'list', '--env-file', envFile, '--data-dir', empty]),
      // A missing file stops the command (Node 20 itself reads a `--env-file` anywhere in its
      // arguments and exits 9 before Hedgerow starts; the single binary says it as a setting).
      runCli(['admin', 'projects', 'list', '--env-file', path.join(dir, 'absent.env')]),
    ]);
    expect([listed.code, listed.stderr]).toEqual([0, warning]);
    expect(listed.stdout).toContain(`1\t${d.projectKey}\tDefault project`);

    expect([exported.code, exported.stderr]).toEqual([0, warning]);
    expect(exported.stdout).toContain(seedUuid);

    expect([backup.code, backup.stderr]).toEqual([0, warning]);
    expect(backup.stdout).toContain(`wrote a backup of ${d.dataDir}`);

    expect([fromEnv.code, fromEnv.stderr]).toEqual([
      0,
      'hedgerow: warning: unknown environment variable HEDGEROW_LOGLEVEL (did you mean HEDGEROW_LOG_LEVEL?); it is ignored\n',
    ]);
    expect(elsewhere.stderr).toContain(`no Hedgerow data in ${empty}`);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('absent.env');
  });

  it('admin on a directory without data says so', async () => {
    const empty = makeTempDir();
    const r = await runCli(['admin', 'projects', 'list', '--data-dir', empty]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `hedgerow: no Hedgerow data in ${empty}: start the daemon once (hedgerow serve --data-dir ${empty}) to create it\n`,
    );
  });

  it('admin on a file that is not Hedgerow data says so (LMDB crashed on it before)', async () => {
    const dir = makeTempDir();
    writeFileSync(path.join(dir, 'hedgerow.mdb'), 'not an LMDB file');
    const r = await runCli(['admin', 'projects', 'list', '--data-dir', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `hedgerow: cannot open the data in ${dir}: ${path.join(dir, 'hedgerow.mdb')} is not a Hedgerow data file (no LMDB meta page)\n`,
    );
  });
});

/**
 * Keys and tokens have a life cycle, as in PostHog: `/api/personal_api_keys/` (list, create,
 * retrieve, update, delete, roll) and a project's `reset_token`. A revoked or rolled personal key
 * and a reset project token are refused from the very next request by every thread that
 * authenticates: the uWS front-end threads (flag definitions, /flags), the main thread (the
 * management API, small captures) and the pool workers (gzip captures, /flags bodies too large for
 * a front-end thread). The daemon runs uWS in two threads on a port given by number, and every
 * request goes on a connection of its own, so they spread over the threads.
 */
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, createUser } from '../helpers/api.js';
import { cleanupDaemons, runCli, startDaemon, type DaemonHandle } from '../helpers/daemon.js';
import { freePort } from '../helpers/free-port.js';
import { type ConnectionAnswer, onNewConnection } from '../helpers/http.js';

afterAll(cleanupDaemons);

const JSON_TYPE = { 'content-type': 'application/json' };
const ROUNDS = 8;

describe('personal API keys and project tokens: life cycle, refused at once by every thread', () => {
  let d: DaemonHandle;
  const cli = (...args: string[]) => runCli(['admin', ...args, '--data-dir', d.dataDir]);

  beforeAll(async () => {
    d = await startDaemon({ backend: 'uws', env: { HEDGEROW_PORT: String(await freePort()), HEDGEROW_HTTP_THREADS: '2' } });
    expect(d.records().find((r) => r.msg?.startsWith('listening on'))).toMatchObject({ http_backend: 'uws', http_threads: 2 });
    const flag = await apiClient(d, d.personalKey).post('/api/projects/1/feature_flags/', {
      key: 'lifecycle-flag',
      filters: { groups: [{ properties: [], rollout_percentage: 100 }] },
    });
    expect(flag.status, flag.text).toBe(201);
  });

  /** Every way a personal key authenticates, each `ROUNDS` times on new connections; the statuses seen. */
  async function personalKeyStatuses(key: string): Promise<Record<string, number[]>> {
    const bearer = { authorization: `Bearer ${key}` };
    const times = <T>(f: () => Promise<T>) => Promise.all(Array.from({ length: ROUNDS }, f));
    const statuses = async (f: () => Promise<ConnectionAnswer>) => [...new Set((await times(f)).map((a) => a.status))].sort();
    const event = (i: string) => JSON.stringify({ api_key: key, project_id: 1, batch: [{ event: 'k', distinct_id: i }] });
    return {
      management: await statuses(() => onNewConnection(d.port, 'GET', '/api/projects/1/feature_flags/', bearer)),
      definitions: await statuses(() => onNewConnection(d.port, 'GET', `/flags/definitions?token=${d.projectKey}`, bearer)),
      legacyDefinitions: await statuses(() =>
        onNewConnection(d.port, 'GET', `/api/feature_flag/local_evaluation?token=${d.projectKey}`, bearer),
      ),
      capture: await statuses(() => onNewConnection(d.port, 'POST', '/batch/', JSON_TYPE, event('small'))),
      // gzip is decoded in a pool worker, never on the main thread.
      capturePool: await statuses(() =>
        onNewConnection(d.port, 'POST', '/batch/', { ...JSON_TYPE, 'content-encoding': 'gzip' }, gzipSync(event('pooled'))),
      ),
    };
  }

  /** Capture and /flags with a project token, in the threads, on the main thread and in the pool. */
  async function projectTokenStatuses(token: string): Promise<Record<string, number[]>> {
    const times = <T>(f: () => Promise<T>) => Promise.all(Array.from({ length: ROUNDS }, f));
    const statuses = async (f: () => Promise<ConnectionAnswer>) => [...new Set((await times(f)).map((a) => a.status))].sort();
    const event = JSON.stringify({ api_key: token, batch: [{ event: 'k', distinct_id: 'token-user' }] });
    // Decodes to ~200 KB: more than a front-end thread decodes, so the pool answers it.
    const bigFlags = gzipSync(JSON.stringify({ token, distinct_id: 'big', person_properties: { blob: 'x'.repeat(200_000) } }));
    return {
      flags: await statuses(() => onNewConnection(d.port, 'POST', '/flags/?v=2', JSON_TYPE, JSON.stringify({ token, distinct_id: 'u' }))),
      flagsPool: await statuses(() =>
        onNewConnection(d.port, 'POST', '/flags/?v=2', { ...JSON_TYPE, 'content-encoding': 'gzip' }, bigFlags),
      ),
      capture: await statuses(() => onNewConnection(d.port, 'POST', '/batch/', JSON_TYPE, event)),
      capturePool: await statuses(() =>
        onNewConnection(d.port, 'POST', '/batch/', { ...JSON_TYPE, 'content-encoding': 'gzip' }, gzipSync(event)),
      ),
      remoteConfig: await statuses(() => onNewConnection(d.port, 'GET', `/array/${token}/config`, {})),
    };
  }

  const allOk = { management: [200], definitions: [200], legacyDefinitions: [200], capture: [200], capturePool: [200] };
  const all401 = { management: [401], definitions: [401], legacyDefinitions: [401], capture: [401], capturePool: [401] };

  it('creates, lists, retrieves, updates and deletes keys in PostHog shape; a deleted key is refused everywhere at once', async () => {
    const admin = apiClient(d, d.personalKey);
    const created = await admin.post('/api/personal_api_keys/', { label: 'ci', scopes: ['feature_flag:read', 'query:write'] });
    expect(created.status, created.text).toBe(201);
    const key = created.json as Record<string, unknown> & { id: string; value: string };
    expect(Object.keys(key).sort()).toEqual(
      [
        'created_at',
        'id',
        'label',
        'last_rolled_at',
        'last_used_at',
        'mask_value',
        'scoped_organizations',
        'scoped_teams',
        'scopes',
        'user_id',
        'value',
      ].sort(),
    );
    expect(key).toMatchObject({
      label: 'ci',
      scopes: ['feature_flag:read', 'query:write'],
      user_id: 1,
      last_rolled_at: null,
      scoped_teams: null,
    });
    expect(key.value).toMatch(/^phx_/);
    expect(key.mask_value).toBe(`phx_...${key.value.slice(-4)}`);
    expect(key.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);

    const list = await admin.get('/api/personal_api_keys/');
    expect(list.status).toBe(200);
    const listed = list.json as { id: string; value: null; scopes: string[] }[];
    expect(listed[0]).toMatchObject({ id: key.id, value: null });
    // The bootstrap key is unscoped: PostHog shows such a legacy key as ["*"].
    expect(listed.at(-1)?.scopes).toEqual(['*']);

    expect((await admin.get(`/api/personal_api_keys/${key.id}/`)).json).toMatchObject({ id: key.id, value: null });
    const patched = await admin.patch(`/api/personal_api_keys/${key.id}/`, { label: 'ci-2', scopes: ['feature_flag:read', 'query:read'] });
    expect(patched.json).toMatchObject({ id: key.id, label: 'ci-2', scopes: ['feature_flag:read', 'query:read'], value: null });

    // The key itself may retrieve itself only (PostHog's PersonalApiKeySelfAccessPermission).
    const self = apiClient(d, key.value);
    expect((await self.get('/api/personal_api_keys/@current/')).json).toMatchObject({ id: key.id, label: 'ci-2' });
    expect((await self.get(`/api/personal_api_keys/${key.id}/`)).status).toBe(200);
    const denied = await self.get('/api/personal_api_keys/');
    expect([denied.status, denied.json]).toEqual([
      403,
      {
        type: 'authentication_error',
        code: 'permission_denied',
        detail: 'This action does not support Personal API Key access',
        attr: null,
      },
    ]);
    expect((await self.post(`/api/personal_api_keys/${key.id}/roll/`)).status).toBe(403);
    expect((await self.delete(`/api/personal_api_keys/${key.id}/`)).status).toBe(403);

    const before = await personalKeyStatuses(key.value);
    expect(before).toEqual({ ...allOk, management: [200] });

    const deleted = await admin.delete(`/api/personal_api_keys/${key.id}/`);
    expect([deleted.status, deleted.text]).toEqual([204, '']);
    expect(await personalKeyStatuses(key.value)).toEqual(all401);
    expect((await admin.get(`/api/personal_api_keys/${key.id}/`)).status).toBe(404);
    expect((await admin.delete(`/api/personal_api_keys/${key.id}/`)).status).toBe(404);
  });

  it('roll: a new secret once, the old one refused everywhere at once, last_rolled_at set', async () => {
    const admin = apiClient(d, d.personalKey);
    const created = (await admin.post('/api/personal_api_keys/', { label: 'to roll', scopes: ['*'] })).json as {
      id: string;
      value: string;
      mask_value: string;
      created_at: string;
    };
    expect(await personalKeyStatuses(created.value)).toEqual(allOk);

    const rolled = await admin.post(`/api/personal_api_keys/${created.id}/roll/`);
    expect(rolled.status, rolled.text).toBe(200);
    const r = rolled.json as {
      id: string;
      value: string;
      mask_value: string;
      last_rolled_at: string;
      created_at: string;
      scopes: string[];
    };
    expect(r).toMatchObject({ id: created.id, label: 'to roll', scopes: ['*'], created_at: created.created_at });
    expect(r.value).toMatch(/^phx_/);
    expect(r.value).not.toBe(created.value);
    expect(r.mask_value).not.toBe(created.mask_value);
    expect(r.last_rolled_at).toMatch(/Z$/);

    expect(await personalKeyStatuses(created.value)).toEqual(all401);
    expect(await personalKeyStatuses(r.value)).toEqual(allOk);
    expect((await admin.get(`/api/personal_api_keys/${created.id}/`)).json).toMatchObject({
      value: null,
      last_rolled_at: r.last_rolled_at,
    });
  });

  it('validates as PostHog: label, scopes, scoped teams and organizations, and at most 10 keys a user', async () => {
    const user = await createUser(d, { email: 'keys-validation@example.com' });
    const client = apiClient(d, user.key);
    const post = (body: unknown) => client.post('/api/personal_api_keys/', body);
    const err = (code: string, detail: string, attr: string | null) => ({ type: 'validation_error', code, detail, attr });
    expect((await post({ label: '' })).json).toEqual(err('blank', 'This field may not be blank.', 'label'));
    expect((await post({ label: 'x'.repeat(41), scopes: ['*'] })).json).toEqual(
      err('max_length', 'Ensure this field has no more than 40 characters.', 'label'),
    );
    expect((await post({ label: 'test' })).json).toEqual(err('required', 'This field is required.', 'scopes'));
    expect((await post({ label: 'test', scopes: [] })).json).toEqual(err('empty', 'This list may not be empty.', 'scopes'));
    expect((await post({ label: 'test', scopes: ['invalid'] })).json).toEqual(err('invalid_input', 'Invalid scope: invalid', 'scopes'));
    expect((await post({ label: 'test', scopes: ['insight:invalid'] })).status).toBe(400);
    expect((await post({ label: 'test', scopes: ['*'], scoped_teams: [1, 999] })).json).toEqual(
      err('invalid_input', 'You must be a member of all teams that you are scoping the key to.', 'scoped_teams'),
    );
    expect((await post({ label: 'test', scopes: ['*'], scoped_organizations: ['not-a-uuid'] })).json).toEqual(
      err('invalid_input', 'Invalid organization UUID', 'scoped_organizations'),
    );
    expect((await post({ label: 'test', scopes: ['*'], scoped_organizations: ['00000000-0000-4000-8000-000000000000'] })).json).toEqual(
      err('invalid_input', 'You must be a member of all organizations that you are scoping the key to.', 'scoped_organizations'),
    );
    const teamScoped = await post({ label: 'team', scopes: ['*'], scoped_teams: [1] });
    expect([teamScoped.status, (teamScoped.json as { scoped_teams: number[] }).scoped_teams]).toEqual([201, [1]]);

    // The user holds 2 keys (its CLI key and `team`); 8 more make 10, the 11th is refused.
    for (let i = 0; i < 8; i++) expect((await post({ label: `k${i}`, scopes: ['insight:read'] })).status).toBe(201);
    expect((await post({ label: 'eleventh', scopes: ['insight:read'] })).json).toEqual(
      err('invalid_input', 'You can only have 10 personal API keys. Remove an existing key before creating a new one.', null),
    );

    // Only the user's own keys are visible: another user's is 404.
    const mine = (await client.get('/api/personal_api_keys/')).json as { id: string; user_id: number }[];
    expect(mine).toHaveLength(10);
    expect(new Set(mine.map((k) => k.user_id))).toEqual(new Set([user.id]));
    const adminKeys = (await apiClient(d, d.personalKey).get('/api/personal_api_keys/')).json as { id: string }[];
    expect((await client.get(`/api/personal_api_keys/${adminKeys[0]!.id}/`)).status).toBe(404);
    expect((await client.delete(`/api/personal_api_keys/${adminKeys[0]!.id}/`)).status).toBe(404);

    // PUT needs every writable required field; PATCH does not.
    expect((await client.put(`/api/personal_api_keys/${mine[0]!.id}/`, { label: 'only label' })).json).toEqual(
      err('required', 'This field is required.', 'scopes'),
    );
  });

  it('a key limited to projects may not manage keys (project endpoints only)', async () => {
    const admin = apiClient(d, d.personalKey);
    const limited = (await admin.post('/api/personal_api_keys/', { label: 'limited', scopes: ['*'], scoped_teams: [1] })).json as {
      value: string;
    };
    expect((await apiClient(d, limited.value).get('/api/personal_api_keys/')).status).toBe(403);
    const legacy = await cli('keys', 'create', '--user', 'admin@hedgerow.local', '--full-access', '--projects', '1', '--json');
    const legacyKey = (JSON.parse(legacy.stdout) as { key: string }).key;
    const refused = await apiClient(d, legacyKey).get('/api/personal_api_keys/');
    expect([refused.status, (refused.json as { detail: string }).detail]).toEqual([
      403,
      'API keys with scoped projects are only supported on project-based endpoints.',
    ]);
    expect((await apiClient(d, legacyKey).get('/api/personal_api_keys/@current/')).status).toBe(200);
  });

  it('reset_token: admin only, project:write; the old token is refused at once by capture, /flags and remote config in every thread', async () => {
    const member = await createUser(d, { email: 'reset-member@example.com' });
    const memberDenied = await apiClient(d, member.key).patch('/api/projects/1/reset_token/');
    expect([memberDenied.status, (memberDenied.json as { detail: string }).detail]).toEqual([
      403,
      "You don't have sufficient permissions in the project.",
    ]);
    const readOnly = (await apiClient(d, d.personalKey).post('/api/personal_api_keys/', { label: 'ro', scopes: ['project:read'] }))
      .json as { value: string };
    const scopeDenied = await apiClient(d, readOnly.value).patch('/api/projects/1/reset_token/');
    expect([scopeDenied.status, (scopeDenied.json as { detail: string }).detail]).toEqual([
      403,
      "API key missing required scope 'project:write'",
    ]);
    expect((await apiClient(d, readOnly.value).get('/api/projects/1/')).json).toMatchObject({ id: 1, api_token: d.projectKey });
    expect((await apiClient(d, d.personalKey).patch('/api/projects/9999/reset_token/')).status).toBe(404);
    expect((await apiClient(d, d.personalKey).post('/api/projects/1/reset_token/')).status).toBe(405);

    const old = d.projectKey;
    const okStatuses = { flags: [200], flagsPool: [200], capture: [200], capturePool: [200], remoteConfig: [200] };
    expect(await projectTokenStatuses(old)).toEqual(okStatuses);

    const reset = await apiClient(d, d.personalKey).patch('/api/environments/@current/reset_token/');
    expect(reset.status, reset.text).toBe(200);
    const project = reset.json as { id: number; uuid: string; api_token: string; name: string; project_id: number; organization: string };
    expect(project).toMatchObject({ id: 1, project_id: 1, name: 'Default project' });
    expect(project.api_token).toMatch(/^phc_[A-Za-z0-9_-]{43}$/);

    expect(await projectTokenStatuses(old)).toEqual({
      flags: [401],
      flagsPool: [401],
      capture: [401],
      capturePool: [401],
      remoteConfig: [404],
    });
    expect(await projectTokenStatuses(project.api_token)).toEqual(okStatuses);
    // Flag definitions name the project by token too.
    const defs = await onNewConnection(d.port, 'GET', `/flags/definitions?token=${old}`, { authorization: `Bearer ${d.personalKey}` });
    expect(defs.status).toBe(401);

    // The CLI resets it again; the token the API gave is refused in turn.
    const cliReset = await cli('projects', 'reset-token', '1', '--json');
    expect(cliReset.stderr).toBe('');
    const again = JSON.parse(cliReset.stdout) as { api_token: string };
    expect(again.api_token).not.toBe(project.api_token);
    const afterCli = await projectTokenStatuses(project.api_token);
    expect(afterCli.flags).toEqual([401]);
    expect(afterCli.capture).toEqual([401]);
    expect((await projectTokenStatuses(again.api_token)).capture).toEqual([200]);
  });
});

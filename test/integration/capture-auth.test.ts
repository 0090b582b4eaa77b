/**
 * Where the project key is found (docs/compatibility.md#project-key) and what each missing,
 * unknown or malformed key gets (the capture errors of PostHog's API documentation and
 * docs/compatibility.md#errors). Runs against both HTTP backends.
 */

import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { BACKENDS, cleanupDaemons, newPersonalKey, newProjectKey, runCli, useDaemon } from '../helpers/daemon.js';
import { errorBody, eventsOf, OK, postJson, uniqueId } from '../helpers/http.js';

const INVALID_API_KEY = errorBody(
  'authentication_error',
  'invalid_api_key',
  'Project API key invalid. You can find your project API key in PostHog project settings.',
);

afterAll(cleanupDaemons);

describe.each(BACKENDS)('capture project keys (%s backend)', (backend) => {
  const d = useDaemon({ backend });

  const ev = (distinctId: string, name: string, extra: Record<string, unknown> = {}) => ({
    uuid: randomUUID(),
    event: name,
    distinct_id: distinctId,
    ...extra,
  });

  it('takes the batch-level api_key, which wins over per-event tokens', async () => {
    const id = uniqueId('batch-key');
    const batch = [ev(id, 'batch key'), ev(id, 'batch key, other event token', { token: newProjectKey() })];
    const r = await postJson(d, '/batch/', { api_key: d.projectKey, batch });
    expect([r.status, r.json]).toEqual([200, OK]);
    expect((await eventsOf(d, id)).map((e) => e.id)).toEqual(batch.map((e) => e.uuid));
  });

  it('takes a batch-level token field the same way', async () => {
    const id = uniqueId('batch-token');
    const batch = [ev(id, 'batch token')];
    const r = await postJson(d, '/batch/', { token: d.projectKey, batch });
    expect([r.status, r.json]).toEqual([200, OK]);
    expect((await eventsOf(d, id)).map((e) => e.id)).toEqual([batch[0]!.uuid]);
  });

  it('takes per-event token, $token and api_key, and accepts events without one under the same key', async () => {
    const id = uniqueId('event-token');
    const events = [
      ev(id, 'token', { token: d.projectKey }),
      ev(id, '$token', { $token: d.projectKey }),
      ev(id, 'api_key', { api_key: d.projectKey }),
      ev(id, 'none'),
    ];
    const r = await postJson(d, '/e/', events);
    expect([r.status, r.json]).toEqual([200, OK]);
    expect((await eventsOf(d, id)).map((e) => e.event)).toEqual(['token', '$token', 'api_key', 'none']);
  });

  it('takes properties.token (posthog-js)', async () => {
    const id = uniqueId('props-token');
    const events = [{ uuid: randomUUID(), event: 'props token', properties: { token: d.projectKey, distinct_id: id } }];
    const r = await postJson(d, '/i/v0/e/', events);
    expect([r.status, r.json]).toEqual([200, OK]);
    const [stored] = await eventsOf(d, id);
    expect(stored!.id).toBe(events[0]!.uuid);
    expect(stored!.properties.token).toBe(d.projectKey);
  });

  it('trims whitespace around a key', async () => {
    const id = uniqueId('trim');
    const r = await postJson(d, '/batch/', { api_key: `  ${d.projectKey}\n`, batch: [ev(id, 'trimmed')] });
    expect([r.status, r.json]).toEqual([200, OK]);
    expect((await eventsOf(d, id)).map((e) => e.event)).toEqual(['trimmed']);
  });

  it('refuses inconsistent per-event tokens with 401 and stores nothing', async () => {
    const id = uniqueId('inconsistent');
    const r = await postJson(d, '/e/', [ev(id, 'a', { token: d.projectKey }), ev(id, 'b', { properties: { token: newProjectKey() } })]);
    expect(r.status).toBe(401);
    expect(r.json).toEqual(errorBody('authentication_error', 'invalid_api_key', 'batch submitted with inconsistent api_key values'));
    expect(await eventsOf(d, id)).toEqual([]);
  });

  it('refuses an unknown phc_ key with 401 invalid_api_key', async () => {
    const id = uniqueId('unknown');
    const r = await postJson(d, '/batch/', { api_key: newProjectKey(), batch: [ev(id, 'unknown key')] });
    expect(r.status).toBe(401);
    expect(r.json).toEqual(INVALID_API_KEY);
    const single = await postJson(d, '/capture/', ev(id, 'unknown key', { api_key: newProjectKey() }));
    expect(single.status).toBe(401);
    expect(single.json).toEqual(INVALID_API_KEY);
    expect(await eventsOf(d, id)).toEqual([]);
  });

  it('refuses a malformed key with 401 naming the reason', async () => {
    const id = uniqueId('malformed');
    const long = await postJson(d, '/batch/', { api_key: `phc_${'x'.repeat(70)}`, batch: [ev(id, 'long key')] });
    expect(long.status).toBe(401);
    expect(long.json).toEqual(errorBody('authentication_error', 'invalid_api_key', 'Provided API key is not valid: too_long'));
    const empty = await postJson(d, '/batch/', { api_key: '   ', batch: [ev(id, 'empty key')] });
    expect(empty.status).toBe(401);
    expect(empty.json).toEqual(errorBody('authentication_error', 'invalid_api_key', 'Provided API key is not valid: empty'));
    expect(await eventsOf(d, id)).toEqual([]);
  });

  it('answers 400 invalid_project when no key is given anywhere', async () => {
    const id = uniqueId('nokey');
    const expected = errorBody(
      'validation_error',
      'invalid_project',
      'API key not provided. You can find your project API key in PostHog project settings.',
      'project_id',
    );
    for (const [path, body] of [
      ['/batch/', { batch: [ev(id, 'no key')] }],
      ['/e/', [ev(id, 'no key')]],
      ['/capture', ev(id, 'no key')],
    ] as const) {
      const r = await postJson(d, path, body);
      expect({ path, status: r.status, body: r.json }).toEqual({ path, status: 400, body: expected });
    }
    expect(await eventsOf(d, id)).toEqual([]);
  });

  it('refuses an unknown phx_ personal key used as api_key with 401 invalid_personal_api_key', async () => {
    const id = uniqueId('bad-phx');
    const r = await postJson(d, '/batch/', { api_key: newPersonalKey(), batch: [ev(id, 'bad personal key')] });
    expect(r.status).toBe(401);
    expect(r.json).toEqual(errorBody('authentication_error', 'invalid_personal_api_key', 'Personal API key invalid.'));
    expect(await eventsOf(d, id)).toEqual([]);
  });

  it("accepts a valid phx_ personal key as api_key into its user's current project", async () => {
    const id = uniqueId('phx');
    const batch = [ev(id, 'personal key capture')];
    const r = await postJson(d, '/batch/', { api_key: d.personalKey, batch });
    expect([r.status, r.json]).toEqual([200, OK]);
    const stored = await eventsOf(d, id, 1);
    expect(stored.map((e) => e.id)).toEqual([batch[0]!.uuid]);
  });

  it('captures with a personal key limited to projects into those projects only', async () => {
    const cli = async (...args: string[]) => {
      const r = await runCli(['admin', ...args, '--json', '--data-dir', d.dataDir]);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as { id: number; key: string };
    };
    const other = await cli('projects', 'create', '--name', `other ${uniqueId('p')}`);
    const limited = (await cli('keys', 'create', '--user', 'admin@hedgerow.local', '--full-access', '--projects', '1')).key;
    const id = uniqueId('phx-limited');
    const refused = await postJson(d, '/batch/', { api_key: limited, project_id: other.id, batch: [ev(id, 'other project')] });
    expect([refused.status, refused.json]).toEqual([
      403,
      errorBody('authentication_error', 'permission_denied', `API key does not have access to the requested project: ID ${other.id}.`),
    ]);
    const accepted = await postJson(d, '/batch/', { api_key: limited, project_id: 1, batch: [ev(id, 'own project')] });
    expect([accepted.status, accepted.json]).toEqual([200, OK]);
    expect((await eventsOf(d, id, 1)).map((e) => e.event)).toEqual(['own project']);
  });
});

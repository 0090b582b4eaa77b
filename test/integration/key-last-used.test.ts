/**
 * A personal key's `last_used_at`, as PostHog keeps it: set by the first use, moved by a use only
 * when the recorded one is more than an hour old, kept through a roll. A use in any thread counts
 * (here a front-end thread's flag definitions and the main thread's management API).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/api.js';
import { cleanupDaemons, startDaemon, type DaemonHandle } from '../helpers/daemon.js';
import { freePort } from '../helpers/free-port.js';
import { onNewConnection } from '../helpers/http.js';

afterAll(cleanupDaemons);

interface KeyView {
  id: string;
  value: string | null;
  last_used_at: string | null;
}

describe("a personal key's last_used_at", () => {
  let d: DaemonHandle;
  beforeAll(async () => {
    d = await startDaemon({ backend: 'uws', env: { HEDGEROW_PORT: String(await freePort()), HEDGEROW_HTTP_THREADS: '2' } });
  });

  const keyView = async (id: string) => (await apiClient(d, d.personalKey).get(`/api/personal_api_keys/${id}/`)).json as KeyView;

  /** The key's view once `last_used_at` is set (the use is written without holding the request). */
  async function onceUsed(id: string): Promise<KeyView> {
    for (const until = Date.now() + 5000; Date.now() < until; await new Promise((r) => setTimeout(r, 50))) {
      const view = await keyView(id);
      if (view.last_used_at !== null) return view;
    }
    throw new Error(`key ${id} never showed a use`);
  }

  it('is null until the key is used, then the time of the first use; a use within the hour does not move it', async () => {
    const created = await apiClient(d, d.personalKey).post('/api/personal_api_keys/', { label: 'poller', scopes: ['feature_flag:read'] });
    expect(created.status, created.text).toBe(201);
    const key = created.json as KeyView & { value: string };
    expect(key.last_used_at).toBeNull();
    expect((await keyView(key.id)).last_used_at).toBeNull();

    const before = Date.now();
    // Flag definitions, as a server SDK polls them: answered by the front-end threads.
    const polls = await Promise.all(
      Array.from({ length: 4 }, () =>
        onNewConnection(d.port, 'GET', `/api/feature_flag/local_evaluation?token=${d.projectKey}`, {
          authorization: `Bearer ${key.value}`,
        }),
      ),
    );
    expect(polls.map((p) => p.status)).toEqual([200, 200, 200, 200]);
    const used = (await onceUsed(key.id)).last_used_at as string;
    expect(used).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?Z$/);
    expect(Date.parse(used)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(used)).toBeLessThanOrEqual(Date.now());

    // More uses, in every thread, within the hour: the recorded time stays.
    await new Promise((r) => setTimeout(r, 20));
    const self = apiClient(d, key.value);
    expect((await self.get('/api/projects/1/feature_flags/')).status).toBe(200);
    await onNewConnection(d.port, 'GET', `/api/feature_flag/local_evaluation?token=${d.projectKey}`, {
      authorization: `Bearer ${key.value}`,
    });
    await new Promise((r) => setTimeout(r, 200));
    expect((await keyView(key.id)).last_used_at).toBe(used);

    // A roll keeps the key (its id), and its last use with it.
    const rolled = await apiClient(d, d.personalKey).post(`/api/personal_api_keys/${key.id}/roll/`);
    expect(rolled.status).toBe(200);
    expect((rolled.json as KeyView).last_used_at).toBe(used);
  });

  it("shows the request's own key as used by that very request", async () => {
    const created = await apiClient(d, d.personalKey).post('/api/personal_api_keys/', { label: 'self', scopes: ['feature_flag:read'] });
    const key = created.json as KeyView & { value: string };
    expect(key.last_used_at).toBeNull();
    // A key may retrieve itself: the request that does is its first use.
    const self = (await apiClient(d, key.value).get('/api/personal_api_keys/@current/')).json as KeyView;
    expect(self.id).toBe(key.id);
    expect(self.last_used_at).not.toBeNull();
    expect(Date.now() - Date.parse(self.last_used_at as string)).toBeLessThan(60_000);
  });
});

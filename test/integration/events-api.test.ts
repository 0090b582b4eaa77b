/**
 * `GET /api/projects/:project_id/events/` with personal API keys: authentication, `@current`,
 * unknown projects, order, filters, cursor pagination and scopes. Runs against both backends.
 */

import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { BACKENDS, cleanupDaemons, newPersonalKey, runCli, useDaemon } from '../helpers/daemon.js';
import { errorBody, listEvents, OK, postJson, send, uniqueId, waitForPersons, type ApiPage } from '../helpers/http.js';

afterAll(cleanupDaemons);

describe.each(BACKENDS)('events API (%s backend)', (backend) => {
  const d = useDaemon({ backend });

  const api = (path: string, headers: Record<string, string> = {}) => send(d, path, { headers });
  const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

  async function capture(events: Array<Record<string, unknown>>): Promise<void> {
    const r = await postJson(d, '/batch/', { api_key: d.projectKey, batch: events });
    expect([r.status, r.json]).toEqual([200, OK]);
  }

  it('401 not_authenticated without a key', async () => {
    const r = await api('/api/projects/1/events/');
    expect(r.status).toBe(401);
    expect(r.json).toEqual({
      type: 'authentication_error',
      code: 'not_authenticated',
      detail: 'Authentication credentials were not provided.',
      attr: null,
    });
  });

  it('401 authentication_failed with an unknown key, in the header or the query string', async () => {
    const header = await api('/api/projects/1/events/', bearer(newPersonalKey()));
    expect([header.status, header.json]).toEqual([
      401,
      errorBody('authentication_error', 'authentication_failed', 'Personal API key found in request Authorization header is invalid.'),
    ]);
    const query = await api(`/api/projects/1/events/?personal_api_key=${newPersonalKey()}`);
    expect([query.status, query.json]).toEqual([
      401,
      errorBody('authentication_error', 'authentication_failed', 'Personal API key found in request query string is invalid.'),
    ]);
    const projectKey = await api('/api/projects/1/events/', bearer(d.projectKey));
    expect(projectKey.status).toBe(401);
  });

  it('accepts the key in the personal_api_key query parameter', async () => {
    const r = await api(`/api/projects/1/events/?limit=1&personal_api_key=${d.personalKey}`);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ results: expect.any(Array) });
  });

  it('serves @current as the key owner’s current project', async () => {
    const id = uniqueId('current');
    const uuid = randomUUID();
    await capture([{ uuid, event: 'current', distinct_id: id }]);
    const r = await api(`/api/projects/@current/events/?distinct_id=${id}`, bearer(d.personalKey));
    expect(r.status).toBe(200);
    const page = r.json as ApiPage;
    expect(page.next).toBeNull();
    expect(page.results.map((e) => e.id)).toEqual([uuid]);
  });

  it('404 for a project that does not exist', async () => {
    for (const project of ['999', 'abc']) {
      const r = await api(`/api/projects/${project}/events/`, bearer(d.personalKey));
      expect({ project, status: r.status, body: r.json }).toEqual({
        project,
        status: 404,
        body: errorBody('invalid_request', 'not_found', 'Project not found.'),
      });
    }
  });

  it('lists newest first', async () => {
    const id = uniqueId('order');
    const uuids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const uuid = randomUUID();
      uuids.push(uuid);
      await capture([{ uuid, event: `order ${i}`, distinct_id: id }]);
    }
    const page = await listEvents(d, { distinct_id: id });
    expect(page.results.map((e) => e.id)).toEqual([...uuids].reverse());
    expect(page.next).toBeNull();
  });

  it('filters by event, distinct_id, after and before', async () => {
    const a = uniqueId('filter-a');
    const b = uniqueId('filter-b');
    const jan = { uuid: randomUUID(), event: 'pageview', distinct_id: a, timestamp: '2024-01-10T00:00:00.000Z' };
    const feb = { uuid: randomUUID(), event: 'signup', distinct_id: a, timestamp: '2024-02-10T00:00:00.000Z' };
    const mar = { uuid: randomUUID(), event: 'pageview', distinct_id: a, timestamp: '2024-03-10T00:00:00.000Z' };
    const other = { uuid: randomUUID(), event: 'pageview', distinct_id: b, timestamp: '2024-02-20T00:00:00.000Z' };
    await capture([jan, feb, mar, other]);

    const ids = async (q: Record<string, string>) => (await listEvents(d, q)).results.map((e) => e.id);
    expect(await ids({ distinct_id: a })).toEqual([mar.uuid, feb.uuid, jan.uuid]);
    expect(await ids({ distinct_id: b })).toEqual([other.uuid]);
    expect(await ids({ distinct_id: a, event: 'pageview' })).toEqual([mar.uuid, jan.uuid]);
    expect(await ids({ distinct_id: a, event: 'signup' })).toEqual([feb.uuid]);
    expect(await ids({ distinct_id: a, after: '2024-01-15T00:00:00Z' })).toEqual([mar.uuid, feb.uuid]);
    expect(await ids({ distinct_id: a, before: '2024-02-15T00:00:00Z' })).toEqual([feb.uuid, jan.uuid]);
    expect(await ids({ distinct_id: a, after: '2024-01-15T00:00:00Z', before: '2024-03-01T00:00:00Z' })).toEqual([feb.uuid]);
    // after/before are exclusive
    expect(await ids({ distinct_id: a, after: '2024-02-10T00:00:00.000Z', before: '2024-03-10T00:00:00.000Z' })).toEqual([]);
    expect(await ids({ event: 'pageview', after: '2024-02-15T00:00:00Z', before: '2024-02-25T00:00:00Z' })).toEqual([other.uuid]);
    expect(await ids({ distinct_id: uniqueId('nobody') })).toEqual([]);
  });

  it('gives each listed event its person: identified or not, first distinct id, and only email, name and username', async () => {
    const user = uniqueId('summary-user');
    const loner = uniqueId('summary-personless');
    const identify = {
      uuid: randomUUID(),
      event: '$identify',
      distinct_id: user,
      properties: { $set: { email: 'ann@example.com', name: 'Ann', plan: 'pro' } },
    };
    const personless = { uuid: randomUUID(), event: 'seen', distinct_id: loner, properties: { $process_person_profile: false } };
    await capture([identify, personless]);
    await waitForPersons(d);
    const [listed] = (await listEvents(d, { distinct_id: user })).results as unknown as Array<Record<string, unknown>>;
    expect(listed!.person).toEqual({ is_identified: false, distinct_ids: [user], properties: { email: 'ann@example.com', name: 'Ann' } });
    const [alone] = (await listEvents(d, { distinct_id: loner })).results as unknown as Array<Record<string, unknown>>;
    expect(alone!.person).toBeNull();
    // The retrieve view has no persons to give, as PostHog's.
    expect(
      ((await api(`/api/projects/1/events/${identify.uuid}/`, bearer(d.personalKey))).json as Record<string, unknown>).person,
    ).toBeNull();
  });

  it('leaves out events dated more than 5 s ahead unless before says otherwise, as PostHog does', async () => {
    const who = uniqueId('clock-ahead');
    const now = { uuid: randomUUID(), event: 'now', distinct_id: who, timestamp: new Date().toISOString() };
    const ahead = { uuid: randomUUID(), event: 'ahead', distinct_id: who, timestamp: new Date(Date.now() + 2 * 3600_000).toISOString() };
    await capture([now, ahead]);
    const ids = async (q: Record<string, string>) => (await listEvents(d, q)).results.map((e) => e.id);
    expect(await ids({ distinct_id: who })).toEqual([now.uuid]);
    expect(await ids({ distinct_id: who, before: new Date(Date.now() + 3 * 3600_000).toISOString() })).toEqual([ahead.uuid, now.uuid]);
  });

  it('paginates with limit and an absolute next URL, every event exactly once', async () => {
    const id = uniqueId('pages');
    const sent: string[] = [];
    for (let batch = 0; batch < 5; batch++) {
      const events = Array.from({ length: 5 }, (_, i) => ({ uuid: randomUUID(), event: `page ${batch}.${i}`, distinct_id: id }));
      sent.push(...events.map((e) => e.uuid));
      await capture(events);
    }
    let page = await listEvents(d, { distinct_id: id, limit: '7' });
    const sizes = [page.results.length];
    const seen = page.results.map((e) => e.id);
    while (page.next !== null) {
      expect(page.next.startsWith(`${d.baseUrl}/api/projects/1/events/?`)).toBe(true);
      const next = new URL(page.next);
      expect(next.searchParams.get('limit')).toBe('7');
      expect(next.searchParams.get('distinct_id')).toBe(id);
      expect(next.searchParams.get('cursor')).toBeTruthy();
      const r = await send(d, next.pathname + next.search, { headers: bearer(d.personalKey) });
      expect(r.status).toBe(200);
      page = r.json as ApiPage;
      sizes.push(page.results.length);
      seen.push(...page.results.map((e) => e.id));
    }
    expect(sizes).toEqual([7, 7, 7, 4]);
    expect(seen).toEqual([...sent].reverse());
    expect(new Set(seen).size).toBe(25);
  });

  it("person_id (UUID or integer id) lists the events of all the person's distinct ids", async () => {
    const anon = uniqueId('anon');
    const user = uniqueId('user');
    const other = uniqueId('other');
    await capture([
      { event: 'viewed', distinct_id: anon },
      { event: '$identify', distinct_id: user, properties: { $anon_distinct_id: anon } },
      { event: 'bought', distinct_id: user },
      { event: 'viewed', distinct_id: other },
    ]);
    expect((await send(d, '/_persons/caught_up?timeout_ms=15000')).status).toBe(200);
    const found = await api(`/api/projects/1/persons/?distinct_id=${user}`, bearer(d.personalKey));
    const uuid = (found.json as { results: { uuid: string }[] }).results[0]!.uuid;
    const retrieved = await api(`/api/projects/1/persons/${uuid}/`, bearer(d.personalKey));
    const pk = (retrieved.json as { id: number }).id;
    const names = async (query: Record<string, string>) => (await listEvents(d, query)).results.map((e) => `${e.event}@${e.distinct_id}`);
    const expected = [`bought@${user}`, `$identify@${user}`, `viewed@${anon}`];
    expect(await names({ person_id: uuid })).toEqual(expected);
    expect(await names({ person_id: uuid.toUpperCase().replaceAll('-', '') })).toEqual(expected);
    expect(await names({ person_id: String(pk) })).toEqual(expected);
    expect(await names({ person_id: uuid, distinct_id: anon })).toEqual([`viewed@${anon}`]);
    expect(await names({ person_id: uuid, distinct_id: other })).toEqual([]);
    expect(await names({ person_id: uuid, event: 'viewed' })).toEqual([`viewed@${anon}`]);
    expect(await names({ person_id: randomUUID() })).toEqual([]);
    expect(await names({ person_id: '-3' })).toEqual([]); // an integer no person has
    const bad = await api('/api/projects/1/events/?person_id=someone', bearer(d.personalKey));
    expect([bad.status, bad.json]).toEqual([
      400,
      errorBody('validation_error', 'invalid_input', "person_id must be a person's UUID or integer id", 'person_id'),
    ]);
  });

  it('offset passes over events, and the next link goes on after the page', async () => {
    const id = uniqueId('offset');
    await capture(Array.from({ length: 9 }, (_, i) => ({ event: `e${i}`, distinct_id: id })));
    const page = await listEvents(d, { distinct_id: id, limit: '3', offset: '2' });
    expect(page.results.map((e) => e.event)).toEqual(['e6', 'e5', 'e4']);
    const next = new URL(page.next!);
    expect(next.searchParams.has('offset')).toBe(false);
    const rest = await send(d, next.pathname + next.search, { headers: bearer(d.personalKey) });
    expect((rest.json as ApiPage).results.map((e) => e.event)).toEqual(['e3', 'e2', 'e1']);
    const bad = await api(`/api/projects/1/events/?offset=-1`, bearer(d.personalKey));
    expect([bad.status, (bad.json as { attr: string }).attr]).toEqual([400, 'offset']);
  });

  it('answers 400 for PostHog parameters it would otherwise ignore, and nothing for action_id', async () => {
    const id = uniqueId('params');
    await capture([{ event: 'one', distinct_id: id, properties: { plan: 'pro' } }]);
    const get = (query: string) => api(`/api/projects/1/events/?distinct_id=${id}&${query}`, bearer(d.personalKey));
    for (const ok of [
      `orderBy=${encodeURIComponent('["-timestamp"]')}`,
      'properties=%5B%5D',
      `properties=${encodeURIComponent('{"type":"AND","values":[]}')}`,
    ]) {
      const r = await get(ok);
      expect([ok, r.status, (r.json as ApiPage).results.length]).toEqual([ok, 200, 1]);
    }
    const refused: Array<[string, string, string]> = [
      [`orderBy=${encodeURIComponent('["event"]')}`, 'orderBy', 'Hedgerow orders the events list by ["-timestamp"] or ["timestamp"] only'],
      [
        `orderBy=${encodeURIComponent('["-timestamp","event"]')}`,
        'orderBy',
        'Hedgerow orders the events list by ["-timestamp"] or ["timestamp"] only',
      ],
      ['orderBy=timestamp', 'orderBy', 'orderBy must be a JSON list'],
      [
        `properties=${encodeURIComponent('[{"key":"plan","value":"pro"}]')}`,
        'properties',
        'Hedgerow does not filter the events list by properties yet',
      ],
      ['properties=%7Bnope', 'properties', 'Properties are unparsable!'],
      [`select=${encodeURIComponent('["event"]')}`, 'select', 'Hedgerow does not support select on the events list'],
      [`where=${encodeURIComponent('["1"]')}`, 'where', 'Hedgerow does not support where on the events list'],
    ];
    for (const [query, attr, detail] of refused) {
      const r = await get(query);
      expect([query, r.status, r.json]).toEqual([query, 400, errorBody('validation_error', 'invalid_input', detail, attr)]);
    }
    const action = await get('action_id=1');
    expect([action.status, action.json]).toEqual([200, { next: null, results: [] }]);
  });

  it('lists oldest first with orderBy ["timestamp"], every event once across pages', async () => {
    const id = uniqueId('oldest');
    await capture(Array.from({ length: 5 }, (_, i) => ({ event: `a${i}`, distinct_id: id })));
    await capture(Array.from({ length: 5 }, (_, i) => ({ event: `b${i}`, distinct_id: id })));
    const orderBy = encodeURIComponent('["timestamp"]');
    let page = (await api(`/api/projects/1/events/?distinct_id=${id}&limit=3&orderBy=${orderBy}`, bearer(d.personalKey))).json as ApiPage;
    const seen = page.results.map((e) => e.event);
    while (page.next !== null) {
      expect(new URL(page.next).searchParams.get('orderBy')).toBe('["timestamp"]');
      const next = new URL(page.next);
      page = (await api(next.pathname + next.search, bearer(d.personalKey))).json as ApiPage;
      seen.push(...page.results.map((e) => e.event));
    }
    expect(seen).toEqual(['a0', 'a1', 'a2', 'a3', 'a4', 'b0', 'b1', 'b2', 'b3', 'b4']);
  });

  it('the last page has no next link, also when it is full', async () => {
    const id = uniqueId('full-last');
    await capture(Array.from({ length: 10 }, (_, i) => ({ event: `e${i}`, distinct_id: id })));
    const first = await listEvents(d, { distinct_id: id, limit: '5' });
    expect(first.results).toHaveLength(5);
    expect(first.next).not.toBeNull();
    const next = new URL(first.next!);
    const second = await send(d, next.pathname + next.search, { headers: bearer(d.personalKey) });
    expect((second.json as ApiPage).results).toHaveLength(5);
    expect((second.json as ApiPage).next).toBeNull();
    const whole = await listEvents(d, { distinct_id: id, limit: '10' });
    expect([whole.results.length, whole.next]).toEqual([10, null]);
  });

  it('lists and retrieves an event as soon as its capture is acknowledged', async () => {
    // The log is read in a pool worker, whose read snapshot must not lag behind the commit.
    for (let i = 0; i < 30; i++) {
      const id = uniqueId('at-once');
      const uuid = randomUUID();
      await capture([{ uuid, event: 'at once', distinct_id: id }]);
      expect((await listEvents(d, { distinct_id: id })).results.map((e) => e.id)).toEqual([uuid]);
      expect((await api(`/api/projects/1/events/${uuid}/`, bearer(d.personalKey))).status).toBe(200);
    }
  });

  it('retrieves one event by its UUID, in any form Python reads, and 404s for an unknown one', async () => {
    const id = uniqueId('retrieve');
    const uuid = randomUUID();
    await capture([
      { uuid, event: 'retrieved', distinct_id: id, properties: { plan: 'pro' }, timestamp: '2024-05-01T10:00:00.000Z' },
      { uuid: randomUUID(), event: 'other', distinct_id: id },
    ]);
    const listed = (await listEvents(d, { distinct_id: id, event: 'retrieved' })).results[0];
    const h = bearer(d.personalKey);
    const hex = uuid.replaceAll('-', '');
    for (const form of [uuid, uuid.toUpperCase(), hex, `{${uuid}}`, `urn:uuid:${uuid}`]) {
      const r = await api(`/api/projects/1/events/${encodeURIComponent(form)}/`, h);
      // As listed, but with no person: PostHog's retrieve view gives its serializer none.
      expect({ form, status: r.status, body: r.json }).toEqual({ form, status: 200, body: { ...listed, person: null } });
    }
    // PostHog prints it as Python's isoformat() of the UTC time: `+00:00`, no fraction on a whole second.
    expect(listed).toMatchObject({ id: uuid, event: 'retrieved', distinct_id: id, timestamp: '2024-05-01T10:00:00+00:00' });
    expect((listed!.properties as Record<string, unknown>)['plan']).toBe('pro');

    const unknown = randomUUID();
    const missing = await api(`/api/projects/1/events/${unknown}`, h);
    expect([missing.status, missing.json]).toEqual([
      404,
      errorBody('invalid_request', 'not_found', `No events exist for event UUID ${unknown}`),
    ]);
    const invalid = await api('/api/projects/1/events/not-a-uuid/', h);
    expect([invalid.status, invalid.json]).toEqual([400, errorBody('validation_error', 'invalid', 'Invalid UUID')]);
    const noKey = await api(`/api/projects/1/events/${uuid}/`);
    expect(noKey.status).toBe(401);
  });

  it('400 for a bad limit, cursor or date', async () => {
    const h = bearer(d.personalKey);
    const limit = await api('/api/projects/1/events/?limit=-1', h);
    expect([limit.status, limit.json]).toEqual([
      400,
      errorBody('validation_error', 'invalid_input', 'limit must be a non-negative integer', 'limit'),
    ]);
    const cursor = await api('/api/projects/1/events/?cursor=nonsense', h);
    expect([cursor.status, cursor.json]).toEqual([
      400,
      errorBody('validation_error', 'invalid_input', 'cursor is not one this server produced', 'cursor'),
    ]);
    const after = await api('/api/projects/1/events/?after=not-a-date', h);
    expect([after.status, after.json]).toEqual([
      400,
      errorBody('validation_error', 'invalid_input', 'after must be an ISO-8601 date-time or a relative date such as -7d', 'after'),
    ]);
  });

  it('reads after and before as relative dates too (-1h, -7d, -1dStart)', async () => {
    const id = uniqueId('relative');
    const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000).toISOString();
    await capture([
      { event: 'two days ago', distinct_id: id, timestamp: hoursAgo(48) },
      { event: 'two hours ago', distinct_id: id, timestamp: hoursAgo(2) },
      { event: 'now', distinct_id: id },
    ]);
    const names = async (query: Record<string, string>) => (await listEvents(d, { distinct_id: id, ...query })).results.map((e) => e.event);
    expect(await names({ after: '-1h' })).toEqual(['now']);
    expect(await names({ after: '-3h' })).toEqual(['now', 'two hours ago']);
    expect(await names({ before: '-1h', after: '-7d' })).toEqual(['two hours ago', 'two days ago']);
    expect(await names({ before: '-2dStart' })).toEqual([]);
    expect(await names({ before: '-1M' })).toEqual(['two hours ago', 'two days ago']);
  });

  // PostHog reads after/before with dateutil's isoparse (posthog/models/event/query_event_list.py).
  it('reads after and before in the ISO forms dateutil reads: basic, week and ordinal dates', async () => {
    const id = uniqueId('iso-basic');
    await capture([
      { event: 'nov 27', distinct_id: id, timestamp: '2025-11-27T12:00:00.000Z' },
      { event: 'nov 28 morning', distinct_id: id, timestamp: '2025-11-28T09:00:00.000Z' },
      { event: 'nov 28 noon', distinct_id: id, timestamp: '2025-11-28T12:00:00.000Z' },
    ]);
    const names = async (query: Record<string, string>) => (await listEvents(d, { distinct_id: id, ...query })).results.map((e) => e.event);
    const all = ['nov 28 noon', 'nov 28 morning', 'nov 27'];
    expect(await names({ after: '20251128' })).toEqual(all.slice(0, 2));
    expect(await names({ after: '20251128T101500Z' })).toEqual(all.slice(0, 1));
    expect(await names({ after: '20251128T1015' })).toEqual(all.slice(0, 1));
    expect(await names({ before: '2025-W48-5T10' })).toEqual(all.slice(1)); // Friday of week 48
    expect(await names({ before: '2025332T10' })).toEqual(all.slice(1)); // day 332
    expect(await names({ after: '2025-11-27T24:00' })).toEqual(all.slice(0, 2));
    const h = bearer(d.personalKey);
    const monthOnly = await api('/api/projects/1/events/?after=202511', h); // YYYYMM is not ISO
    expect(monthOnly.status).toBe(400);
  });

  // PostHog's list asks for limit + 1 rows and answers rows[0:limit], so limit=0 is an empty page
  // with a next link while a row matched (posthog/api/event.py).
  it('answers limit=0 with an empty page, next passing one event at a time, null at the end', async () => {
    const id = uniqueId('limit-0');
    await capture([
      { event: 'first', distinct_id: id },
      { event: 'second', distinct_id: id },
    ]);
    const none = await listEvents(d, { distinct_id: uniqueId('nobody'), limit: '0' });
    expect(none).toEqual({ next: null, results: [] });
    let page = await listEvents(d, { distinct_id: id, limit: '0' });
    let pages = 0;
    while (page.next !== null) {
      expect(page.results).toEqual([]);
      expect(new URL(page.next).searchParams.get('limit')).toBe('0');
      page = (await api(new URL(page.next).pathname + new URL(page.next).search, bearer(d.personalKey))).json as ApiPage;
      pages++;
    }
    expect([pages, page.results]).toEqual([2, []]);
  });

  it('403 for a key without the query:read scope', async () => {
    const created = await runCli([
      'admin',
      'keys',
      'create',
      '--user',
      'admin@hedgerow.local',
      '--scopes',
      'feature_flag:read',
      '--json',
      '--data-dir',
      d.dataDir,
    ]);
    expect(created.code).toBe(0);
    const key = JSON.parse(created.stdout) as { key: string; scopes: string[] };
    expect(key.scopes).toEqual(['feature_flag:read']);
    const r = await api('/api/projects/1/events/', bearer(key.key));
    expect([r.status, r.json]).toEqual([
      403,
      errorBody('authentication_error', 'permission_denied', "API key missing required scope 'query:read'"),
    ]);
  });
});

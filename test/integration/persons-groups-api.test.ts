/**
 * The persons and groups read API against the real daemon: shapes, filters, order, pagination
 * (limit/offset for persons, DRF cursors for groups), lookups, errors and scopes.
 *
 * The data is seeded by writing the store directly from this process while the daemon runs
 * (LMDB is multi-process safe), with the keys and records the person processor writes. These
 * seeds stood in for the processor before it landed and are to be replaced by events sent
 * through posthog-node (they also make cases events cannot: fixed timestamps, a person created
 * ahead, another project); the last test already goes through posthog-node and the processor.
 */
import { randomUUID } from 'node:crypto';
import { PostHog } from 'posthog-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bumpFlagsVersion } from '../../src/store/flag-store.js';
import type { GroupRecord } from '../../src/store/group-store.js';
import { bumpCounter, openStore } from '../../src/store/open-store.js';
import type { PersonRecord } from '../../src/store/person-store.js';
import { apiClient, createUser, type ApiClient } from '../helpers/api.js';
import { cleanupDaemons, useDaemon } from '../helpers/daemon.js';
import { errorBody, uniqueId, waitForPersons } from '../helpers/http.js';

afterAll(cleanupDaemons);

const PERSONS = '/api/projects/1/persons/';
const GROUPS = '/api/projects/1/groups/';
const ANON_ANN = '0191a3c2-5e2f-7cc1-a5f1-30bd1e2a2b11';
const ANON_BOB = '0191a3c2-5e2f-7cc1-a5f1-30bd1e2a2b22';

interface SeedPerson {
  record: PersonRecord;
  distinctIds: string[];
  project?: number;
}

function makePerson(id: number, createdAt: string, properties: Record<string, unknown>, isIdentified = false): PersonRecord {
  return { id, uuid: randomUUID(), properties, created_at: createdAt, is_identified: isIdentified, version: 0 };
}

const ann = makePerson(1, '2024-05-01T10:00:00.000Z', { email: 'ann@example.com', name: 'Ann', plan: 'pro' }, true);
const bob = makePerson(2, '2024-05-03T10:00:00.000Z', { name: 'Bob' });
const carol = makePerson(3, '2024-05-02T10:00:00.000Z', { email: 'carol@example.org' }, true);
/** Created two days ahead: PostHog's list hides it, retrieve still finds it. */
const future = makePerson(4, new Date(Date.now() + 2 * 86_400_000).toISOString(), { email: 'future@example.com' });
/** Another project's person, sharing a distinct id with Ann. */
const elsewhere = makePerson(1, '2024-05-04T10:00:00.000Z', { email: 'ann@example.com' });

const SEED_PERSONS: SeedPerson[] = [
  { record: ann, distinctIds: [ANON_ANN, 'ann-id'] },
  { record: bob, distinctIds: [ANON_BOB] },
  { record: carol, distinctIds: ['carol'] },
  { record: future, distinctIds: ['future'] },
  { record: elsewhere, distinctIds: ['ann-id'], project: 99 },
];

function group(index: number, key: string, createdAt: string, properties: Record<string, unknown> = {}): GroupRecord {
  return { group_type_index: index, group_key: key, group_properties: properties, created_at: createdAt, version: 0 };
}

const acme = group(0, 'acme', '2024-05-01T00:00:00.000Z', { name: 'Acme Corporation', plan: 'pro' });
const globex = group(0, 'globex', '2024-05-03T00:00:00.000Z', { name: 'Globex' });
/** 105 teams over 50 distinct instants (ties in pairs), so the cursor crosses ties. */
const TEAMS = Array.from({ length: 105 }, (_, i) =>
  group(1, `team-${String(i).padStart(3, '0')}`, new Date(Date.UTC(2024, 0, 1) + Math.floor(i / 2) * 60_000).toISOString()),
);

/** Writes the seeds as the person processor does: one `transactionSync`, `putSync` throughout. */
async function seed(dataDir: string): Promise<void> {
  const dbs = openStore({ dataDir, sync: 'durable' });
  try {
    dbs.root.transactionSync(() => {
      for (const { record, distinctIds, project = 1 } of SEED_PERSONS) {
        // The processor allocates person ids from this counter: later persons must not reuse ours.
        bumpCounter(dbs, `person:${project}`, record.id);
        dbs.persons.putSync([project, record.id], record);
        for (const distinctId of distinctIds) {
          dbs.distinctIds.putSync([project, distinctId], record.id);
          dbs.personDistinctIds.putSync([project, record.id, distinctId], null);
        }
      }
      // Registering group types moves the project's flag version, as in the processor.
      dbs.groupTypes.putSync([1, 'company'], 0);
      dbs.groupTypes.putSync([1, 'team'], 1);
      bumpFlagsVersion(dbs, 1);
      dbs.groupTypes.putSync([99, 'other'], 0);
      bumpFlagsVersion(dbs, 99);
      for (const g of [acme, globex, ...TEAMS]) dbs.groups.putSync([1, g.group_type_index, g.group_key], g);
      dbs.groups.putSync([99, 0, 'acme'], group(0, 'acme', '2024-05-09T00:00:00.000Z'));
    });
  } finally {
    await dbs.root.close();
  }
}

interface PersonsPage {
  results: Array<Record<string, unknown> & { uuid: string }>;
  next: string | null;
  previous: string | null;
  count?: number;
}

interface GroupsPage {
  next: string | null;
  previous: string | null;
  results: Array<GroupRecord>;
}

describe('persons and groups API', () => {
  const d = useDaemon({ backend: 'uws' });
  let admin: ApiClient;
  beforeAll(async () => {
    admin = apiClient(d, d.personalKey);
    await seed(d.dataDir);
  });

  const personsPage = async (query: string): Promise<PersonsPage> => {
    const r = await admin.get(`${PERSONS}${query}`);
    expect(r.status, r.text).toBe(200);
    return r.json as PersonsPage;
  };
  const uuids = (page: PersonsPage) => page.results.map((p) => p.uuid);
  /** A link as an absolute URL → the path and query to send. */
  const pathOf = (url: string) => url.slice(d.baseUrl.length);

  describe('GET …/persons/', () => {
    it('lists newest first in PostHog’s list shape, hiding persons created ahead', async () => {
      const page = await personsPage('');
      expect(uuids(page)).toEqual([bob.uuid, carol.uuid, ann.uuid]);
      expect(Object.keys(page)).toEqual(['results', 'next', 'previous']);
      expect(page.results[2]).toEqual({
        type: 'person',
        id: ann.uuid,
        uuid: ann.uuid,
        created_at: '2024-05-01T10:00:00Z',
        last_seen_at: null,
        properties: ann.properties,
        is_identified: true,
        name: 'ann@example.com',
        distinct_ids: [ANON_ANN, 'ann-id'],
        matched_recordings: [],
        value_at_data_point: null,
      });
      expect(page.results[0]).toMatchObject({ name: 'Bob', is_identified: false, distinct_ids: [ANON_BOB] });
      expect([page.next, page.previous]).toEqual([null, null]);
    });

    it('counts with include_total', async () => {
      expect((await personsPage('?include_total')).count).toBe(3);
    });

    it('pages with limit and offset, linking on from every full page', async () => {
      const first = await personsPage('?limit=2');
      expect(uuids(first)).toEqual([bob.uuid, carol.uuid]);
      expect([first.next, first.previous]).toEqual([`${d.baseUrl}${PERSONS}?limit=2&offset=2`, null]);
      const second = await personsPage(pathOf(first.next!).slice(PERSONS.length));
      expect(uuids(second)).toEqual([ann.uuid]);
      expect([second.next, second.previous]).toEqual([null, `${d.baseUrl}${PERSONS}?limit=2&offset=0`]);
      // A full last page still links on (PostHog does not look ahead); the next page is empty.
      const full = await personsPage('?limit=1&offset=2');
      expect(full.next).toBe(`${d.baseUrl}${PERSONS}?limit=1&offset=3`);
      expect((await personsPage('?limit=1&offset=3')).results).toEqual([]);
    });

    it('filters by distinct_id within the project', async () => {
      expect(uuids(await personsPage('?distinct_id=ann-id'))).toEqual([ann.uuid]);
      expect(uuids(await personsPage(`?distinct_id=${ANON_BOB}`))).toEqual([bob.uuid]);
      expect(uuids(await personsPage('?distinct_id=nobody'))).toEqual([]);
      expect(uuids(await personsPage('?distinct_id=future'))).toEqual([]);
    });

    it('searches the email (ILIKE), an exact distinct id, or the UUID', async () => {
      expect(uuids(await personsPage('?search=EXAMPLE'))).toEqual([carol.uuid, ann.uuid]);
      expect(uuids(await personsPage('?search=example.c_m'))).toEqual([ann.uuid]);
      expect(uuids(await personsPage('?search=Bob'))).toEqual([]);
      expect(uuids(await personsPage('?search=carol'))).toEqual([carol.uuid]);
      expect(uuids(await personsPage('?search=ann-i'))).toEqual([]);
      expect(uuids(await personsPage(`?search=${ANON_BOB}`))).toEqual([bob.uuid]);
      expect(uuids(await personsPage(`?search=${bob.uuid.toUpperCase()}`))).toEqual([bob.uuid]);
      expect(uuids(await personsPage('?search=carol&distinct_id=ann-id'))).toEqual([]);
    });

    it('filters email exactly', async () => {
      expect(uuids(await personsPage('?email=carol%40example.org'))).toEqual([carol.uuid]);
      expect(uuids(await personsPage('?email=CAROL%40example.org'))).toEqual([]);
    });

    it('finds nobody for a distinct id or search longer than any stored id', async () => {
      const long = encodeURIComponent('😀'.repeat(600));
      expect(uuids(await personsPage(`?distinct_id=${long}`))).toEqual([]);
      expect(uuids(await personsPage(`?search=${long}`))).toEqual([]);
    });

    it('answers 400 for the properties and cohort filters it does not apply yet, rather than listing everyone', async () => {
      expect(uuids(await personsPage('?properties=%5B%5D&email=carol%40example.org'))).toEqual([carol.uuid]);
      for (const [query, attr, detail] of [
        [
          `?properties=${encodeURIComponent('[{"key":"email","value":"x","type":"person"}]')}`,
          'properties',
          'Hedgerow does not filter the persons list by properties yet',
        ],
        ['?properties=%5B', 'properties', 'Properties are unparsable!'],
        ['?cohort=1', 'cohort', 'Hedgerow does not filter the persons list by cohort yet'],
      ] as const) {
        const r = await admin.get(`${PERSONS}${query}`);
        expect([query, r.status, r.json]).toEqual([query, 400, { type: 'validation_error', code: 'invalid_input', detail, attr }]);
      }
    });
  });

  it('refuses to create persons, as PostHog does', async () => {
    const r = await admin.post(PERSONS, { properties: { email: 'x@example.com' } });
    expect([r.status, r.json]).toEqual([
      405,
      errorBody(
        'invalid_request',
        'method_not_allowed',
        'Creating persons via this API is not allowed. Please create persons by sending an $identify event. See https://posthog.com/docs/product-analytics/identify for details.',
      ),
    ]);
  });

  describe('GET …/persons/:id/', () => {
    it('finds a person by integer id or UUID, in PostHog’s retrieve shape', async () => {
      const expected = {
        id: 1,
        name: 'ann@example.com',
        distinct_ids: ['ann-id', ANON_ANN],
        properties: ann.properties,
        created_at: '2024-05-01T10:00:00Z',
        uuid: ann.uuid,
      };
      for (const ref of ['1', ann.uuid, ann.uuid.toUpperCase(), ann.uuid.replaceAll('-', '')]) {
        const r = await admin.get(`${PERSONS}${ref}/`);
        expect([r.status, r.json], ref).toEqual([200, expected]);
      }
      const b = await admin.get(`${PERSONS}2`);
      expect(b.json).toMatchObject({ id: 2, name: 'Bob', distinct_ids: [ANON_BOB] });
      expect((await admin.get(`${PERSONS}4/`)).status).toBe(200);
    });

    it('answers 404 for unknown ids and 400 for a distinct id', async () => {
      for (const ref of ['999', randomUUID(), '-1', '1.0']) {
        const r = await admin.get(`${PERSONS}${ref}/`);
        expect([r.status, r.json], ref).toEqual([404, errorBody('invalid_request', 'not_found', 'Not found.')]);
      }
      const r = await admin.get(`${PERSONS}ann-id/`);
      expect([r.status, r.json]).toEqual([
        400,
        errorBody(
          'validation_error',
          'invalid_input',
          'The ID provided does not look like a personID. If you are using a distinctId, please use /persons?distinct_id=ann-id instead.',
        ),
      ]);
    });
  });

  describe('GET …/groups_types/', () => {
    it('lists the project’s group types by index, unpaginated', async () => {
      const r = await admin.get('/api/projects/1/groups_types/');
      expect(r.status).toBe(200);
      const base = { name_singular: null, name_plural: null, detail_dashboard: null, default_columns: null, created_at: null };
      expect(r.json).toEqual([
        { group_type: 'company', group_type_index: 0, ...base },
        { group_type: 'team', group_type_index: 1, ...base },
      ]);
    });
  });

  describe('GET …/groups/', () => {
    it('requires group_type_index', async () => {
      for (const query of ['', '?group_type_index=']) {
        const r = await admin.get(`${GROUPS}${query}`);
        expect([r.status, r.json]).toEqual([
          400,
          errorBody(
            'validation_error',
            'invalid_input',
            'You must pass ?group_type_index= in this URL. To get a list of valid group types, call /api/:project_id/groups_types/.',
            'group_type_index',
          ),
        ]);
      }
      expect((await admin.get(`${GROUPS}?group_type_index=x`)).status).toBe(400);
    });

    it('lists one type newest first, in PostHog’s shape, with group_key and search filters', async () => {
      const r = await admin.get(`${GROUPS}?group_type_index=0`);
      expect(r.status).toBe(200);
      expect(r.json).toEqual({
        next: null,
        previous: null,
        results: [
          { group_type_index: 0, group_key: 'globex', group_properties: { name: 'Globex' }, created_at: '2024-05-03T00:00:00Z' },
          { group_type_index: 0, group_key: 'acme', group_properties: acme.group_properties, created_at: '2024-05-01T00:00:00Z' },
        ],
      });
      const keys = async (query: string) =>
        ((await admin.get(`${GROUPS}?group_type_index=0&${query}`)).json as GroupsPage).results.map((g) => g.group_key);
      expect(await keys('group_key=CM')).toEqual(['acme']);
      expect(await keys('search=corporation')).toEqual(['acme']);
      expect(await keys(`search=${encodeURIComponent('"plan": "pro"')}`)).toEqual(['acme']);
      expect(await keys('search=GLOBEX')).toEqual(['globex']);
      expect(await keys('search=glob')).toEqual(['globex']);
      expect(await keys('search=nothing')).toEqual([]);
      expect(((await admin.get(`${GROUPS}?group_type_index=4`)).json as GroupsPage).results).toEqual([]);
    });

    it('pages with cursors, 100 a page whatever the limit, forwards and back', async () => {
      const newestFirst = [...TEAMS].reverse().map((g) => g.group_key);
      const first = (await admin.get(`${GROUPS}?group_type_index=1&limit=10`)).json as GroupsPage;
      expect(first.results.length).toBe(100);
      expect(first.previous).toBeNull();
      expect(first.next).toMatch(new RegExp(`^${d.baseUrl}${GROUPS}\\?cursor=[A-Za-z0-9%]+&group_type_index=1&limit=10$`));
      const second = (await admin.get(pathOf(first.next!))).json as GroupsPage;
      expect(second.next).toBeNull();
      // The 100th and 101st teams share a timestamp: the cursor must not skip or repeat either.
      expect([...first.results, ...second.results].map((g) => g.group_key).sort()).toEqual([...newestFirst].sort());
      const back = (await admin.get(pathOf(second.previous!))).json as GroupsPage;
      expect(back.results.map((g) => g.group_key)).toEqual(first.results.map((g) => g.group_key));
      expect(back.previous).toBeNull();
    });

    it('answers 404 for a cursor that does not decode', async () => {
      const r = await admin.get(`${GROUPS}?group_type_index=1&cursor=abc`);
      expect([r.status, r.json]).toEqual([404, errorBody('invalid_request', 'not_found', 'Invalid cursor')]);
    });
  });

  describe('GET …/groups/find', () => {
    it('finds one group by type and exact key', async () => {
      const r = await admin.get(`${GROUPS}find?group_type_index=0&group_key=acme`);
      expect([r.status, r.json]).toEqual([
        200,
        {
          group_type_index: 0,
          group_key: 'acme',
          group_properties: acme.group_properties,
          created_at: '2024-05-01T00:00:00Z',
          notebook: null,
        },
      ]);
      const tooLong = `group_type_index=0&group_key=${encodeURIComponent('😀'.repeat(600))}`;
      for (const query of [
        'group_type_index=0&group_key=ACME',
        'group_type_index=1&group_key=acme',
        'group_type_index=0&group_key=acm',
        tooLong,
      ]) {
        const miss = await admin.get(`${GROUPS}find?${query}`);
        expect([miss.status, miss.json], query).toEqual([404, errorBody('invalid_request', 'not_found', 'Not found.')]);
      }
      expect((await admin.get(`${GROUPS}find?group_type_index=0`)).status).toBe(400);
      expect((await admin.get(`${GROUPS}find?group_key=acme`)).status).toBe(400);
    });
  });

  describe('authentication and scopes', () => {
    it('needs a personal API key', async () => {
      const r = await apiClient(d, '').get(PERSONS);
      expect(r.status).toBe(401);
    });

    it('needs person:read for persons and group:read for groups', async () => {
      const personReader = await createUser(d, { email: 'person-reader@example.com', scopes: ['person:read'] });
      const groupWriter = await createUser(d, { email: 'group-writer@example.com', scopes: ['group:write'] });
      const p = apiClient(d, personReader.key);
      const g = apiClient(d, groupWriter.key);
      expect((await p.get(PERSONS)).status).toBe(200);
      expect((await p.get(`${PERSONS}1/`)).status).toBe(200);
      const denied = await p.get('/api/projects/1/groups_types/');
      expect([denied.status, denied.json]).toEqual([
        403,
        errorBody('authentication_error', 'permission_denied', "API key missing required scope 'group:read'"),
      ]);
      expect((await g.get(`${GROUPS}?group_type_index=0`)).status).toBe(200);
      expect((await g.get(`${GROUPS}find?group_type_index=0&group_key=acme`)).status).toBe(200);
      expect((await g.get('/api/projects/1/groups_types/')).status).toBe(200);
      expect((await g.get(PERSONS)).status).toBe(403);
    });
  });

  // Last: it adds persons and a group type to project 1.
  describe('from events through the person processor', () => {
    it('serves the person and group that posthog-node events make', async () => {
      const ph = new PostHog(d.projectKey, { host: d.baseUrl, flushAt: 1, fetchRetryCount: 0 });
      const anon = uniqueId('anon');
      const user = uniqueId('user');
      const orgKey = uniqueId('org');
      ph.capture({ distinctId: anon, event: 'page viewed' });
      await ph.flush();
      ph.identify({ distinctId: user, properties: { $anon_distinct_id: anon, email: `${user}@example.net` } });
      ph.groupIdentify({ groupType: 'organization', groupKey: orgKey, properties: { name: 'Initech' } });
      await ph.shutdown();
      await waitForPersons(d);

      const listed = await personsPage(`?distinct_id=${anon}`);
      expect(listed.results.length).toBe(1);
      const person = listed.results[0]!;
      expect(person).toMatchObject({ is_identified: true, name: `${user}@example.net`, properties: { email: `${user}@example.net` } });
      expect([...(person.distinct_ids as string[])].sort()).toEqual([anon, user].sort());
      expect(uuids(await personsPage(`?search=${user}`))).toEqual([person.uuid]);
      const retrieved = await admin.get(`${PERSONS}${person.uuid}/`);
      expect(retrieved.status).toBe(200);
      expect(retrieved.json).toMatchObject({ uuid: person.uuid, id: expect.any(Number) });
      expect((retrieved.json as { id: number }).id).toBeGreaterThan(future.id);
      // Seeded persons are untouched.
      expect(((await admin.get(`${PERSONS}1/`)).json as { uuid: string }).uuid).toBe(ann.uuid);

      const types = (await admin.get('/api/projects/1/groups_types/')).json as Array<{ group_type: string; group_type_index: number }>;
      expect(types.map((t) => [t.group_type, t.group_type_index])).toEqual([
        ['company', 0],
        ['team', 1],
        ['organization', 2],
      ]);
      const found = await admin.get(`${GROUPS}find?group_type_index=2&group_key=${orgKey}`);
      expect([found.status, found.json]).toEqual([
        200,
        { group_type_index: 2, group_key: orgKey, group_properties: { name: 'Initech' }, created_at: expect.any(String), notebook: null },
      ]);
    });
  });
});

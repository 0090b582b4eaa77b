/**
 * Static cohort members from a CSV upload (PostHog's CohortSerializer `csv` file on create and
 * PATCH) against the real daemon: multipart bodies as fetch encodes them, PostHog's header rules
 * and error bodies, person UUID and email files resolved through the stored persons, membership
 * by person (any of its distinct ids) in `/flags`, the CSV ignored where PostHog ignores it, and
 * the body and ID caps.
 */
import { PostHog } from 'posthog-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_STATIC_COHORT_CSV_IDS } from '../../src/cohorts/static-cohort-csv.js';
import { apiClient, createUser, type ApiClient } from '../helpers/api.js';
import { BACKENDS, cleanupDaemons, useDaemon } from '../helpers/daemon.js';
import { errorBody, postJson, send, uniqueId, waitForPersons, type Reply } from '../helpers/http.js';

afterAll(cleanupDaemons);

const COHORTS = '/api/projects/1/cohorts/';
/** The daemon's body cap for this suite: room for the ID-cap file, small enough to exceed. */
const BODY_CAP = 4 * 1024 * 1024;

type Field = string | { csv: string | Uint8Array<ArrayBuffer>; filename?: string };

/** A multipart body exactly as fetch (undici) encodes a FormData. */
async function multipart(fields: Record<string, Field>): Promise<{ body: Uint8Array; contentType: string }> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value === 'string') form.append(name, value);
    else form.append(name, new Blob([value.csv], { type: 'text/csv' }), value.filename ?? 'members.csv');
  }
  const req = new Request('http://localhost/', { method: 'POST', body: form });
  return { body: new Uint8Array(await req.arrayBuffer()), contentType: req.headers.get('content-type')! };
}

interface Cohort {
  id: number;
  name: string;
  is_static: boolean;
  deleted: boolean;
  count: number | null;
}

describe.each(BACKENDS)('static cohort CSV upload (%s)', (backend) => {
  const d = useDaemon({ backend, env: { HEDGEROW_MAX_BODY_BYTES: String(BODY_CAP) } });
  let admin: ApiClient;

  async function upload(method: 'POST' | 'PATCH', path: string, fields: Record<string, Field>, key = d.personalKey): Promise<Reply> {
    const { body, contentType } = await multipart(fields);
    return send(d, path, { method, body, headers: { authorization: `Bearer ${key}`, 'content-type': contentType } });
  }
  const create = (fields: Record<string, Field>) => upload('POST', COHORTS, fields);
  const patch = (id: number, fields: Record<string, Field>) => upload('PATCH', `${COHORTS}${id}/`, fields);
  const get = async (id: number) => (await admin.get(`${COHORTS}${id}/`)).json as Cohort;
  const liveCount = async () => ((await admin.get(`${COHORTS}?limit=1000`)).json as { results: unknown[] }).results.length;

  async function created(fields: Record<string, Field>): Promise<Cohort> {
    const r = await create(fields);
    expect(r.status, r.text).toBe(201);
    return r.json as Cohort;
  }

  beforeAll(async () => {
    admin = apiClient(d, d.personalKey);
    // A static cohort's members are persons (its `count` too, as PostHog's): the ids the files
    // below list get a person first, each its own.
    const ids = ['u1', 'u2', 'u3', 'distinct-id', 'ok', 'y'.repeat(200)];
    const batch = ids.map((id) => ({ event: '$pageview', distinct_id: id }));
    expect((await postJson(d, '/batch/', { api_key: d.projectKey, batch })).status).toBe(200);
    await waitForPersons(d);
  });

  it('creates a static cohort whose members are the distinct_id column, deduplicated', async () => {
    const c = await created({
      name: 'Beta list',
      is_static: 'true',
      csv: { csv: 'name,distinct_id,email\nAnn,u1,ann@example.com\nBob,  u2 ,bob@example.com\nAnn again,u1,\n' },
    });
    expect(c).toMatchObject({ name: 'Beta list', is_static: true, deleted: false, count: 2, filters: {} });
    expect((await get(c.id)).count).toBe(2);
  });

  it('PATCH with a CSV adds members (legacy single-column file) and applies the other fields', async () => {
    // A one-column file is the legacy format: its first row is a distinct id too, header-like or not.
    const c = await created({ name: 'Growing', is_static: 'True', csv: { csv: 'distinct-id\nu1\n' } });
    expect(c.count).toBe(2);
    const r = await patch(c.id, { name: 'Grown', csv: { csv: 'u1\nu2\n\nu3\n' } });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ id: c.id, name: 'Grown', count: 4 });
    // A multipart PATCH without a file changes fields only.
    expect((await patch(c.id, { description: 'no file' })).json).toMatchObject({ description: 'no file', count: 4 });
  });

  /** Identifies `user` (merging `anon` into it) with an email, and returns the person's UUID. */
  async function storedPerson(anon: string, user: string, email: string): Promise<string> {
    const ph = new PostHog(d.projectKey, { host: d.baseUrl, flushAt: 1, fetchRetryCount: 0 });
    ph.identify({ distinctId: user, properties: { $anon_distinct_id: anon, email } });
    await ph.shutdown();
    await waitForPersons(d);
    const listed = await admin.get(`/api/projects/1/persons/?distinct_id=${user}`);
    const found = (listed.json as { results: Array<{ uuid: string }> }).results;
    expect(found, listed.text).toHaveLength(1);
    return found[0]!.uuid;
  }

  it('person UUID and email columns add every distinct id of the stored persons they name', async () => {
    const ann = await storedPerson(uniqueId('ann-anon'), uniqueId('ann'), 'ann@example.com');
    const byUuid = await created({
      name: 'by uuid',
      is_static: 'true',
      // Upper-case UUIDs name the same person; an unknown one names nobody.
      csv: { csv: `name,person_id\nAnn,${ann.toUpperCase()}\nNobody,0188a0a6-0000-4000-8000-000000000001\n` },
    });
    // Both of Ann's distinct ids are kept as members; `count` is persons: one.
    expect(byUuid.count).toBe(1);
    const byEmail = await created({ name: 'by email', is_static: 'true', csv: { csv: 'email\nann@example.com\n' } });
    expect(byEmail.count).toBe(1);
    // Nobody has this email: nothing is added.
    expect((await patch(byEmail.id, { csv: { csv: 'E-mail,plan\nbob@example.com,pro\n' } })).json).toMatchObject({ count: 1 });
    const unknown = await created({ name: 'unknown', is_static: 'true', csv: { csv: 'email\nnobody@example.com\n' } });
    expect(unknown.count).toBe(0);
  });

  it('a person is in a static cohort when any of its distinct ids is, merged ones included', async () => {
    const listed = uniqueId('listed');
    const c = await created({ name: 'listed ids', is_static: 'true', csv: { csv: `${listed}\n` } });
    const flag = await admin.post('/api/projects/1/feature_flags/', {
      key: `listed-${c.id}`,
      filters: { groups: [{ properties: [{ key: 'id', type: 'cohort', value: c.id }], rollout_percentage: 100 }] },
    });
    expect(flag.status, flag.text).toBe(201);
    const enabled = async (distinctId: string) => {
      const r = await postJson(d, '/flags/?v=2', { token: d.projectKey, distinct_id: distinctId });
      return (r.json as { flags: Record<string, { enabled: boolean }> }).flags[`listed-${c.id}`]!.enabled;
    };
    const later = uniqueId('later');
    // No person has the listed id yet: it is kept, and counts once it has one (PostHog would
    // have skipped it at upload).
    expect([await enabled(listed), await enabled(later)]).toEqual([false, false]);
    expect((await get(c.id)).count).toBe(0);
    // `later` identifies with the listed id as its anonymous id: one person, so both are members.
    await storedPerson(listed, later, 'later@example.com');
    expect([await enabled(listed), await enabled(later), await enabled(uniqueId('other'))]).toEqual([true, true, false]);
    expect((await get(c.id)).count).toBe(1);
  });

  it("refuses files PostHog refuses, with PostHog's error bodies, and creates nothing", async () => {
    const before = await liveCount();
    const cases: Array<[string | Uint8Array<ArrayBuffer>, string]> = [
      ['', 'CSV file is empty. Please upload a CSV file with at least one row of data.'],
      [
        'name,age\nJohn Doe,30\n',
        "Multi-column CSV must contain at least one column with a supported ID header: 'person_id', 'Person .id' " +
          "(PostHog export format), 'distinct_id', 'distinct-id', or 'email'. Found columns: name, age",
      ],
      [
        ',,,\n,\n,\n',
        'CSV file contains no valid person IDs, distinct IDs, or email addresses. Please ensure your file has data rows with person IDs, distinct IDs, or email addresses.',
      ],
      [new Uint8Array([0x75, 0x31, 0x0a, 0xff, 0x0a]), 'CSV file encoding is not supported. Please save your file as UTF-8 and try again.'],
      ['"' + 'x'.repeat(131_073), 'CSV file format is invalid. Please check your file format and try again.'],
    ];
    for (const [csv, detail] of cases) {
      const r = await create({ name: 'refused', is_static: 'true', csv: { csv } });
      expect([r.status, r.json]).toEqual([400, errorBody('validation_error', 'invalid_input', detail, 'csv')]);
    }
    expect(await liveCount()).toBe(before);
  });

  it('a refused file on PATCH leaves the cohort as it was', async () => {
    const c = await created({ name: 'Unchanged', is_static: 'true', csv: { csv: 'u1\n' } });
    const r = await patch(c.id, { name: 'Changed', csv: { csv: 'name,age\nx,1\n' } });
    expect([r.status, (r.json as { attr: string }).attr]).toEqual([400, 'csv']);
    expect(await get(c.id)).toMatchObject({ name: 'Unchanged', count: 1 });
  });

  it('field errors come before CSV errors, as DRF validates fields first', async () => {
    const r = await create({ name: 'x'.repeat(401), is_static: 'true', csv: { csv: '' } });
    expect([r.status, r.json]).toEqual([
      400,
      errorBody('validation_error', 'max_length', 'Ensure this field has no more than 400 characters.', 'name'),
    ]);
  });

  it('ignores the CSV where PostHog does: dynamic cohorts and PATCHes that delete', async () => {
    // Created without is_static: a dynamic cohort; the file (even a bad one) is not read.
    const dynamic = await created({ name: 'dynamic', csv: { csv: 'name,age\n' } });
    expect(dynamic).toMatchObject({ is_static: false, count: null });
    expect((await patch(dynamic.id, { csv: { csv: 'u1\n' } })).json).toMatchObject({ is_static: false, count: null });
    // Made static by the same PATCH: the file is read.
    expect((await patch(dynamic.id, { is_static: 'true', csv: { csv: 'u1\nu2\n' } })).json).toMatchObject({
      is_static: true,
      count: 2,
    });
    // Deleted by the same PATCH: the file is not read.
    expect((await patch(dynamic.id, { deleted: 'true', csv: { csv: 'u3\n' } })).json).toMatchObject({
      deleted: true,
      count: 2,
    });
  });

  it('only a file part named csv counts; a text field named csv is ignored', async () => {
    const c = await created({ name: 'text field', is_static: 'true', csv: 'u1\nu2\n' });
    expect(c.count).toBe(0);
    const other = await created({ name: 'other file', is_static: 'true', members: { csv: 'u1\n' } });
    expect(other.count).toBe(0);
  });

  it('skips distinct ids capture could never have recorded (over 200 characters)', async () => {
    const c = await created({ name: 'long ids', is_static: 'true', csv: { csv: `ok\n${'x'.repeat(201)}\n${'y'.repeat(200)}\n` } });
    expect(c.count).toBe(2);
  });

  it(`refuses more than ${MAX_STATIC_COHORT_CSV_IDS} IDs in one file`, async () => {
    const ids = Array.from({ length: MAX_STATIC_COHORT_CSV_IDS + 1 }, (_, i) => `u${i}`).join('\n');
    const r = await create({ name: 'too many', is_static: 'true', csv: { csv: ids } });
    expect([r.status, (r.json as { code: string; attr: string }).attr]).toEqual([400, 'csv']);
  });

  it("holds a multipart body to the daemon's body cap", async () => {
    const r = await create({ name: 'huge', is_static: 'true', csv: { csv: 'u\n'.repeat(BODY_CAP / 2 + 1) } });
    expect([r.status, (r.json as { code: string }).code]).toEqual([413, 'payload_too_large']);
  });

  it("answers malformed multipart bodies with DRF's parse error", async () => {
    const headers = { authorization: `Bearer ${d.personalKey}` };
    const noBoundary = await send(d, COHORTS, {
      method: 'POST',
      body: 'name=x',
      headers: { ...headers, 'content-type': 'multipart/form-data' },
    });
    expect([noBoundary.status, noBoundary.json]).toEqual([
      400,
      errorBody('invalid_request', 'parse_error', 'Multipart form parse error - Invalid boundary in multipart: None'),
    ]);
    // Cut inside the file part: the file stream errors as well as the parser.
    const { body, contentType } = await multipart({ name: 'cut', is_static: 'true', csv: { csv: 'u1\nu2\n' } });
    const cut = await send(d, COHORTS, {
      method: 'POST',
      body: body.subarray(0, Buffer.from(body).indexOf('u1\n') + 3),
      headers: { ...headers, 'content-type': contentType },
    });
    expect([cut.status, (cut.json as { code: string }).code]).toEqual([400, 'parse_error']);
    expect((await admin.get(COHORTS)).status).toBe(200);
  });

  it('authenticates and checks the cohort:write scope as for JSON bodies', async () => {
    const fields = { name: 'denied', is_static: 'true', csv: { csv: 'u1\n' } };
    expect((await upload('POST', COHORTS, fields, 'phx_not_a_real_key_0000000000000000000000000000')).status).toBe(401);
    const reader = await createUser(d, { email: `csv-reader-${backend}@example.com`, scopes: ['cohort:read'] });
    const denied = await upload('POST', COHORTS, fields, reader.key);
    expect([denied.status, (denied.json as { detail: string }).detail]).toEqual([403, "API key missing required scope 'cohort:write'"]);
  });
});

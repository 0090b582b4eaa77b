/**
 * The real posthog-node client against the daemon: capture, identify, alias and groupIdentify
 * are flushed over `/batch/` (gzip by default) and come back through the events API with the
 * names, distinct_ids, uuids and properties the client sent. Runs against both HTTP backends.
 */

import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { PostHog } from 'posthog-node';
import { afterAll, describe, expect, it } from 'vitest';
import { BACKENDS, cleanupDaemons, REPO_ROOT, useDaemon } from '../helpers/daemon.js';
import { eventsOf, uniqueId, waitForPersons, type ApiEvent } from '../helpers/http.js';

const POSTHOG_NODE_VERSION = (
  JSON.parse(readFileSync(path.join(REPO_ROOT, 'node_modules/posthog-node/package.json'), 'utf8')) as { version: string }
).version;

interface WireEvent {
  uuid: string;
  event: string;
  distinct_id: string;
  properties: Record<string, unknown>;
  timestamp: string;
}
interface WireBatch {
  api_key: string;
  batch: WireEvent[];
  sent_at: string;
}
interface Recorded {
  url: string;
  status: number;
  contentEncoding: string | undefined;
  body: WireBatch;
}

/** A fetch for posthog-node that records every request it makes (body decoded) and its status. */
function recordingFetch(log: Recorded[]) {
  return async (url: string, options: { method: string; headers: Record<string, string>; body?: unknown; signal?: AbortSignal }) => {
    const res = await fetch(url, options as RequestInit);
    let raw: Buffer;
    const b = options.body;
    if (typeof b === 'string') raw = Buffer.from(b);
    else if (b instanceof Uint8Array) raw = Buffer.from(b);
    else if (b instanceof Blob) raw = Buffer.from(await b.arrayBuffer());
    else raw = Buffer.alloc(0);
    const encoding = Object.entries(options.headers).find(([k]) => k.toLowerCase() === 'content-encoding')?.[1];
    const text = encoding === 'gzip' ? gunzipSync(raw).toString('utf8') : raw.toString('utf8');
    log.push({ url, status: res.status, contentEncoding: encoding, body: JSON.parse(text) as WireBatch });
    return res;
  };
}

afterAll(cleanupDaemons);

describe.each(BACKENDS)('posthog-node %s', (backend) => {
  const d = useDaemon({ backend });

  function client(log: Recorded[], errors: unknown[], options: Record<string, unknown> = {}): PostHog {
    const ph = new PostHog(d.projectKey, {
      host: d.baseUrl,
      flushAt: 3,
      flushInterval: 0,
      fetchRetryCount: 0,
      fetch: recordingFetch(log),
      ...options,
    });
    ph.on('error', (e: unknown) => errors.push(e));
    return ph;
  }

  /** Every event the client sent, by uuid, with the batch's sent_at. */
  function sentEvents(log: Recorded[]): Map<string, WireEvent & { sent_at: string }> {
    const out = new Map<string, WireEvent & { sent_at: string }>();
    for (const r of log) for (const e of r.body.batch) out.set(e.uuid, { ...e, sent_at: r.body.sent_at });
    return out;
  }

  /**
   * The stored event equals the one sent, plus what the server adds ($ip, $sent_at, and
   * `$group_<index>` for its $groups once their types have an index) and skew-corrected time.
   */
  function expectSameEvent(stored: ApiEvent, sent: WireEvent & { sent_at: string }): void {
    expect(stored.id).toBe(sent.uuid);
    expect(stored.event).toBe(sent.event);
    expect(stored.distinct_id).toBe(sent.distinct_id);
    const groupIndexes =
      sent.properties.$groups === undefined ? {} : { $group_0: (sent.properties.$groups as { company: string }).company };
    expect(stored.properties).toEqual({ ...sent.properties, $ip: '127.0.0.1', $sent_at: sent.sent_at, ...groupIndexes });
    expect(Math.abs(Date.parse(stored.timestamp) - Date.parse(sent.timestamp))).toBeLessThan(5000);
  }

  it('capture, identify, alias and groupIdentify all come back through the events API', async () => {
    const log: Recorded[] = [];
    const errors: unknown[] = [];
    const ph = client(log, errors);
    const user = uniqueId('node-user');
    const alias = uniqueId('node-alias');
    const chosenUuid = randomUUID();

    ph.capture({ distinctId: user, event: 'plan purchased', properties: { plan: 'pro', amount: 42, tags: ['a', 'b'] } });
    ph.capture({ distinctId: user, event: 'with uuid', uuid: chosenUuid, properties: { n: 1 } });
    ph.capture({ distinctId: user, event: 'in a group', groups: { company: 'acme' } });
    ph.identify({ distinctId: user, properties: { email: 'ada@example.com', name: 'Ada' } });
    ph.alias({ distinctId: user, alias });
    ph.groupIdentify({ groupType: 'company', groupKey: 'acme', properties: { name: 'Acme Inc', employees: 12 } });
    await ph.shutdown();

    expect(errors).toEqual([]);
    expect(log.length).toBeGreaterThanOrEqual(1);
    for (const r of log) {
      expect(r.url).toBe(`${d.baseUrl}/batch/`);
      expect(r.status).toBe(200);
      expect(r.contentEncoding).toBe('gzip');
      expect(r.body.api_key).toBe(d.projectKey);
    }
    const sent = sentEvents(log);
    expect(sent.size).toBe(6);

    await waitForPersons(d); // group types get their index there: events are read with `$group_<index>`
    const mine = await eventsOf(d, user);
    expect(mine.map((e) => e.event)).toEqual(['plan purchased', 'with uuid', 'in a group', '$identify', '$create_alias']);
    for (const e of mine) {
      expectSameEvent(e, sent.get(e.id)!);
      expect(e.properties.$lib).toBe('posthog-node');
      expect(e.properties.$lib_version).toBe(POSTHOG_NODE_VERSION);
    }
    const [purchased, withUuid, inGroup, identify, created] = mine;
    expect(purchased!.properties).toMatchObject({ plan: 'pro', amount: 42, tags: ['a', 'b'] });
    expect(withUuid!.id).toBe(chosenUuid);
    expect(inGroup!.properties.$groups).toEqual({ company: 'acme' });
    expect(identify!.properties.$set).toEqual({ email: 'ada@example.com', name: 'Ada' });
    expect(created!.properties).toMatchObject({ distinct_id: user, alias });

    const groups = await eventsOf(d, '$company_acme');
    expect(groups.map((e) => e.event)).toEqual(['$groupidentify']);
    expectSameEvent(groups[0]!, sent.get(groups[0]!.id)!);
    expect(groups[0]!.properties).toMatchObject({
      $group_type: 'company',
      $group_key: 'acme',
      $group_set: { name: 'Acme Inc', employees: 12 },
      $lib: 'posthog-node',
    });
  });

  it('flush() delivers a larger queue, uncompressed when compression is disabled', async () => {
    const log: Recorded[] = [];
    const errors: unknown[] = [];
    const ph = client(log, errors, { flushAt: 100, disableCompression: true });
    const user = uniqueId('node-flush');
    for (let i = 0; i < 45; i++) ph.capture({ distinctId: user, event: `bulk ${i}`, properties: { i } });
    await ph.flush();
    expect(errors).toEqual([]);
    expect(log.map((r) => [r.status, r.contentEncoding])).toEqual([[200, undefined]]);
    const sent = sentEvents(log);
    const stored = await eventsOf(d, user);
    expect(stored.map((e) => e.event)).toEqual(Array.from({ length: 45 }, (_, i) => `bulk ${i}`));
    for (const e of stored) expectSameEvent(e, sent.get(e.id)!);
    await ph.shutdown();
  });
});

/**
 * The pure and store-level pieces of cluster mode: which existing streams a node refuses or warns
 * about, how a block too large for one NATS message is cut, and how a node places the stream's
 * blocks in its event log (keys every node computes alike; the cursor committed with them).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DiscardPolicy, RetentionPolicy, type StreamConfig } from '@nats-io/jetstream';
import { afterEach, describe, expect, it } from 'vitest';
import { splitBlock } from '../../src/cluster/block-publisher.js';
import { ClusterSetupError, checkLogStream, logStreamConfig } from '../../src/cluster/cluster-streams.js';
import type { StoredEvent } from '../../src/ingest/types.js';
import { decodeBlock, encodeBlock } from '../../src/store/event-log.js';
import { type EventKey, openStore, type StoreDatabases } from '../../src/store/open-store.js';
import { StreamEventLog } from '../../src/store/stream-event-log.js';

const settings = { replicas: 3, maxAgeHours: 168 };
const info = (over: Partial<StreamConfig>) => ({ config: { ...logStreamConfig(settings), ...over } as StreamConfig });

describe('checkLogStream', () => {
  it('takes the stream it would create, silently', () => {
    expect(checkLogStream(info({}), settings)).toEqual([]);
  });
  it.each([
    ['a work queue', { retention: RetentionPolicy.Workqueue }, /retention is "workqueue"/],
    ['other subjects', { subjects: ['other'] }, /subjects are \["other"\], not \["hedgerow.events","hedgerow.commands"\]/],
    ['discarding new messages', { discard: DiscardPolicy.New }, /discard policy is "new"/],
    ['messages too small for an event', { max_msg_size: 1024 * 1024 }, /max_msg_size is 1048576/],
    ['a sealed stream', { sealed: true }, /sealed/],
  ])('refuses %s', (_label, over, message) => {
    expect(() => checkLogStream(info(over), settings)).toThrow(ClusterSetupError);
    expect(() => checkLogStream(info(over), settings)).toThrow(message);
  });
  it('warns about replicas and age that differ from the settings (they apply at creation only)', () => {
    const warnings = checkLogStream(info({ num_replicas: 1, max_age: 0 }), settings);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/1 replicas; HEDGEROW_CLUSTER_REPLICAS=3/);
    expect(warnings[1]).toMatch(/for ever; HEDGEROW_CLUSTER_STREAM_MAX_AGE_HOURS=168/);
  });
});

const event = (i: number, size = 10): StoredEvent => ({
  uuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  event: 'e',
  distinct_id: `d${i}`,
  properties: { pad: 'x'.repeat(size) },
  timestamp: '2026-01-01T00:00:00.000Z',
  created_at: '2026-01-01T00:00:00.000Z',
  project_id: 1,
});

describe('splitBlock', () => {
  it('cuts a block into blocks under the limit, events in order, none lost', () => {
    const events = Array.from({ length: 100 }, (_, i) => event(i, 1000));
    const parts = splitBlock(encodeBlock(events), 10_000);
    expect(parts.length).toBeGreaterThan(10);
    for (const p of parts) {
      expect(p.block.byteLength).toBeLessThanOrEqual(10_000);
      expect(decodeBlock(p.block)).toHaveLength(p.events);
    }
    expect(parts.flatMap((p) => decodeBlock(p.block))).toEqual(events);
  });
  it('leaves one event alone even when it is over the limit (the servers take 2 MiB; an event at most 1 MiB)', () => {
    const parts = splitBlock(encodeBlock([event(1, 5000), event(2, 5000), event(3, 5000)]), 1000);
    expect(parts.map((p) => p.events)).toEqual([1, 1, 1]);
  });
});

describe('StreamEventLog', () => {
  const dirs: string[] = [];
  const stores: StoreDatabases[] = [];
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.root.close();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  function store(dir = mkdtempSync(path.join(os.tmpdir(), 'hedgerow-stream-log-'))): StoreDatabases {
    if (!dirs.includes(dir)) dirs.push(dir);
    const dbs = openStore({ dataDir: dir, sync: 'none' });
    stores.push(dbs);
    return dbs;
  }
  const block = encodeBlock([event(1)]);

  it('gives keys that grow in stream order whatever the publishers’ clocks, the same on every node', async () => {
    const keysOn = async (): Promise<EventKey[]> => {
      const log = new StreamEventLog(store());
      const keys = [
        log.place({ seq: 1, micros: 5_000 }),
        log.place({ seq: 2, micros: 4_000 }), // a publisher whose clock is behind
        log.place({ seq: 3, micros: 4_500 }),
        log.place({ seq: 4, micros: 9_000 }),
      ];
      await log.commit(keys.map((key) => ({ key, block })));
      return keys;
    };
    const a = await keysOn();
    expect(a).toEqual([
      [5_000, 0, 1],
      [5_001, 0, 2],
      [5_002, 0, 3],
      [9_000, 0, 4],
    ]);
    expect(await keysOn()).toEqual(a);
  });

  it('resumes after the last committed block; what was placed and not committed is placed again alike', async () => {
    const dbs = store();
    const log = new StreamEventLog(dbs);
    await log.commit([{ key: log.place({ seq: 1, micros: 100 }), block }]);
    const lost = log.place({ seq: 2, micros: 50 });
    log.rewind();
    expect(log.place({ seq: 2, micros: 50 })).toEqual(lost);
    const dir = dirs[0] as string;
    await dbs.root.close();
    stores.splice(0);
    const reopened = new StreamEventLog(store(dir));
    expect(reopened.position).toEqual({ seq: 1, micros: 100 });
    expect(() => reopened.place({ seq: 1, micros: 200 })).toThrow(/not after 1/);
    expect(reopened.place({ seq: 2, micros: 50 })).toEqual(lost);
  });

  it('starts after the last key of a log written before cluster mode', async () => {
    const dbs = store();
    await dbs.events.put([7_000, 42, 0], Buffer.from(block));
    expect(new StreamEventLog(dbs).place({ seq: 1, micros: 10 })).toEqual([7_001, 0, 1]);
  });
});

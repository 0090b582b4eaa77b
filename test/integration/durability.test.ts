/**
 * The durability contract (docs/architecture.md#durability-contract): a 200 means committed. Batches
 * are sent in several concurrent lanes; the moment the last counted batch is acknowledged the
 * daemon gets SIGKILL, with other requests still in flight. After a restart on the same data
 * directory, the exported log (`hedgerow events export`) holds every acknowledged event exactly
 * once.
 */

import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { BACKENDS, cleanupDaemons, exportEvents, restartDaemon, startDaemon } from '../helpers/daemon.js';
import { gzip, listEvents, send } from '../helpers/http.js';

const BATCHES = 50;
const EVENTS_PER_BATCH = 100;
const LANES = 4;

afterAll(cleanupDaemons);

describe.each(BACKENDS)('durability (%s backend)', (backend) => {
  it('every acknowledged event survives SIGKILL right after its acknowledgement, none twice', async () => {
    const d = await startDaemon({ backend, env: { HEDGEROW_WORKERS: '2' } });
    const acked = new Set<string>();
    const sent = new Set<string>();
    const unexpected: string[] = [];
    let ackedBatches = 0;
    let ackedAfterKill = 0;
    let failedAfterKill = 0;
    let killed = false;
    let seq = 0;

    async function lane(laneNo: number): Promise<void> {
      while (!killed) {
        const n = seq++;
        const batch = Array.from({ length: EVENTS_PER_BATCH }, (_, i) => ({
          uuid: randomUUID(),
          event: 'durable',
          distinct_id: `lane-${laneNo}`,
          properties: { batch: n, i, $lib: 'durability-test' },
          timestamp: new Date().toISOString(),
        }));
        for (const e of batch) sent.add(e.uuid);
        const json = JSON.stringify({ api_key: d.projectKey, batch, sent_at: new Date().toISOString() });
        // Half the lanes send gzip like posthog-node, the others plain JSON.
        const headers: Record<string, string> =
          laneNo % 2 === 0 ? { 'content-type': 'application/json', 'content-encoding': 'gzip' } : { 'content-type': 'application/json' };
        let status: number;
        try {
          const res = await fetch(`${d.baseUrl}/batch/`, {
            method: 'POST',
            headers,
            body: (laneNo % 2 === 0 ? gzip(json) : json) as NonNullable<RequestInit['body']>,
          });
          status = res.status;
          // The status line alone is the acknowledgement; the body may be cut off by the kill.
          await res.text().catch(() => '');
        } catch (err) {
          if (killed) {
            failedAfterKill++;
            return;
          }
          throw err;
        }
        if (status !== 200) {
          unexpected.push(`batch ${n}: HTTP ${status}`);
          continue;
        }
        for (const e of batch) acked.add(e.uuid);
        if (killed) ackedAfterKill++;
        ackedBatches++;
        if (ackedBatches === BATCHES && !killed) {
          killed = true;
          d.child.kill('SIGKILL'); // same turn as the acknowledgement: nothing else runs in the daemon's favour
        }
      }
    }

    await Promise.all(Array.from({ length: LANES }, (_, i) => lane(i)));
    await d.kill();
    expect(unexpected).toEqual([]);
    expect(ackedBatches).toBeGreaterThanOrEqual(BATCHES);
    expect(acked.size).toBe(ackedBatches * EVENTS_PER_BATCH);
    expect(d.records().some((r) => r.msg === 'stopped')).toBe(false); // it really died, no clean shutdown

    const again = await restartDaemon(d);
    expect((await send(again, '/_readyz')).status).toBe(200);

    const exported = await exportEvents(again.dataDir);
    const counts = new Map<string, number>();
    for (const e of exported) counts.set(e.uuid, (counts.get(e.uuid) ?? 0) + 1);
    const missing = [...acked].filter((u) => !counts.has(u));
    const duplicated = [...counts].filter(([, c]) => c > 1).map(([u]) => u);
    const foreign = [...counts.keys()].filter((u) => !sent.has(u));
    expect({ missing: missing.length, duplicated: duplicated.length, foreign: foreign.length }).toEqual({
      missing: 0,
      duplicated: 0,
      foreign: 0,
    });
    expect(exported.length).toBeGreaterThanOrEqual(acked.size);
    expect(exported.every((e) => e.project_id === 1 && e.event === 'durable')).toBe(true);

    // The restarted daemon serves the recovered log and keeps accepting.
    const page = await listEvents(again, { event: 'durable', limit: '1' });
    expect(page.results).toHaveLength(1);
    expect(counts.has(page.results[0]!.id)).toBe(true);
    expect(await again.stop()).toBe(0);

    // For the log: how hard the kill hit.
    console.info(
      `[durability ${backend}] acked ${ackedBatches} batches (${ackedAfterKill} answered after the kill), ` +
        `${failedAfterKill} requests cut off by the kill, ${exported.length} events exported`,
    );
  });
});

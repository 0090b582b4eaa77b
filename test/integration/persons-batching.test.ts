/**
 * Under a steady stream of small captures the person processor does not commit once per capture:
 * after a batch of few events it waits 10 ms for more (workers/person-worker.ts), so its batches
 * (`hedgerow_person_batches_total`) come at most about every 10 ms, however many commits the event
 * log made meanwhile. Every event is still applied.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupDaemons, useDaemon } from '../helpers/daemon.js';
import { metricSample, postJson, send, uniqueId, waitForPersons } from '../helpers/http.js';

afterAll(cleanupDaemons);

describe('the person processor under a stream of small captures', () => {
  const d = useDaemon({ backend: 'uws' });

  const counters = async () => {
    const text = (await send(d, '/metrics')).text;
    const processed = ['created', 'updated', 'skipped'].reduce(
      (n, outcome) => n + (metricSample(text, 'hedgerow_person_events_processed_total', { outcome }) ?? 0),
      0,
    );
    return { batches: metricSample(text, 'hedgerow_person_batches_total') ?? 0, processed };
  };

  it('commits its batches at most about every 10 ms, not once per capture, and applies every event', async () => {
    await waitForPersons(d);
    const before = await counters();
    const started = performance.now();
    // One at a time: each capture is its own commit of the event log, and its own wake-up.
    const captures = 150;
    for (let i = 0; i < captures; i++) {
      const r = await postJson(d, '/capture/', { api_key: d.projectKey, event: 'tick', distinct_id: uniqueId('stream') });
      expect(r.status).toBe(200);
    }
    await waitForPersons(d);
    const elapsedMs = performance.now() - started;
    const after = await counters();
    expect(after.processed - before.processed).toBe(captures);
    const batches = after.batches - before.batches;
    expect(batches).toBeGreaterThan(0);
    // 10 ms apart at least, less a timer's early firing; without the pause this was 145 in 763 ms.
    expect(batches, `${batches} batches in ${elapsedMs.toFixed(0)} ms`).toBeLessThanOrEqual(Math.ceil(elapsedMs / 8) + 2);
  });
});

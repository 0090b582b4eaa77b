/**
 * Crash safety of the person processor: the same events go to two daemons; one is SIGKILLed
 * while its processor is behind, restarted, and left to catch up. Both end with exactly the same
 * persons, distinct ids and groups (versions included): nothing applied twice, nothing skipped.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupDaemons, restartDaemon, startDaemon, type DaemonHandle } from '../helpers/daemon.js';
import { gzip, send } from '../helpers/http.js';
import { dumpStore, PERSON_DATABASES } from '../helpers/store-dump.js';

/** Every person (with its distinct ids), group, group type and usage rollup counter, as stored. */
const dump = (dataDir: string) => dumpStore(dataDir, PERSON_DATABASES);

afterAll(cleanupDaemons);

// 20,000 events in two requests: each is one block the processor applies in one transaction
// (~70–150 ms of work), so the kill right after the last acknowledgement lands while it works.
// With 40 requests of 500 events the processor could keep pace with the sequential requests on a
// fast machine, and the kill then found it idle (seen once in CI).
const BATCHES = 2;
const EVENTS_PER_BATCH = 10_000;

function batch(apiKey: string, b: number): Buffer {
  const events: Record<string, unknown>[] = [];
  for (let i = 0; i < EVENTS_PER_BATCH; i++) {
    const n = b * EVENTS_PER_BATCH + i;
    const user = `user-${n % 700}`;
    // Both daemons must see identical events: fixed uuids and times.
    const fixed = {
      uuid: `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`,
      timestamp: new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString(),
    };
    if (n % 10 === 3) {
      events.push({
        ...fixed,
        event: '$identify',
        distinct_id: user,
        properties: { $anon_distinct_id: `anon-${n % 900}`, $set: { seen: n } },
      });
    } else if (n % 10 === 5) {
      // Usage dashboard rollups are written in the processor's transaction too.
      events.push({
        ...fixed,
        event: '$feature_flag_called',
        distinct_id: user,
        properties: { $feature_flag: `f${n % 3}`, $feature_flag_response: n % 4 === 1 },
      });
    } else if (n % 50 === 7) {
      events.push({
        ...fixed,
        event: '$groupidentify',
        distinct_id: user,
        properties: { $group_type: 'team', $group_key: `t${n % 13}`, $group_set: { last: n } },
      });
    } else {
      events.push({
        ...fixed,
        event: 'step',
        distinct_id: n % 4 === 0 ? `anon-${n % 900}` : user,
        properties: { $set: { last: n }, $set_once: { first: n }, $groups: { team: `t${n % 13}` } },
      });
    }
  }
  return gzip(JSON.stringify({ api_key: apiKey, batch: events }));
}

async function ingest(d: DaemonHandle): Promise<void> {
  for (let b = 0; b < BATCHES; b++) {
    const r = await send(d, '/batch/', {
      body: batch(d.projectKey, b),
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(r.status).toBe(200);
  }
}

async function caughtUp(d: DaemonHandle): Promise<void> {
  expect((await send(d, '/_persons/caught_up?timeout_ms=60000')).json).toEqual({ caught_up: true });
}

async function behind(d: DaemonHandle): Promise<number> {
  const text = (await send(d, '/metrics')).text;
  return Number(/^hedgerow_person_processor_events_behind (\S+)$/m.exec(text)?.[1] ?? 'NaN');
}

describe('person processor crash safety', () => {
  it('resumes after SIGKILL exactly where its last commit left it', { timeout: 120_000 }, async () => {
    const projectKey = `phc_crash_${Date.now()}`;
    const reference = await startDaemon({ backend: 'uws', projectKey });
    const crashed = await startDaemon({ backend: 'uws', projectKey });
    await ingest(reference);
    await caughtUp(reference);
    await reference.stop();

    await ingest(crashed);
    const pending = await behind(crashed);
    await crashed.kill();
    expect(pending, 'the processor should still have been working when killed').toBeGreaterThan(0);
    const restarted = await restartDaemon(crashed);
    await caughtUp(restarted);
    await restarted.stop();

    const [a, b] = [await dump(reference.dataDir), await dump(crashed.dataDir)];
    expect(a.persons?.length).toBeGreaterThan(500);
    expect(a.usageRollups?.length).toBeGreaterThan(300);
    expect(b).toEqual(a);
  });
});

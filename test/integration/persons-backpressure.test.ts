/**
 * HEDGEROW_MAX_PERSON_BACKLOG: past it (and from a quarter of it, one task at a time) capture work
 * waits for the person processor. With a tiny limit a burst of concurrent batches runs into
 * it; every request must still be acknowledged, and every accepted event applied. With 0 capture
 * never waits.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupDaemons, useDaemon, type DaemonHandle } from '../helpers/daemon.js';
import { metricSample, OK, postJson, send, uniqueId, waitForPersons } from '../helpers/http.js';

afterAll(cleanupDaemons);

const WAVES = 6;
const REQUESTS_PER_WAVE = 12;
const EVENTS_PER_REQUEST = 400;

async function metrics(d: DaemonHandle): Promise<string> {
  return (await send(d, '/metrics')).text;
}

/**
 * Every wave's /batch/ requests at once, ~3.4 MB in all: a dozen tasks of ~256 KiB for two
 * workers, so requests are still waiting when the first tasks' events are committed and the
 * processor is behind (11–83 holds in seven runs). Waves sent one after another's answers let the
 * processor, faster since records, catch up between them: a third of runs held nothing.
 */
async function load(d: DaemonHandle, run: string): Promise<void> {
  const replies = await Promise.all(
    Array.from({ length: WAVES * REQUESTS_PER_WAVE }, (_, k) => {
      const wave = Math.floor(k / REQUESTS_PER_WAVE);
      const r = k % REQUESTS_PER_WAVE;
      return postJson(d, '/batch/', {
        api_key: d.projectKey,
        batch: Array.from({ length: EVENTS_PER_REQUEST }, (_, i) => ({
          event: i % 5 === 0 ? '$identify' : 'seen',
          distinct_id: `${run}-${wave}-${r}-${i % 10}`,
          properties: { $set: { wave, n: i } },
        })),
      });
    }),
  );
  for (const reply of replies) expect([reply.status, reply.json]).toEqual([200, OK]);
}

describe('capture waits for a person processor past its backlog limit', () => {
  const held = useDaemon({ backend: 'uws', env: { HEDGEROW_MAX_PERSON_BACKLOG: '2' } });
  const free = useDaemon({ backend: 'uws', env: { HEDGEROW_MAX_PERSON_BACKLOG: '0' } });

  it('holds capture back, acknowledges everything, and applies every accepted event', async () => {
    const run = uniqueId('held');
    await load(held, run);
    await waitForPersons(held);
    const text = await metrics(held);
    expect(metricSample(text, 'hedgerow_capture_held_for_persons_total')).toBeGreaterThan(0);
    const accepted = metricSample(text, 'hedgerow_events_accepted_total');
    expect(accepted).toBe(WAVES * REQUESTS_PER_WAVE * EVENTS_PER_REQUEST);
    const applied = ['created', 'updated', 'skipped', 'merged'].reduce(
      (n, outcome) => n + (metricSample(text, 'hedgerow_person_events_processed_total', { outcome }) ?? 0),
      0,
    );
    expect(applied).toBe(accepted);
    expect(metricSample(text, 'hedgerow_person_processor_events_behind')).toBe(0);
    // Committed blocks reach the processor through the hand-off ring (the first may race it).
    expect(metricSample(text, 'hedgerow_person_blocks_read_total', { source: 'hand-off' })).toBeGreaterThan(0);
    const persons = await send(held, `/api/projects/1/persons/?distinct_id=${run}-${WAVES - 1}-0-3`, {
      headers: { authorization: `Bearer ${held.personalKey}` },
    });
    expect(persons.status).toBe(200);
    expect((persons.json as { results: { properties: Record<string, unknown> }[] }).results[0]?.properties).toMatchObject({
      wave: WAVES - 1,
    });
  });

  it('never holds capture back with 0', async () => {
    await load(free, uniqueId('free'));
    await waitForPersons(free);
    expect(metricSample(await metrics(free), 'hedgerow_capture_held_for_persons_total')).toBe(0);
  });
});

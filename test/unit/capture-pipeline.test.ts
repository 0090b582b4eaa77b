import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { normalizeCapture, prepareCapture } from '../../src/ingest/capture-pipeline.js';
import { validateTokenShape } from '../../src/ingest/token.js';
import { expectHedgerowError, request, vectorBody, vectorPath, vectorsFor } from './ingestion-vectors.js';

const CAP = 5 * 1024 * 1024;
const NOW = new Date('2024-06-01T12:00:00.000Z');

describe('RawRequest::from_bytes vectors (39-40)', () => {
  const vectors = vectorsFor('RawRequest::from_bytes + events + extract_token/extract_distinct_id');
  it('covers 39-40', () => expect(vectors.map((v) => v.id)).toEqual([39, 40]));

  for (const v of vectors) {
    it(`vector ${v.id}: ${v.description}`, () => {
      const prepared = prepareCapture(request({ path: vectorPath(v.input), body: vectorBody(v.input) }), CAP);
      expect(prepared.token).toBe(v.expected.token);
      const { events, dropped } = normalizeCapture(prepared, 1, NOW);
      expect(dropped).toEqual({ no_event_name: 0, no_distinct_id: 0 });
      expect(events).toHaveLength(v.expected.event_count as number);
      expect(events[0]!.event).toBe(v.expected.event);
      expect(events[0]!.distinct_id).toBe(v.expected.distinct_id);
    });
  }
});

describe('prepareCapture + normalizeCapture', () => {
  it('handles a posthog-node gzip batch end to end', () => {
    const payload = {
      api_key: ' phc_node ',
      sent_at: '2024-06-01T12:00:00.000Z',
      batch: [
        { event: 'a', distinct_id: 'u1', properties: { $lib: 'posthog-node' }, timestamp: '2024-06-01T11:59:00.000Z' },
        { event: '$performance_event', distinct_id: 'u1' },
        { event: 'b', properties: { distinct_id: 'u2' } },
        { event: 'c' },
      ],
    };
    const req = request({ path: '/batch/', contentEncoding: 'gzip', body: gzipSync(JSON.stringify(payload)) });
    const prepared = prepareCapture(req, CAP);
    expect(prepared.token).toBe(' phc_node ');
    expect(validateTokenShape(prepared.token!)).toEqual({ ok: true, token: 'phc_node' });
    expect(prepared.body.filteredPerformanceEvents).toBe(1);
    const result = normalizeCapture(prepared, 3, NOW);
    expect(result.dropped).toEqual({ no_event_name: 0, no_distinct_id: 1 });
    expect(result.events.map((e) => [e.event, e.distinct_id, e.project_id, e.timestamp, e.properties.$ip])).toEqual([
      ['a', 'u1', 3, '2024-06-01T11:59:00.000Z', '203.0.113.7'],
      ['b', 'u2', 3, '2024-06-01T12:00:00.000Z', '203.0.113.7'],
    ]);
  });

  it('handles a posthog-js beacon form with query sent_at and project_id', () => {
    const json = JSON.stringify([{ event: '$pageleave', properties: { token: 'phc_js', distinct_id: 'u' } }]);
    const req = request({
      path: '/e/',
      query: 'compression=base64&beacon=1&_=1717243195000&project_id=9',
      contentType: 'application/x-www-form-urlencoded',
      body: Buffer.from(`data=${encodeURIComponent(Buffer.from(json).toString('base64'))}`),
    });
    const prepared = prepareCapture(req, CAP);
    expect(prepared).toMatchObject({ token: 'phc_js', beacon: true, projectIdHint: 9, querySentAtMs: 1717243195000 });
    const [event] = normalizeCapture(prepared, 9, NOW).events;
    expect(event!.sent_at).toBe('2024-06-01T11:59:55.000Z');
  });

  it('accepts a request of only $performance_events with no events and no token', () => {
    const prepared = prepareCapture(request({ body: Buffer.from('[{"event":"$performance_event","token":"t"}]') }), CAP);
    expect(prepared.body.events).toEqual([]);
    expect(prepared.body.filteredPerformanceEvents).toBe(1);
    expect(normalizeCapture(prepared, 1, NOW)).toEqual({ events: [], dropped: { no_event_name: 0, no_distinct_id: 0 } });
  });

  it('refuses inconsistent event tokens with 401', () => {
    const req = request({ body: Buffer.from('[{"event":"a","token":"t1"},{"event":"b","properties":{"token":"t2"}}]') });
    expect(expectHedgerowError(() => prepareCapture(req, CAP), 'HR_INCONSISTENT_API_KEYS').status).toBe(401);
  });

  it('surfaces decode errors before parsing', () => {
    expectHedgerowError(() => prepareCapture(request(), CAP), 'HR_EMPTY_PAYLOAD');
    expectHedgerowError(() => prepareCapture(request({ body: Buffer.from('{"event":') }), CAP), 'HR_PARSE_FAILED');
  });
});

import { describe, expect, it } from 'vitest';
import { parseCaptureBody } from '../../src/ingest/parse-body.js';
import { expectHedgerowError, vectorPath, vectorsFor } from './ingestion-vectors.js';

describe('RawRequest::events(path) vectors (73-74)', () => {
  const vectors = vectorsFor('RawRequest::events(path)');
  it('covers 73-74', () => expect(vectors.map((v) => v.id)).toEqual([73, 74]));

  it('vector 73: object without event off /engage is refused', () => {
    const v = vectors[0]!;
    const err = expectHedgerowError(() => parseCaptureBody(v.input.body as string, vectorPath(v.input)), 'HR_NO_EVENT_NAME_ATTR');
    expect(err.status).toBe(400);
  });

  it('vector 74: object without event on /engage becomes $identify', () => {
    const v = vectors[1]!;
    const parsed = parseCaptureBody(v.input.body as string, vectorPath(v.input));
    expect(parsed.events).toHaveLength(v.expected.event_count as number);
    expect(parsed.events[0]).toEqual({
      event: v.expected.event,
      token: 'token',
      distinct_id: 'distinct_id',
      $set: { foo: 42, bar: true },
    });
  });
});

describe('parseCaptureBody', () => {
  it('accepts an array of events', () => {
    const p = parseCaptureBody('[{"event":"a"},{"event":"b","token":"t"}]', '/e/');
    expect(p).toEqual({
      events: [{ event: 'a' }, { event: 'b', token: 't' }],
      filteredPerformanceEvents: 0,
      batchToken: undefined,
      sentAt: undefined,
      historicalMigration: false,
      projectIdHint: undefined,
    });
  });

  it('accepts the batch shape with its fields', () => {
    const p = parseCaptureBody(
      '{"api_key":"phc_k","batch":[{"event":"a"}],"sent_at":"2024-01-01T00:00:00Z","historical_migration":true}',
      '/batch/',
    );
    expect(p.batchToken).toBe('phc_k');
    expect(p.sentAt).toBe('2024-01-01T00:00:00Z');
    expect(p.historicalMigration).toBe(true);
    expect(p.events).toEqual([{ event: 'a' }]);
  });

  it('takes a batch-level token alias and accepts a batch without any key', () => {
    expect(parseCaptureBody('{"token":"phc_t","batch":[{"event":"a"}]}', '/batch/').batchToken).toBe('phc_t');
    const p = parseCaptureBody('{"batch":[{"event":"a","properties":{"token":"phc_e"}}]}', '/batch/');
    expect(p.batchToken).toBeUndefined();
    expect(p.events).toHaveLength(1);
  });

  it('keeps an empty batch-level api_key so validation can name it', () => {
    expect(parseCaptureBody('{"api_key":"","batch":[{"event":"e"}]}', '/batch/').batchToken).toBe('');
  });

  it('ignores a non-string sent_at and a non-true historical_migration', () => {
    const p = parseCaptureBody('{"batch":[{"event":"a"}],"sent_at":123,"historical_migration":"yes"}', '/batch/');
    expect(p.sentAt).toBeUndefined();
    expect(p.historicalMigration).toBe(false);
  });

  it('accepts a single event whose event is a string, even an empty one (dropped later)', () => {
    expect(parseCaptureBody('{"event":"x","distinct_id":"d"}', '/capture/').events).toEqual([{ event: 'x', distinct_id: 'd' }]);
    expect(parseCaptureBody('{"event":""}', '/i/v0/e/').events).toEqual([{ event: '' }]);
  });

  // capture-rs: `RawEvent.event` is a `String`, so such an object only matches the untagged
  // `RawEngageEvent` variant (no `event` field): `$identify` on /engage, else the hydration error.
  it('reads a single object whose event is not a string as one without event', () => {
    for (const event of ['null', '5', 'true', '{}', '["a"]']) {
      const text = `{"event":${event},"distinct_id":"d"}`;
      const err = expectHedgerowError(() => parseCaptureBody(text, '/i/v0/e/'), 'HR_NO_EVENT_NAME_ATTR');
      expect(err.status).toBe(400);
      expect(parseCaptureBody(text, '/engage/').events).toEqual([{ event: '$identify', distinct_id: 'd' }]);
    }
  });

  it('refuses invalid JSON with a short detail', () => {
    const err = expectHedgerowError(() => parseCaptureBody(`{"event": ${'x'.repeat(5000)}`, '/e/'), 'HR_PARSE_FAILED');
    expect(err.message.startsWith('failed to parse request: ')).toBe(true);
    expect(err.message.length).toBeLessThanOrEqual(150);
  });

  it('refuses a lone surrogate escape anywhere, key or value, as serde_json does; keeps pairs and escaped backslashes', () => {
    for (const body of [
      '{"event":"a\\ud800","distinct_id":"d"}',
      '{"event":"e","distinct_id":"u\\udfff"}',
      '[{"event":"e","distinct_id":"d","properties":{"k\\uD800":1}}]',
      '{"batch":[{"event":"e","distinct_id":"d","properties":{"deep":[[{"x":"\\udbff"}]]}}]}',
    ]) {
      const err = expectHedgerowError(() => parseCaptureBody(body, '/batch/'), 'HR_PARSE_LONE_SURROGATE');
      expect(err.message).toBe('failed to parse request: lone surrogate in a \\u escape');
    }
    // A pair is one character; `\\ud800` is a backslash and text; both are kept.
    const [paired] = parseCaptureBody('{"event":"\\ud83d\\ude00","distinct_id":"\\\\ud800"}', '/e/').events;
    expect(paired).toEqual({ event: '😀', distinct_id: '\\ud800' });
  });

  it('refuses JSON that is neither an object nor an array, saying what it is', () => {
    const detail = (what: string) => `failed to parse request: the payload is ${what}, not an event, a list of events or a batch`;
    expect(expectHedgerowError(() => parseCaptureBody('"hello"', '/e/'), 'HR_PAYLOAD_IS_STRING').message).toBe(detail('a string'));
    expect(expectHedgerowError(() => parseCaptureBody('null', '/e/'), 'HR_PAYLOAD_IS_LITERAL').message).toBe(detail('null'));
    expect(expectHedgerowError(() => parseCaptureBody('true', '/batch/'), 'HR_PAYLOAD_IS_LITERAL').message).toBe(detail('true'));
    expect(expectHedgerowError(() => parseCaptureBody(' false ', '/batch/'), 'HR_PAYLOAD_IS_LITERAL').message).toBe(detail('false'));
    expect(expectHedgerowError(() => parseCaptureBody('42', '/i/v0/e/'), 'HR_PAYLOAD_IS_NUMBER').message).toBe(detail('a number'));
  });

  it('refuses empty batches', () => {
    expect(expectHedgerowError(() => parseCaptureBody('[]', '/e/'), 'HR_EMPTY_BATCH').status).toBe(400);
    expectHedgerowError(() => parseCaptureBody('{"api_key":"k","batch":[]}', '/batch/'), 'HR_EMPTY_BATCH');
  });

  it('refuses null or non-object events', () => {
    expectHedgerowError(() => parseCaptureBody('[{"event":"a"},null]', '/e/'), 'HR_EVENTS_NOT_OBJECTS');
    expectHedgerowError(() => parseCaptureBody('{"batch":[[]]}', '/batch/'), 'HR_EVENTS_NOT_OBJECTS');
    expectHedgerowError(() => parseCaptureBody('["x"]', '/e/'), 'HR_EVENTS_NOT_OBJECTS');
  });

  it('drops $performance_event events, possibly all of them', () => {
    const some = parseCaptureBody('[{"event":"$performance_event"},{"event":"a"}]', '/e/');
    expect(some.events).toEqual([{ event: 'a' }]);
    expect(some.filteredPerformanceEvents).toBe(1);
    const all = parseCaptureBody('{"event":"$performance_event","token":"t"}', '/e/');
    expect(all.events).toEqual([]);
    expect(all.filteredPerformanceEvents).toBe(1);
  });

  it('finds a project_id hint at the batch level or in the first event', () => {
    expect(parseCaptureBody('{"project_id":"12","batch":[{"event":"a","project_id":3}]}', '/batch/').projectIdHint).toBe(12);
    expect(parseCaptureBody('{"batch":[{"event":"a","project_id":3}]}', '/batch/').projectIdHint).toBe(3);
    expect(parseCaptureBody('[{"event":"a","project_id":"7"},{"event":"b"}]', '/e/').projectIdHint).toBe(7);
    expect(parseCaptureBody('{"event":"a","project_id":"abc"}', '/e/').projectIdHint).toBeUndefined();
    expect(parseCaptureBody('{"event":"a","project_id":-4}', '/e/').projectIdHint).toBeUndefined();
  });
});

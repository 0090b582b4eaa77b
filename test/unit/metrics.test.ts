import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/observability/metrics.js';
import { DurationTally } from '../../src/observability/request-durations.js';
import { metricSample as sample } from '../helpers/http.js';

describe('createMetrics', () => {
  it('renders every hedgerow metric and the default process metrics', async () => {
    const m = createMetrics();
    const { contentType, body } = await m.render();
    expect(contentType).toMatch(/^text\/plain/);
    for (const name of [
      'hedgerow_http_requests_total',
      'hedgerow_events_accepted_total',
      'hedgerow_events_dropped_total',
      'hedgerow_batch_size_events',
      'hedgerow_commit_latency_seconds',
      'hedgerow_request_body_bytes',
      'hedgerow_pool_queue_depth',
      'hedgerow_pool_utilization_ratio',
      'hedgerow_build_info',
      'process_cpu_user_seconds_total',
      'nodejs_eventloop_lag_seconds',
    ]) {
      expect(body).toContain(`# TYPE ${name} `);
    }
    expect(body).toContain('hedgerow_events_dropped_total{reason="performance_event"} 0');
    expect(body).toMatch(/^hedgerow_build_info\{version="\d+\.\d+\.\d+",node_version="\d+\.\d+\.\d+"\} 1$/m);
  });

  it('records what workers report', async () => {
    const m = createMetrics();
    m.recordIngest({ accepted: 7, dropped: { no_distinct_id: 2 }, commitSeconds: 0.003, batchSizes: [4, 5] });
    m.recordIngest({ accepted: 3, dropped: { no_event_name: 1, bogus: 9 } as { no_event_name: number }, batchSizes: [4] });
    m.countRequest('/batch/', 'POST', 200);
    m.countRequest('/batch/', 'POST', 200);
    m.bodyBytes.observe(2000);
    m.setPoolProbe(() => ({ queueDepth: 12, utilization: 0.5 }));
    const { body } = await m.render();
    expect(body).toContain('hedgerow_events_accepted_total 10');
    expect(body).toContain('hedgerow_events_dropped_total{reason="no_distinct_id"} 2');
    expect(body).toContain('hedgerow_events_dropped_total{reason="no_event_name"} 1');
    expect(body).not.toContain('bogus');
    expect(body).toContain('hedgerow_commit_latency_seconds_count 1');
    expect(body).toContain('hedgerow_commit_latency_seconds_bucket{le="0.005"} 1');
    expect(body).toContain('hedgerow_batch_size_events_bucket{le="2"} 0');
    expect(body).toContain('hedgerow_batch_size_events_bucket{le="5"} 3');
    expect(body).toContain('hedgerow_http_requests_total{route="/batch/",method="POST",status="200"} 2');
    m.countRequest('/batch/', 'POST', 200);
    expect((await m.render()).body).toContain('hedgerow_http_requests_total{route="/batch/",method="POST",status="200"} 3');
    expect(body).toContain('hedgerow_request_body_bytes_count 1');
    expect(body).toContain('hedgerow_pool_queue_depth 12');
    expect(body).toContain('hedgerow_pool_utilization_ratio 0.5');
  });

  it('renders request durations as a Prometheus histogram, its own and those added from threads', async () => {
    const m = createMetrics();
    m.requestDurations.observe('flags', 'POST', 0.0004);
    m.requestDurations.observe('flags', 'POST', 0.003);
    const thread = new DurationTally();
    thread.observe('flags', 'POST', 0.0004);
    thread.observe('capture:/e', 'POST', 20);
    m.requestDurations.add(thread.take());
    const { body } = await m.render();
    expect(body).toContain('# TYPE hedgerow_http_request_duration_seconds histogram');
    const flags = { route: 'flags', method: 'POST' };
    expect(sample(body, 'hedgerow_http_request_duration_seconds_bucket', { ...flags, le: '0.00025' })).toBe(0);
    expect(sample(body, 'hedgerow_http_request_duration_seconds_bucket', { ...flags, le: '0.0005' })).toBe(2);
    expect(sample(body, 'hedgerow_http_request_duration_seconds_bucket', { ...flags, le: '0.0025' })).toBe(2);
    expect(sample(body, 'hedgerow_http_request_duration_seconds_bucket', { ...flags, le: '0.005' })).toBe(3);
    expect(sample(body, 'hedgerow_http_request_duration_seconds_bucket', { ...flags, le: '+Inf' })).toBe(3);
    expect(sample(body, 'hedgerow_http_request_duration_seconds_count', flags)).toBe(3);
    expect(sample(body, 'hedgerow_http_request_duration_seconds_sum', flags)).toBeCloseTo(0.0038, 10);
    const capture = { route: 'capture:/e', method: 'POST' };
    expect(sample(body, 'hedgerow_http_request_duration_seconds_bucket', { ...capture, le: '10' })).toBe(0);
    expect(sample(body, 'hedgerow_http_request_duration_seconds_bucket', { ...capture, le: '+Inf' })).toBe(1);
    // Cumulative over scrapes, as any Prometheus histogram.
    m.requestDurations.observe('flags', 'POST', 0.0004);
    expect(sample((await m.render()).body, 'hedgerow_http_request_duration_seconds_count', flags)).toBe(4);
  });

  it('keeps registries separate', async () => {
    const a = createMetrics();
    const b = createMetrics();
    a.eventsAccepted.inc(5);
    expect((await b.render()).body).toContain('hedgerow_events_accepted_total 0');
  });
});

/**
 * `hedgerow_http_request_duration_seconds{route,method}`, a Prometheus histogram rendered from the
 * daemon's DurationTally (request-durations.ts). prom-client's Histogram takes one observation at
 * a time and cannot be given counts already bucketed in the HTTP front-end threads; its registry
 * renders any registered object with a name and a `get()` that returns the samples, so this is
 * such an object (the cast: the registry's type lists only prom-client's own metric classes).
 */
import type { Metric, Registry } from 'prom-client';
import { REQUEST_DURATION_BUCKETS, type DurationTally } from './request-durations.js';

const REQUEST_DURATION_METRIC = 'hedgerow_http_request_duration_seconds';

const HELP = "Time from reading a request's head to its answer, by route pattern and method (the front-end threads' answers included)";

interface Sample {
  metricName: string;
  labels: Record<string, string | number>;
  value: number;
}

export function registerRequestDurations(registry: Registry, tally: DurationTally): void {
  const bucket = `${REQUEST_DURATION_METRIC}_bucket`;
  const metric = {
    name: REQUEST_DURATION_METRIC,
    help: HELP,
    type: 'histogram',
    aggregator: 'sum',
    async get() {
      const values: Sample[] = [];
      for (const [route, method, counts, sum] of tally.all()) {
        let total = 0;
        REQUEST_DURATION_BUCKETS.forEach((le, i) => {
          total += counts[i] ?? 0;
          values.push({ metricName: bucket, labels: { route, method, le }, value: total });
        });
        total += counts[REQUEST_DURATION_BUCKETS.length] ?? 0;
        values.push({ metricName: bucket, labels: { route, method, le: '+Inf' }, value: total });
        values.push({ metricName: `${REQUEST_DURATION_METRIC}_sum`, labels: { route, method }, value: sum });
        values.push({ metricName: `${REQUEST_DURATION_METRIC}_count`, labels: { route, method }, value: total });
      }
      return { name: REQUEST_DURATION_METRIC, help: HELP, type: 'histogram', aggregator: 'sum', values };
    },
  };
  registry.registerMetric(metric as unknown as Metric);
}

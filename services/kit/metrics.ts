import { Hono } from 'hono';
import { Counter, Histogram, type Registry } from 'prom-client';

const LABELS = ['method', 'route', 'status'] as const;
type Label = (typeof LABELS)[number];

/** Records one answered request: method, route pattern, status, seconds until the answer. */
export type HttpMetricsRecorder = (method: string, route: string, status: number, seconds: number) => void;

/**
 * `http_requests_total` and `http_request_duration_seconds` on `registry` (made once: a second
 * call on the same registry shares them), and the function that records a request in both.
 */
export function httpMetricsRecorder(registry: Registry): HttpMetricsRecorder {
  const requests =
    (registry.getSingleMetric('http_requests_total') as Counter<Label> | undefined) ??
    new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered',
      labelNames: LABELS,
      registers: [registry],
    });
  const duration =
    (registry.getSingleMetric('http_request_duration_seconds') as Histogram<Label> | undefined) ??
    new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request duration until the answer is ready',
      labelNames: LABELS,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
  return (method, route, status, seconds) => {
    const labels = { method, route, status: String(status) };
    requests.inc(labels);
    duration.observe(labels, seconds);
  };
}

/** `GET /-/metrics`: the registry in Prometheus text format. */
export function metricsRoute(registry: Registry): Hono {
  return new Hono().get('/-/metrics', async (c) =>
    c.body(await registry.metrics(), 200, { 'content-type': registry.contentType }),
  );
}

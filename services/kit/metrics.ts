import { Hono, type MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import { Counter, Histogram, type Registry } from 'prom-client';

const LABELS = ['method', 'route', 'status'] as const;

/**
 * Counts requests and times them by method, route pattern (`/orders/:id`, never the raw path,
 * so label cardinality stays bounded) and status. Safe to install twice on one registry.
 */
export function httpMetrics(registry: Registry): MiddlewareHandler {
  const requests =
    (registry.getSingleMetric('http_requests_total') as Counter<(typeof LABELS)[number]> | undefined) ??
    new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered',
      labelNames: LABELS,
      registers: [registry],
    });
  const duration =
    (registry.getSingleMetric('http_request_duration_seconds') as
      | Histogram<(typeof LABELS)[number]>
      | undefined) ??
    new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request duration until the answer is ready',
      labelNames: LABELS,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
  return async (c, next) => {
    const started = performance.now();
    await next();
    const labels = { method: c.req.method, route: routePath(c, -1), status: String(c.res.status) };
    requests.inc(labels);
    duration.observe(labels, (performance.now() - started) / 1000);
  };
}

/** `GET /-/metrics`: the registry in Prometheus text format. */
export function metricsRoute(registry: Registry): Hono {
  return new Hono().get('/-/metrics', async (c) =>
    c.body(await registry.metrics(), 200, { 'content-type': registry.contentType }),
  );
}

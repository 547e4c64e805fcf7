/** Rönd's status routes (any method, as its router registers them), and metrics. */
import { Hono } from 'hono';
import type { Registry } from 'prom-client';

export interface StatusOptions {
  readonly name: string;
  readonly version: string;
  readonly ready: () => Promise<boolean>;
  /** `EXPOSE_METRICS`: without it, the metrics paths are ordinary (unmatched) requests. */
  readonly registry: Registry | undefined;
}

export function statusRoutes({ name, version, ready, registry }: StatusOptions): Hono {
  const body = (status: 'OK' | 'KO') => ({ status, name, version });
  const routes = new Hono()
    .all('/-/rbac-healthz', (c) => c.json(body('OK')))
    .all('/-/rbac-check-up', (c) => c.json(body('OK')))
    .all('/-/rbac-ready', async (c) => {
      const ok = await ready().catch(() => false);
      return ok ? c.json(body('OK')) : c.json(body('KO'), 503);
    });
  if (!registry) return routes;
  const metrics = async () =>
    new Response(await registry.metrics(), { headers: { 'content-type': registry.contentType } });
  return routes.get('/-/rbac-metrics', metrics).get('/-/rond/metrics', metrics);
}

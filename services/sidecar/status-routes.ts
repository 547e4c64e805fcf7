/** Rönd's status routes (any method, as its router registers them), and metrics. */
import { Hono } from 'hono';
import type { Registry } from 'prom-client';

export interface StatusOptions {
  readonly name: string;
  readonly version: string;
  readonly ready: () => Promise<boolean>;
  readonly registry: Registry;
}

export function statusRoutes({ name, version, ready, registry }: StatusOptions): Hono {
  const body = (status: 'OK' | 'KO') => ({ status, name, version });
  const metrics = async () =>
    new Response(await registry.metrics(), { headers: { 'content-type': registry.contentType } });
  return new Hono()
    .all('/-/rbac-healthz', (c) => c.json(body('OK')))
    .all('/-/rbac-check-up', (c) => c.json(body('OK')))
    .all('/-/rbac-ready', async (c) => {
      const ok = await ready().catch(() => false);
      return ok ? c.json(body('OK')) : c.json(body('KO'), 503);
    })
    .get('/-/rbac-metrics', metrics)
    .get('/-/rond/metrics', metrics);
}

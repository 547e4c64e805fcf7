/** Rönd's status routes: `/-/rbac-healthz`, `/-/rbac-ready`, `/-/rbac-check-up`, and metrics. */
import { Hono } from 'hono';
import type { Registry } from 'prom-client';

export interface StatusOptions {
  readonly name: string;
  readonly version: string;
  readonly ready: () => Promise<boolean>;
  readonly registry: Registry;
}

/** Paths the sidecar answers itself instead of protecting and forwarding them. */
export const STATUS_PATHS = [
  '/-/rbac-healthz',
  '/-/rbac-ready',
  '/-/rbac-check-up',
  '/-/rbac-metrics',
  '/-/rond/metrics',
];

export function statusRoutes({ name, version, ready, registry }: StatusOptions): Hono {
  const body = (status: 'OK' | 'KO') => ({ status, name, version });
  const metrics = async () =>
    new Response(await registry.metrics(), { headers: { 'content-type': registry.contentType } });
  return new Hono()
    .get('/-/rbac-healthz', (c) => c.json(body('OK')))
    .get('/-/rbac-check-up', (c) => c.json(body('OK')))
    .get('/-/rbac-ready', async (c) => {
      const ok = await ready().catch(() => false);
      return ok ? c.json(body('OK')) : c.json(body('KO'), 503);
    })
    .get('/-/rbac-metrics', metrics)
    .get('/-/rond/metrics', metrics);
}

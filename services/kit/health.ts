import { Hono } from 'hono';
import type { PackageInfo } from './package-info.ts';

export interface HealthOptions extends PackageInfo {
  /** Readiness probe; `false` or a throw answers 503. Default: always ready. */
  readonly ready?: () => boolean | Promise<boolean>;
}

export interface HealthBody extends PackageInfo {
  readonly status: 'OK' | 'KO';
}

/**
 * `GET /-/healthz` (200 while the process serves) and `GET /-/ready` (200, or 503 with
 * `status: "KO"` while `ready()` says no). Mount with `app.route('/', healthRoutes(...))`.
 */
export function healthRoutes({ name, version, ready }: HealthOptions): Hono {
  const ok: HealthBody = { name, version, status: 'OK' };
  const ko: HealthBody = { name, version, status: 'KO' };
  return new Hono()
    .get('/-/healthz', (c) => c.json(ok))
    .get('/-/ready', async (c) => {
      const isReady = ready
        ? await Promise.resolve()
            .then(ready)
            .catch(() => false)
        : true;
      return isReady ? c.json(ok) : c.json(ko, 503);
    });
}

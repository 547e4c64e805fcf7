import { Hono } from 'hono';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { errorHandler, notFoundHandler } from './error-handler.ts';
import { methodNotAllowed } from './method-not-allowed.ts';
import { metricsRoute } from './metrics.ts';
import { observeRequests } from './observe-requests.ts';

export interface ServiceAppOptions {
  readonly logger: Logger;
  readonly registry: Registry;
  /** Health routes to mount at the root, usually `healthRoutes(...)`. */
  readonly health: Hono;
  /** `/things` and `/things/` are one route (the reference documents both forms). Default false. */
  readonly ignoreTrailingSlash?: boolean;
}

/**
 * A Hono app with everything a service of this project shares: request logging with request ids,
 * HTTP metrics and `GET /-/metrics`, the health routes, and JSON errors (whatever is thrown: a
 * non-Error value too; 405 with `Allow` for a known path asked with another method). Add the
 * service's own routes to the result.
 */
export function createServiceApp({ logger, registry, health, ignoreTrailingSlash }: ServiceAppOptions): Hono {
  const app = new Hono({ strict: !ignoreTrailingSlash });
  app.use(observeRequests({ logger, registry, onError: errorHandler }));
  app.route('/', health);
  app.route('/', metricsRoute(registry));
  app.onError(errorHandler);
  app.notFound(methodNotAllowed(app, notFoundHandler));
  return app;
}

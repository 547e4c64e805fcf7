import type { MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { createServiceApp, healthRoutes, limitBody, type PackageInfo } from '../kit/index.ts';
import { checkUpRoute } from './check-up.ts';
import { openApiDocument } from './openapi.ts';
import type { Providers } from './providers.ts';
import { providerRoutes } from './routes.ts';

/** A provider body is a few kB (a CA certificate the largest part): anything far beyond is refused unread. */
export const MAX_BODY_BYTES = 1024 * 1024;

export interface ProviderAppOptions {
  readonly providers: Providers;
  /** The access check in front of every provider route. */
  readonly access: MiddlewareHandler;
  readonly defaultConsoleVersion: string;
  readonly ready: () => Promise<boolean>;
  /** The dependencies `GET /-/check-up` asks, by name. */
  readonly dependencies: Readonly<Record<string, () => Promise<unknown>>>;
  readonly info: PackageInfo;
  readonly logger: Logger;
  readonly registry: Registry;
}

/** The provider API with the kit's logging, metrics, health routes and JSON errors. */
export function createProviderApp(options: ProviderAppOptions) {
  const { info, logger, registry, ready } = options;
  const app = createServiceApp({ logger, registry, health: healthRoutes({ ...info, ready }) });
  const document = openApiDocument(info);
  app.route('/', checkUpRoute({ info, dependencies: options.dependencies }));
  app.get('/documentation/json', (c) => c.json(document));
  app.use('/api/backend/tenants/*', options.access);
  app.use('/api/backend/tenants/*', limitBody(MAX_BODY_BYTES));
  app.route('/', providerRoutes(options.providers, options.defaultConsoleVersion));
  return app;
}

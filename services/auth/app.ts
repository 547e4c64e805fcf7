import type { Hono } from 'hono';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { createServiceApp, errorBody, healthRoutes, limitBody, type PackageInfo } from '../kit/index.ts';
import { Auth0Api } from './auth0-api.ts';
import type { AuthConfig } from './config.ts';
import type { SessionSettings } from './login-routes.ts';
import { loginRoutes } from './login-routes.ts';
import { ManagementApi } from './management-api.ts';
import { openApiRoute } from './openapi.ts';
import type { RedisClient } from './redis.ts';
import { sessionRoutes } from './session-routes.ts';
import { SessionStore } from './store.ts';
import { userRoutes } from './user-routes.ts';
import { userInfoFromClaims } from './userinfo.ts';

export interface AuthAppOptions {
  readonly config: AuthConfig;
  readonly redis: RedisClient;
  readonly settings: SessionSettings;
  readonly logoutWithClientId: boolean;
  readonly logger: Logger;
  readonly registry: Registry;
  readonly packageInfo: PackageInfo;
}

/** Login bodies are a few fields; anything bigger is refused before it is read. */
const MAX_BODY_BYTES = 64 * 1024;

/** The authentication service's HTTP app (auth0-client 3.8's routes). */
export function createAuthApp(options: AuthAppOptions): Hono {
  const { config, redis, settings, logoutWithClientId } = options;
  const store = new SessionStore(redis, settings.sessionSeconds, (claims) =>
    JSON.stringify(userInfoFromClaims(claims, config.customClaimsNamespaces)),
  );
  const auth0 = new Auth0Api();
  const app = createServiceApp({
    logger: options.logger,
    registry: options.registry,
    health: healthRoutes({ ...options.packageInfo, ready: () => redis.status === 'ready' }),
  });
  // Redis is the one dependency that must answer for the service to work.
  app.get('/-/check-up', async (c) => {
    const answers = await redis.ping().then(
      () => true,
      () => false,
    );
    const body = { ...options.packageInfo, status: answers ? 'OK' : 'KO' };
    return answers ? c.json(body) : c.json({ ...errorBody(503, 'Redis does not answer'), ...body }, 503);
  });
  app.route('/', openApiRoute(options.packageInfo));
  // Only where a body can come: asked on a GET, it would build a full Fetch Request per request.
  app.on(['POST', 'PUT', 'PATCH', 'DELETE'], '*', limitBody(MAX_BODY_BYTES));
  // The client routes choose their client by the client-type header (client-type.ts).
  app.route('/', loginRoutes({ config, store, auth0, settings }));
  app.route('/', sessionRoutes({ config, store, auth0, settings, logoutWithClientId }));
  // The management routes act as the management client, whatever the client-type header says.
  app.route(
    '/',
    userRoutes({ management: config.management, api: new ManagementApi(config.management), store }),
  );
  return app;
}

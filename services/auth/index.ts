import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Registry } from 'prom-client';
import { createServiceLogger, EnvError, readPackageInfo, serve, stopOnSignal } from '../kit/index.ts';
import type { ServiceEntry } from '../registry.ts';
import { createAuthApp } from './app.ts';
import { authConfigJsonSchema, ConfigError, loadAuthConfig } from './config.ts';
import { parseAuthEnv } from './env.ts';
import { createRedis } from './redis.ts';

export { type AuthAppOptions, createAuthApp } from './app.ts';
export {
  type AuthConfig,
  authConfigJsonSchema,
  ConfigError,
  loadAuthConfig,
  parseAuthConfig,
} from './config.ts';
export { type AuthEnv, parseAuthEnv } from './env.ts';
export { createRedis, type RedisClient } from './redis.ts';

async function run(
  variables: Readonly<Record<string, string | undefined>>,
  io: Parameters<ServiceEntry['run']>[1],
) {
  let env: ReturnType<typeof parseAuthEnv>;
  let config: Awaited<ReturnType<typeof loadAuthConfig>>;
  try {
    env = parseAuthEnv(variables);
    config = await loadAuthConfig(env.SERVICE_CONFIG_PATH, env.SERVICE_CONFIG_FILE_NAME);
  } catch (error) {
    if (error instanceof EnvError || error instanceof ConfigError) {
      io.err(`streamfold service auth: ${error.message}`);
      return 1;
    }
    throw error;
  }
  const logger = createServiceLogger({ service: 'auth', level: env.LOG_LEVEL });
  const redis = createRedis(env);
  let redisDown = false;
  // ioredis reports every failed reconnection: log the change of state, not each attempt.
  redis.on('error', (error: Error) => {
    if (!redisDown) logger.warn({ error: error.message }, 'Redis unreachable, reconnecting');
    redisDown = true;
  });
  redis.on('ready', () => {
    if (redisDown) logger.info('Redis reachable again');
    redisDown = false;
  });
  const app = createAuthApp({
    config,
    redis,
    settings: {
      sessionSeconds: env.SESSION_DURATION_SECONDS,
      sessionScope: env.SESSION_SCOPE,
      originalProtocolHeader: env.ORIGINAL_PROTOCOL_HEADER,
    },
    logoutWithClientId: env.AUTH0_LOGOUT_CLIENT_ID_ENABLED,
    logger,
    registry: new Registry(),
    packageInfo: {
      ...readPackageInfo(dirname(fileURLToPath(import.meta.url))),
      ...(env.SERVICE_VERSION === undefined ? {} : { version: env.SERVICE_VERSION }),
    },
  });
  const server = await serve(app, {
    port: env.HTTP_PORT,
    logger,
    delayShutdownSeconds: env.DELAY_SHUTDOWN_SECONDS,
    handleSignals: false,
    onShutdown: async () => {
      await redis.quit().catch(() => redis.disconnect());
    },
  });
  return stopOnSignal(() => server.close(), logger);
}

export const service: ServiceEntry = {
  summary: 'authentication against Auth0 with sessions in Redis (auth0-client 3.8)',
  run,
  configSchema: authConfigJsonSchema,
};

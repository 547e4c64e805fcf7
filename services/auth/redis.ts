import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { AuthEnv } from './env.ts';

export type RedisClient = Redis | Cluster;

/** TLS options from `REDIS_TLS*`, or undefined when TLS is off. */
export function redisTls(env: AuthEnv): ConnectionOptions | undefined {
  if (!env.REDIS_TLS) return undefined;
  return {
    ca: env.REDIS_TLS_CA_CERT_PATH ? readFileSync(env.REDIS_TLS_CA_CERT_PATH) : undefined,
    cert: env.REDIS_TLS_CERT_PATH ? readFileSync(env.REDIS_TLS_CERT_PATH) : undefined,
    key: env.REDIS_TLS_KEY_PATH ? readFileSync(env.REDIS_TLS_KEY_PATH) : undefined,
    rejectUnauthorized: !env.REDIS_TLS_SKIP_VERIFY,
  };
}

/**
 * The Redis client the environment describes: one host, several hosts (a Redis Cluster, as the Go
 * reference's universal client does with several addresses) or sentinel with a master name; TLS
 * in each mode, and the ACL username/password for the data nodes (the sentinels themselves are
 * asked without credentials: the reference supports credentials in standalone mode only).
 *
 * Commands fail at once while Redis is unreachable (no offline queue): a request then answers 503
 * instead of hanging, and ioredis keeps reconnecting in the background, so the service recovers by
 * itself.
 */
export function createRedis(env: AuthEnv): RedisClient {
  const tls = redisTls(env);
  const common: RedisOptions = {
    username: env.REDIS_USERNAME,
    password: env.REDIS_PASSWORD,
    tls,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // Commands issued in the same tick by concurrent requests leave in one socket write.
    enableAutoPipelining: true,
    // Bounded so reconnecting after an outage takes a second at most.
    retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
  };
  if (env.REDIS_MODE === 'sentinel') {
    return new Redis({
      ...common,
      sentinels: env.REDIS_HOSTS,
      name: env.REDIS_MASTER_NAME,
      enableTLSForSentinelMode: tls !== undefined,
      sentinelTLS: tls,
      sentinelRetryStrategy: (attempt) => Math.min(attempt * 100, 1000),
    });
  }
  const [first, ...others] = env.REDIS_HOSTS;
  if (others.length === 0) return new Redis({ ...common, host: first!.host, port: first!.port });
  return new Cluster(env.REDIS_HOSTS, {
    enableOfflineQueue: false,
    enableAutoPipelining: true,
    redisOptions: common,
    clusterRetryStrategy: (attempt) => Math.min(attempt * 100, 1000),
  });
}

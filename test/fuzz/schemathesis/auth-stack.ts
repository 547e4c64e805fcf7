/**
 * The authentication service as `streamfold service auth` with its real dependencies: a Redis
 * and a fake Auth0 (a real local HTTP server) with one user, `carol`, in the groups the provider
 * API asks for. `login()` answers a fresh `sid` cookie of hers.
 */
import * as assert from 'node:assert/strict';
import { CONFIG_FILE_NAME, configDir } from '../../support/config-dir.ts';
import { type FakeAuth0, startFakeAuth0, webClientConfig } from '../../support/fake-auth0.ts';
import { type RedisFixture, startRedis } from '../../support/redis.ts';
import { type RunningService, startStreamfold } from './harness.ts';

const NAMESPACE = 'https://streamfold.test/app_metadata';

export interface AuthStack {
  readonly service: RunningService;
  /** `sid=…` of a new website session of carol's. */
  login(): Promise<string>;
  stop(): Promise<void>;
}

export async function startAuthStack(): Promise<AuthStack> {
  const redis: RedisFixture = await startRedis();
  const auth0: FakeAuth0 = await startFakeAuth0({ clients: { 'web-id': 'web-secret', 'm-id': 'm-secret' } });
  auth0.addUser({
    sub: 'auth0|carol',
    username: 'carol',
    password: 'pw',
    connection: 'db',
    claims: { [NAMESPACE]: { groups: ['dev', 'access_token_manager'] } },
  });
  const dir = configDir('fuzz-auth-', {
    clients: {
      web: webClientConfig(auth0.url, {
        scopes: ['website', 'offline_access'],
        supportedConnections: ['db'],
        defaultConnection: 'db',
      }),
    },
    customClaimsNamespaces: [NAMESPACE],
    managementClient: {
      auth0Url: auth0.url,
      clientId: 'm-id',
      clientSecret: 'm-secret',
      supportedConnectionsMap: { db: { connectionId: 'con_db' } },
      defaultManagementConnectionName: 'db',
    },
  });
  const service = await startStreamfold(['service', 'auth'], {
    SERVICE_CONFIG_PATH: dir,
    SERVICE_CONFIG_FILE_NAME: CONFIG_FILE_NAME,
    REDIS_HOSTS: `127.0.0.1:${redis.port}`,
  });
  return {
    service,
    login: async () => {
      const login = await fetch(`${service.base}/oauth/token`, {
        method: 'POST',
        headers: { 'client-type': 'web', 'content-type': 'application/json', 'x-forwarded-proto': 'http' },
        body: JSON.stringify({ grant_type: 'password', username: 'carol', password: 'pw' }),
      });
      assert.equal(login.status, 200);
      return login.headers.get('set-cookie')!.split(';')[0]!;
    },
    stop: async () => {
      await service.stop();
      await auth0.close();
      await redis.stop();
    },
  };
}

/**
 * Schemathesis against the authentication service (`streamfold service auth`) with its real
 * dependencies: a Redis and a fake Auth0 (a real local HTTP server). Requests carry a session
 * cookie of a logged-in user, so the session routes are reached past their 401.
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FakeAuth0, startFakeAuth0 } from '../../support/fake-auth0.ts';
import { type RedisFixture, startRedis } from '../../support/redis.ts';
import { test } from '../../support/suite.ts';
import { type RunningService, schemathesis, startStreamfold } from './harness.ts';

let redis: RedisFixture;
let auth0: FakeAuth0;
let service: RunningService;

test.before(async () => {
  redis = await startRedis();
  auth0 = await startFakeAuth0({ clients: { 'web-id': 'web-secret', 'm-id': 'm-secret' } });
  auth0.addUser({ sub: 'auth0|ada', username: 'ada', password: 'pw', connection: 'db' });
  const dir = mkdtempSync(join(tmpdir(), 'fuzz-auth-'));
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({
      clients: {
        web: {
          auth0Url: auth0.url,
          clientId: 'web-id',
          clientSecret: 'web-secret',
          redirectUrl: 'http://127.0.0.1/callback',
          scopes: ['website', 'offline_access'],
          supportedConnections: ['db'],
          defaultConnection: 'db',
        },
      },
      managementClient: {
        auth0Url: auth0.url,
        clientId: 'm-id',
        clientSecret: 'm-secret',
        supportedConnectionsMap: { db: { connectionId: 'con_db' } },
        defaultManagementConnectionName: 'db',
      },
    }),
  );
  service = await startStreamfold(['service', 'auth'], {
    SERVICE_CONFIG_PATH: dir,
    SERVICE_CONFIG_FILE_NAME: 'config.json',
    REDIS_HOSTS: `127.0.0.1:${redis.port}`,
  });
});

test.after(async () => {
  await service?.stop();
  await auth0?.close();
  await redis?.stop();
});

test('auth: every generated request passes every check', async () => {
  const login = await fetch(`${service.base}/oauth/token`, {
    method: 'POST',
    headers: { 'client-type': 'web', 'content-type': 'application/json', 'x-forwarded-proto': 'http' },
    body: JSON.stringify({ grant_type: 'password', username: 'ada', password: 'pw' }),
  });
  assert.equal(login.status, 200);
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  const { requests } = await schemathesis(`${service.base}/documentation/json`, service.base, [
    '--header',
    `Cookie: ${cookie}`,
    '--header',
    'client-type: web',
  ]).catch((error: Error) => {
    throw new Error(`${error.message}\n--- service output ---\n${service.output()}`);
  });
  assert.ok(requests > 0, 'no request was generated');
});

test.run();

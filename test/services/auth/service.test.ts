import * as assert from 'node:assert/strict';
import { SERVICES } from '../../../services/registry.ts';
import { CONFIG_FILE_NAME, configDir } from '../../support/config-dir.ts';
import { startFakeAuth0, webClientConfig } from '../../support/fake-auth0.ts';
import { freePorts } from '../../support/process.ts';
import { startRedis } from '../../support/redis.ts';
import { test } from '../../support/suite.ts';

function io() {
  const lines = { out: [] as string[], err: [] as string[] };
  return { lines, io: { out: (l: string) => lines.out.push(l), err: (l: string) => lines.err.push(l) } };
}

test('`streamfold service auth` is registered and publishes its configuration schema', async () => {
  const service = await SERVICES.auth!();
  assert.match(service.summary, /Auth0/);
  assert.equal((service.configSchema!() as { type: string }).type, 'object');
});

test('a bad configuration file stops the start with exit code 1 and names the problem, not the secret', async () => {
  const dir = configDir('auth-service-', {
    clients: {
      cms: {
        auth0Url: 'https://t.test',
        clientId: 'id',
        clientSecret: 'do-not-print',
        redirectUrl: 'https://app.test/cb',
        scopes: [],
        supportedConnections: ['db'],
        defaultConnection: 'other',
      },
    },
    managementClient: { auth0Url: 'https://t.test', clientId: 'm', clientSecret: 'm-secret' },
  });
  const { lines, io: sink } = io();
  const service = await SERVICES.auth!();
  const code = await service.run(
    { SERVICE_CONFIG_PATH: dir, SERVICE_CONFIG_FILE_NAME: CONFIG_FILE_NAME, REDIS_HOSTS: '127.0.0.1' },
    sink,
  );
  assert.equal(code, 1);
  assert.match(lines.err.join('\n'), /clients\.cms\.defaultConnection: must be one of supportedConnections/);
  assert.ok(!lines.err.join('\n').includes('do-not-print'));
});

test('the service starts from its environment (SERVICE_VERSION in the status routes), logs in by password, and stops on SIGTERM', async () => {
  const redis = await startRedis();
  const auth0 = await startFakeAuth0({ clients: { 'web-id': 'web-secret' } });
  auth0.addUser({ sub: 'auth0|ada', username: 'ada', password: 'pw', connection: 'db' });
  const dir = configDir('auth-service-', {
    clients: { web: webClientConfig(auth0.url, { scopes: ['website'] }) },
    managementClient: { auth0Url: auth0.url, clientId: 'm', clientSecret: 'm-secret' },
  });
  const [port] = await freePorts(1);
  const service = await SERVICES.auth!();
  const { io: sink } = io();
  const stopped = service.run(
    {
      HTTP_PORT: String(port),
      SERVICE_CONFIG_PATH: dir,
      SERVICE_CONFIG_FILE_NAME: CONFIG_FILE_NAME,
      REDIS_HOSTS: `127.0.0.1:${redis.port}`,
      DELAY_SHUTDOWN_SECONDS: '0',
      LOG_LEVEL: 'silent',
      SERVICE_VERSION: '3.8.0-test',
    },
    sink,
  );
  try {
    const base = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 20_000;
    while (
      (await fetch(`${base}/-/ready`).then(
        (r) => r.status,
        () => 0,
      )) !== 200
    ) {
      assert.ok(Date.now() < deadline, 'not ready within 20 s');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const health = (await (await fetch(`${base}/-/healthz`)).json()) as { version: string };
    assert.equal(health.version, '3.8.0-test');
    const login = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'client-type': 'web', 'content-type': 'application/json', 'x-forwarded-proto': 'http' },
      body: JSON.stringify({ grant_type: 'password', username: 'ada', password: 'pw' }),
    });
    assert.equal(login.status, 200);
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const me = await fetch(`${base}/userinfo`, { headers: { 'client-type': 'web', cookie } });
    assert.deepEqual(await me.json(), { sub: 'auth0|ada', userId: 'auth0|ada', groups: [] });
  } finally {
    process.emit('SIGTERM', 'SIGTERM');
    assert.equal(await stopped, 0);
    await auth0.close();
    await redis.stop();
  }
});

test.run();

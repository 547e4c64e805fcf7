import * as assert from 'node:assert/strict';
import { type RedisFixture, startRedis } from '../../support/redis.ts';
import { suite } from '../../support/suite.ts';
import { startTcpProxy, type TcpProxy } from '../../support/tcp-proxy.ts';
import { call, type Harness, jsonOf, sidOf, startHarness } from './harness.ts';

const test = suite<{ redisServer: RedisFixture; proxy: TcpProxy; h: Harness }>('auth with Redis down');

test.before(async (context) => {
  context.redisServer = await startRedis();
  context.proxy = await startTcpProxy(context.redisServer.port);
  context.h = await startHarness({
    redisPort: context.redisServer.port,
    serviceRedisPort: context.proxy.port,
    sessionSeconds: 1,
  });
});
test.after(async ({ h, proxy, redisServer }) => {
  await h?.close();
  await proxy?.close();
  await redisServer?.stop();
});

const ada = { grant_type: 'password', username: 'ada', password: 'lovelace' };

/** Polls `probe` until it holds; the bound holds with both cores busy. */
async function eventually(what: string, probe: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`not within ${timeoutMs} ms: ${what}`);
}

test('a session ends with SESSION_DURATION_SECONDS: Max-Age and the Redis key expire together', async ({
  h,
}) => {
  const response = await call(h.app, '/oauth/token', { form: ada });
  assert.match(response.headers.get('set-cookie')!, /Max-Age=1;/);
  const cookie = `sid=${sidOf(response)}`;
  assert.equal((await call(h.app, '/userinfo', { headers: { cookie } })).status, 200);
  await eventually('the session expires', async () => {
    return (await call(h.app, '/userinfo', { headers: { cookie } })).status === 401;
  });
});

test('Redis unreachable: 503 JSON and /-/ready KO; Redis back: the service recovers by itself', async ({
  h,
  proxy,
}) => {
  await proxy.cut();
  await eventually('the service notices', async () => (await call(h.app, '/-/ready')).status === 503);
  const down = await call(h.app, '/oauth/token', { form: ada });
  assert.equal(down.status, 503);
  assert.deepEqual(await jsonOf(down), {
    statusCode: 503,
    error: 'Service Unavailable',
    message: 'the session store (Redis) is unavailable',
  });
  assert.equal((await call(h.app, '/userinfo', { headers: { cookie: 'sid=x' } })).status, 503);
  assert.equal((await call(h.app, '/authorize')).status, 503);
  const checkUp = await call(h.app, '/-/check-up');
  assert.equal(checkUp.status, 503);
  assert.equal((await jsonOf(checkUp)).status, 'KO');

  await proxy.restore();
  await eventually('the service reconnects', async () => (await call(h.app, '/-/ready')).status === 200);
  const back = await call(h.app, '/oauth/token', { form: ada });
  assert.equal(back.status, 200);
  assert.equal((await call(h.app, '/userinfo', { headers: { cookie: `sid=${sidOf(back)}` } })).status, 200);
});

test.run();

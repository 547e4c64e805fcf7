/**
 * The provider API behind our real authentication service (services/auth with the fake Auth0 and
 * a Redis), logged in as a user would be: a `sid` cookie from a `website` password login and a
 * bearer token from a token login. The recording stand-in suites (api, access) keep what this one
 * cannot make the real service do on demand: answer 500 or non-JSON, and count its requests.
 */
import * as assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { type RunningServer, serve } from '../../../services/kit/index.ts';
import { readConfig } from '../../../services/provider/config.ts';
import { startProviderService } from '../../../services/provider/start.ts';
import { type MongoFixture, startMongo } from '../../support/mongo.ts';
import { type RedisFixture, startRedis } from '../../support/redis.ts';
import { test } from '../../support/suite.ts';
import { startTcpProxy, type TcpProxy } from '../../support/tcp-proxy.ts';
import { type Harness, jsonOf, NAMESPACE, sidOf, startHarness, call as toAuth } from '../auth/harness.ts';
import { CREDENTIALS, provider, SECRET_MARK } from './bodies.ts';
import { capturingLogger } from './capturing-logger.ts';

const MANAGER = { username: 'carol', password: 'manager-pw' };
const DEVELOPER = { username: 'ada', password: 'lovelace' };

let redis: RedisFixture;
let redisGate: TcpProxy;
let auth: Harness;
let authServer: RunningServer;
let mongo: MongoFixture;
let server: RunningServer;
let providersUrl: string;
/** The provider service's log lines, and every session value and secret sent, to grep at the end. */
const logLines: string[] = [];
const sent: string[] = [];

async function cookieOf(user: { username: string; password: string }): Promise<string> {
  const login = await toAuth(auth.app, '/oauth/token', {
    headers: { 'x-forwarded-proto': 'http' },
    form: { grant_type: 'password', ...user },
  });
  assert.equal(login.status, 200);
  sent.push(sidOf(login));
  return `sid=${sidOf(login)}`;
}

async function tokenOf(user: { username: string; password: string }): Promise<string> {
  const login = await toAuth(auth.app, '/oauth/token', {
    clientType: 'api',
    form: { grant_type: 'password', ...user },
  });
  assert.equal(login.status, 200);
  const token = String((await jsonOf(login)).accessToken);
  sent.push(token);
  return token;
}

function request(path: string, headers: Record<string, string>, method = 'GET', body?: unknown) {
  return fetch(`${providersUrl}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

test.before(async () => {
  [redis, mongo] = await Promise.all([startRedis(), startMongo()]);
  redisGate = await startTcpProxy(redis.port);
  auth = await startHarness({ redisPort: redis.port, serviceRedisPort: redisGate.port });
  auth.auth0.addUser({
    sub: 'auth0|carol',
    ...MANAGER,
    connection: 'db',
    claims: { [NAMESPACE]: { groups: ['dev', 'access_token_manager'] } },
  });
  authServer = await serve(auth.app, { hostname: '127.0.0.1', handleSignals: false });
  const config = readConfig({
    HTTP_PORT: '0',
    MONGODB_URL: mongo.url,
    PROVIDERS_DATABASE: mongo.database,
    PROVIDERS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    AUTH_SERVICE_URL: `http://127.0.0.1:${authServer.port}`,
    // Every request asks the auth service, so a logout or an outage shows at once.
    AUTH_CACHE_SECONDS: '0',
    AUTH_CLIENT_TYPE: 'web',
  });
  server = await startProviderService(config, {
    logger: capturingLogger(logLines),
    handleSignals: false,
  });
  providersUrl = `http://127.0.0.1:${server.port}/api/backend/tenants/acme/providers`;
});

test.after(async () => {
  await server?.close();
  await authServer?.close();
  await auth?.close();
  await redisGate?.close();
  await Promise.all([redis?.stop(), mongo?.stop()]);
});

test('a member logged in with the website scope: create, list, read, patch, delete with the sid cookie', async () => {
  // No client-type header from the caller: AUTH_CLIENT_TYPE names the client for /userinfo.
  const session = { cookie: await cookieOf(MANAGER) };
  const created = await request(
    '',
    session,
    'POST',
    provider('gl', 'gitlab', { credentials: CREDENTIALS.token }),
  );
  assert.equal(created.status, 201);
  const listed = await request('', session);
  assert.equal(listed.status, 200);
  assert.deepEqual(
    ((await listed.json()) as { providerId: string }[]).map((p) => p.providerId),
    ['gl'],
  );
  assert.equal((await request('/gl', session)).status, 200);
  const patched = await request('/gl', session, 'PATCH', { label: 'renamed' });
  assert.equal(patched.status, 200);
  assert.equal(((await patched.json()) as { label: string }).label, 'renamed');
  assert.equal((await request('/gl', session, 'DELETE')).status, 204);
  assert.equal((await request('/gl', session)).status, 404);
});

test('a member with a bearer token of another client type (forwarded as the caller sent it)', async () => {
  const bearer = { authorization: `Bearer ${await tokenOf(MANAGER)}`, 'client-type': 'api' };
  assert.equal((await request('', bearer, 'POST', provider('gh', 'github'))).status, 201);
  assert.equal((await request('/gh', bearer, 'PATCH', { label: 'by token' })).status, 200);
  assert.equal((await request('', bearer)).status, 200);
  assert.equal((await request('/gh', bearer, 'DELETE')).status, 204);
});

test('a user outside access_token_manager: 403 on every route, by cookie and by token', async () => {
  const sessions: Record<string, string>[] = [
    { cookie: await cookieOf(DEVELOPER) },
    { authorization: `Bearer ${await tokenOf(DEVELOPER)}`, 'client-type': 'api' },
  ];
  const manager = { cookie: await cookieOf(MANAGER) };
  assert.equal((await request('', manager, 'POST', provider('kept'))).status, 201);
  for (const session of sessions) {
    const answers = [
      await request('', session, 'POST', provider('nope')),
      await request('', session),
      await request('/kept', session),
      await request('/kept', session, 'PATCH', { label: 'x' }),
      await request('/kept', session, 'DELETE'),
    ];
    assert.deepEqual(
      answers.map((a) => a.status),
      [403, 403, 403, 403, 403],
    );
    assert.match(((await answers[0]!.json()) as { message: string }).message, /access_token_manager/);
  }
  assert.equal(
    ((await (await request('/kept', manager)).json()) as { label: string }).label,
    'label of kept',
  );
});

test('401 without a session, with an unknown sid, after logout and for an unknown client type', async () => {
  assert.equal((await request('', {})).status, 401);
  assert.equal((await request('', { cookie: 'sid=forged' })).status, 401);
  const cookie = await cookieOf(MANAGER);
  assert.equal((await request('', { cookie })).status, 200);
  const logout = await toAuth(auth.app, '/logout', { headers: { cookie } });
  assert.equal(logout.status, 302);
  assert.equal((await request('', { cookie })).status, 401, 'the session ended at the auth service');
  const fresh = await cookieOf(MANAGER);
  assert.equal((await request('', { cookie: fresh, 'client-type': 'unknown' })).status, 401);
});

test('the auth service failing (its Redis cut) and then stopped: 503 and check-up KO; back with Redis: 200', async () => {
  const cookie = await cookieOf(MANAGER);
  const checkUp = () =>
    fetch(`http://127.0.0.1:${server.port}/-/check-up`).then(async (r) => ({
      status: r.status,
      checks: ((await r.json()) as { checks: unknown }).checks,
    }));
  assert.deepEqual(await checkUp(), { status: 200, checks: { mongodb: 'OK', authService: 'OK' } });
  await redisGate.cut();
  try {
    const answer = await request('', { cookie });
    assert.equal(answer.status, 503);
    assert.equal(((await answer.json()) as { statusCode: number }).statusCode, 503);
    assert.deepEqual(await checkUp(), { status: 503, checks: { mongodb: 'OK', authService: 'KO' } });
  } finally {
    await redisGate.restore();
  }
  // ioredis reconnects on its own schedule; bounded, since both cores may be busy.
  const deadline = Date.now() + 30_000;
  let status = (await request('', { cookie })).status;
  while (status !== 200 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    status = (await request('', { cookie })).status;
  }
  assert.equal(status, 200);
  await authServer.close();
  assert.equal((await request('', { cookie })).status, 503, 'nothing listens at AUTH_SERVICE_URL');
  assert.deepEqual(await checkUp(), { status: 503, checks: { mongodb: 'OK', authService: 'KO' } });
});

test('no log line holds a session cookie, a token or a credential', () => {
  assert.ok(logLines.length > 20);
  assert.ok(sent.length >= 5);
  for (const line of logLines) {
    assert.ok(!line.includes(SECRET_MARK), line);
    for (const value of sent) assert.ok(!line.includes(value), line);
  }
});

test.run();

import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { call, type Harness, harnessSuite, jsonOf, sidOf } from './harness.ts';

const test = harnessSuite('auth sessions');

const ada = { grant_type: 'password', username: 'ada', password: 'lovelace' };

async function cookieLogin(h: Harness): Promise<string> {
  const response = await call(h.app, '/oauth/token', { form: ada });
  assert.equal(response.status, 200);
  return sidOf(response);
}

async function tokenLogin(h: Harness) {
  const response = await call(h.app, '/oauth/token', { clientType: 'api', form: ada });
  assert.equal(response.status, 200);
  return jsonOf(response);
}

const expectedAda = {
  sub: 'auth0|ada',
  userId: 'auth0|ada',
  email: 'ada@example.test',
  groups: ['admin', 'dev'],
};

test('GET /userinfo and /users/me by sid cookie: the user with groups out of the custom claims namespace, no call to Auth0', async ({
  h,
}) => {
  const sid = await cookieLogin(h);
  const before = h.auth0.requests.length;
  for (const path of ['/userinfo', '/users/me']) {
    const response = await call(h.app, path, { headers: { cookie: `sid=${sid}` } });
    assert.equal(response.status, 200);
    assert.deepEqual(await jsonOf(response), expectedAda);
  }
  assert.equal(h.auth0.requests.length, before);
});

test('GET /userinfo by cookie or by a token issued here costs one Redis command', async ({ h }) => {
  const processed = async () =>
    Number(/total_commands_processed:(\d+)/.exec(await h.redis.info('stats'))![1]);
  const sid = await cookieLogin(h);
  const { accessToken } = await tokenLogin(h);
  const credentials: Array<Record<string, string>> = [
    { cookie: `sid=${sid}` },
    { authorization: `Bearer ${accessToken}` },
  ];
  for (const headers of credentials) {
    const before = await processed();
    assert.equal((await call(h.app, '/userinfo', { headers })).status, 200);
    // The first INFO is counted by the second one.
    assert.equal((await processed()) - before - 1, 1, Object.keys(headers)[0]);
  }
});

test('GET /userinfo of a session saved by the previous build (body and expiry in two fields): still answered, refreshed once expired', async ({
  h,
}) => {
  const sid = await cookieLogin(h);
  const key = `auth0-client:session:${sid}`;
  const [expiresAt, body] = (await h.redis.hget(key, 'user'))!.split(/ (.*)/s) as [string, string];
  assert.ok(Number(expiresAt) > Date.now(), 'the expiry leads the user field');
  await h.redis.hset(key, { user: body, expireAt: expiresAt });
  const response = await call(h.app, '/userinfo', { headers: { cookie: `sid=${sid}` } });
  assert.equal(response.status, 200);
  assert.deepEqual(await jsonOf(response), expectedAda);
  await h.redis.hset(key, { expireAt: String(Date.now() - 1000) });
  const before = h.auth0.requests.length;
  const expired = await call(h.app, '/userinfo', { headers: { cookie: `sid=${sid}` } });
  assert.equal(expired.status, 200);
  assert.deepEqual(await jsonOf(expired), expectedAda);
  assert.ok(
    h.auth0.requests.slice(before).some((r) => r.path === '/oauth/token'),
    'the expired token was refreshed',
  );
  assert.ok(!(await h.redis.hget(key, 'user'))!.startsWith('{'), 'saved again in the new form');
});

test('GET /userinfo by bearer token: from Redis for a token we issued, from Auth0 otherwise; a website client reads a token too', async ({
  h,
}) => {
  const { accessToken } = await tokenLogin(h);
  const ours = await call(h.app, '/userinfo', { headers: { authorization: `Bearer ${accessToken}` } });
  assert.deepEqual(await jsonOf(ours), expectedAda);
  await h.redis.del(...(await h.redis.keys('auth0-client:token:*')));
  const before = h.auth0.requests.length;
  const viaAuth0 = await call(h.app, '/userinfo', { headers: { authorization: `Bearer ${accessToken}` } });
  assert.equal(viaAuth0.status, 200);
  assert.deepEqual(await jsonOf(viaAuth0), expectedAda);
  assert.equal(h.auth0.requests.at(before)?.path, '/userinfo');
});

test('GET /userinfo reads Authorization before the cookie the browser sends anyway', async ({ h }) => {
  const { accessToken } = await tokenLogin(h);
  const response = await call(h.app, '/userinfo', {
    headers: { authorization: `Bearer ${accessToken}`, cookie: 'sid=stale' },
  });
  assert.equal(response.status, 200);
});

test('GET /userinfo: no credentials, an unknown sid or a token Auth0 refuses are 401', async ({ h }) => {
  assert.equal((await call(h.app, '/userinfo')).status, 401);
  assert.equal((await call(h.app, '/userinfo', { headers: { cookie: 'sid=unknown' } })).status, 401);
  const refused = await call(h.app, '/userinfo', { headers: { authorization: 'Bearer forged' } });
  assert.equal(refused.status, 401);
  assert.equal((await jsonOf(refused)).message, 'the access token is not valid');
});

test('an expired access token is refreshed by /userinfo; a revoked refresh token ends the session', async ({
  h,
}) => {
  h.auth0.setExpiresIn(0);
  const sid = await cookieLogin(h);
  h.auth0.setExpiresIn(3600);
  const before = h.auth0.requests.length;
  const response = await call(h.app, '/userinfo', { headers: { cookie: `sid=${sid}` } });
  assert.equal(response.status, 200);
  assert.equal(h.auth0.requests.at(before)?.body?.grant_type, 'refresh_token');
  // Refreshed once: the next read needs no Auth0.
  const afterRefresh = h.auth0.requests.length;
  await call(h.app, '/userinfo', { headers: { cookie: `sid=${sid}` } });
  assert.equal(h.auth0.requests.length, afterRefresh);

  h.auth0.setExpiresIn(0);
  const doomed = await cookieLogin(h);
  h.auth0.setExpiresIn(3600);
  h.auth0.revokeRefreshTokens();
  assert.equal((await call(h.app, '/userinfo', { headers: { cookie: `sid=${doomed}` } })).status, 401);
  assert.equal(await h.redis.exists(`auth0-client:session:${doomed}`), 0);
});

test('POST /refreshtoken by cookie keeps tokens out of the body and renews the session', async ({ h }) => {
  const sid = await cookieLogin(h);
  const stored = JSON.parse((await h.redis.hget(`auth0-client:session:${sid}`, 'session'))!);
  const response = await call(h.app, '/refreshtoken', { method: 'POST', headers: { cookie: `sid=${sid}` } });
  assert.equal(response.status, 200);
  assert.deepEqual(await jsonOf(response), {});
  const renewed = JSON.parse((await h.redis.hget(`auth0-client:session:${sid}`, 'session'))!);
  assert.notEqual(renewed.accessToken, stored.accessToken);
  assert.equal(renewed.refreshToken, stored.refreshToken, 'kept when Auth0 does not rotate it');
});

test('POST /refreshtoken by cookie with a refresh token Auth0 refuses: 401 and the session ends', async ({
  h,
}) => {
  const sid = await cookieLogin(h);
  h.auth0.revokeRefreshTokens();
  const response = await call(h.app, '/refreshtoken', { method: 'POST', headers: { cookie: `sid=${sid}` } });
  assert.equal(response.status, 401);
  assert.equal(await h.redis.exists(`auth0-client:session:${sid}`), 0);
  assert.equal((await call(h.app, '/userinfo', { headers: { cookie: `sid=${sid}` } })).status, 401);
});

test('POST /refreshtoken by bearer token and refresh_token: a new token set; the old token is forgotten', async ({
  h,
}) => {
  const first = await tokenLogin(h);
  const response = await call(h.app, '/refreshtoken', {
    clientType: 'api',
    headers: { authorization: `Bearer ${first.accessToken}` },
    json: { refresh_token: first.refreshToken },
  });
  assert.equal(response.status, 200);
  const second = await jsonOf(response);
  assert.notEqual(second.accessToken, first.accessToken);
  assert.equal(second.refreshToken, first.refreshToken);
  const sent = h.auth0.requests.findLast((r) => r.path === '/oauth/token')!.body!;
  assert.equal(sent.refresh_token, first.refreshToken);
  assert.equal(sent.client_id, 'api-id');
  const byNew = await call(h.app, '/userinfo', {
    headers: { authorization: `Bearer ${second.accessToken}` },
  });
  assert.deepEqual(await jsonOf(byNew), expectedAda);
  const stale = await call(h.app, '/refreshtoken', {
    clientType: 'api',
    headers: { authorization: `Bearer ${first.accessToken}` },
    json: { refresh_token: 'rt_unknown' },
  });
  assert.equal(stale.status, 401);
  assert.equal((await call(h.app, '/refreshtoken', { method: 'POST' })).status, 401);
});

test('GET /logout: the session is deleted, the cookie cleared without Max-Age, Auth0 logout with the redirect and its query kept', async ({
  h,
}) => {
  const sid = await cookieLogin(h);
  const redirect = encodeURIComponent('https://app.test/bye?lang=it&from=menu');
  const response = await call(h.app, `/logout?redirect=${redirect}`, { headers: { cookie: `sid=${sid}` } });
  assert.equal(response.status, 302);
  const cookie = response.headers.get('set-cookie')!;
  assert.equal(cookie, 'sid=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; Secure');
  const location = new URL(response.headers.get('location')!);
  assert.equal(`${location.origin}${location.pathname}`, `${h.auth0.url}/v2/logout`);
  assert.equal(location.searchParams.get('returnTo'), 'https://app.test/bye?lang=it&from=menu');
  assert.equal(location.searchParams.get('client_id'), null, 'AUTH0_LOGOUT_CLIENT_ID_ENABLED is off');
  const atAuth0 = await fetch(location, { redirect: 'manual' });
  assert.equal(atAuth0.headers.get('location'), 'https://app.test/bye?lang=it&from=menu');
  assert.equal((await call(h.app, '/userinfo', { headers: { cookie: `sid=${sid}` } })).status, 401);
});

test('GET /logout refuses a redirect to another origin and forgets a bearer token', async ({ h }) => {
  const refused = await call(h.app, `/logout?redirect=${encodeURIComponent('https://evil.test/')}`);
  assert.equal(refused.status, 400);
  const { accessToken } = await tokenLogin(h);
  const response = await call(h.app, '/logout', {
    clientType: 'api',
    headers: { authorization: `Bearer ${accessToken}` },
  });
  assert.equal(response.status, 302);
  const key = `auth0-client:token:${createHash('sha256').update(String(accessToken)).digest('base64url')}`;
  assert.equal(await h.redis.exists(key), 0);
});

test.run();

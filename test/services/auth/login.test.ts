import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { call, codeLogin, harnessSuite, jsonOf, sidOf } from './harness.ts';

const test = harnessSuite('auth login');

const stateKey = (state: string) =>
  `auth0-client:state:${createHash('sha256').update(state).digest('base64url')}`;

test('GET /authorize redirects to Auth0 with the client, the default connection, PKCE S256, and stores the state for 10 minutes', async ({
  h,
}) => {
  const response = await call(h.app, '/authorize?prompt=login&action=signup');
  assert.equal(response.status, 302);
  const target = new URL(response.headers.get('location')!);
  assert.equal(`${target.origin}${target.pathname}`, `${h.auth0.url}/authorize`);
  const q = Object.fromEntries(target.searchParams);
  assert.equal(q.response_type, 'code');
  assert.equal(q.client_id, 'web-id');
  assert.equal(q.redirect_uri, 'https://app.test/web-login/callback');
  assert.equal(q.scope, 'openid offline_access profile email', 'openid first, the website scope left out');
  assert.equal(q.audience, 'https://api.test');
  assert.equal(q.connection, 'db');
  assert.equal(q.prompt, 'login');
  assert.equal(q.action, 'signup');
  assert.equal(q.code_challenge_method, 'S256');
  assert.match(q.code_challenge!, /^[\w-]{43}$/);
  assert.ok(q.nonce && q.state);
  const ttl = await h.redis.ttl(stateKey(q.state!));
  assert.ok(ttl > 590 && ttl <= 600, `state TTL ${ttl}`);
});

test('GET /authorize: a supported connection is used, an unsupported one is 400', async ({ h }) => {
  const google = await call(h.app, '/authorize?connection=google');
  assert.equal(new URL(google.headers.get('location')!).searchParams.get('connection'), 'google');
  const other = await call(h.app, '/authorize?connection=github');
  assert.equal(other.status, 400);
  assert.equal((await jsonOf(other)).message, 'connection is not supported by this client');
});

test('GET /authorize with authorizeStateRequired: no state is 400, the given state is passed on', async ({
  h,
}) => {
  const missing = await call(h.app, '/authorize', { clientType: 'api' });
  assert.equal(missing.status, 400);
  assert.deepEqual(await jsonOf(missing), {
    statusCode: 400,
    error: 'Bad Request',
    message: 'state is required by this client',
  });
  const given = await call(h.app, '/authorize?state=client-made-state', { clientType: 'api' });
  assert.equal(new URL(given.headers.get('location')!).searchParams.get('state'), 'client-made-state');
  assert.ok((await h.redis.exists(stateKey('client-made-state'))) === 1);
});

test('without authorizeStateRequired a given state is ignored and one is made', async ({ h }) => {
  const response = await call(h.app, '/authorize?state=mine');
  assert.notEqual(new URL(response.headers.get('location')!).searchParams.get('state'), 'mine');
});

test('a missing or unknown client-type is 401 JSON', async ({ h }) => {
  for (const clientType of [null, 'nope']) {
    const response = await call(h.app, '/authorize', { clientType });
    assert.equal(response.status, 401);
    assert.equal((await jsonOf(response)).statusCode, 401);
  }
});

test('code login with the website scope: sid cookie with its attributes, no tokens in the body, PKCE verifier sent', async ({
  h,
}) => {
  const response = await codeLogin(h);
  assert.equal(response.status, 200);
  assert.deepEqual(await jsonOf(response), {});
  const cookie = response.headers.get('set-cookie')!;
  assert.match(cookie, /^sid=[\w-]{43}; Path=\/; Max-Age=3600; HttpOnly; Secure; SameSite=Strict$/);
  const exchange = h.auth0.requests.findLast((r) => r.path === '/oauth/token')!;
  assert.equal(exchange.body?.grant_type, 'authorization_code');
  assert.match(String(exchange.body?.code_verifier), /^[\w-]{43}$/);
  const ttl = await h.redis.ttl(`auth0-client:session:${sidOf(response)}`);
  assert.ok(ttl > 3590 && ttl <= 3600, `session TTL ${ttl}`);
});

test('the state serves once; a forged state is 400; a state of another client is 400', async ({ h }) => {
  const authorize = await call(h.app, '/authorize');
  const atAuth0 = await fetch(authorize.headers.get('location')!, { redirect: 'manual' });
  const back = new URL(atAuth0.headers.get('location')!);
  const body = { code: back.searchParams.get('code'), state: back.searchParams.get('state') };
  assert.equal((await call(h.app, '/oauth/token', { json: body })).status, 200);
  const again = await call(h.app, '/oauth/token', { json: body });
  assert.equal(again.status, 400);
  assert.equal((await jsonOf(again)).message, 'state is unknown, expired or already used');
  const forged = await call(h.app, '/oauth/token', { json: { code: 'x', state: 'forged' } });
  assert.equal(forged.status, 400);

  await call(h.app, '/authorize?state=for-api', { clientType: 'api' });
  const crossed = await call(h.app, '/oauth/token', { json: { code: 'x', state: 'for-api' } });
  assert.equal(crossed.status, 400);
});

test('the token request checks its body: 400 with every problem, 415 for another media type', async ({
  h,
}) => {
  const empty = await call(h.app, '/oauth/token', { json: { code: '' } });
  assert.equal(empty.status, 400);
  assert.ok(((await jsonOf(empty)).errors?.length ?? 0) >= 1);
  const text = await call(h.app, '/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'text/plain' },
  });
  assert.equal(text.status, 415);
});

test('password grant, token mode: the token set; Auth0 asked with openid and no connection', async ({
  h,
}) => {
  const response = await call(h.app, '/oauth/token', {
    clientType: 'api',
    form: { grant_type: 'password', username: 'ada', password: 'lovelace' },
  });
  assert.equal(response.status, 200);
  const body = await jsonOf(response);
  assert.deepEqual(Object.keys(body).sort(), ['accessToken', 'expireAt', 'idToken', 'refreshToken']);
  assert.ok(Date.parse(String(body.expireAt)) > Date.now());
  assert.equal(response.headers.get('set-cookie'), null);
  const sent = h.auth0.requests.findLast((r) => r.path === '/oauth/token')!.body!;
  assert.equal(sent.grant_type, 'password');
  assert.equal(sent.scope, 'openid offline_access');
});

test('password grant with a connection uses the password-realm grant; wrong credentials are 403', async ({
  h,
}) => {
  const ok = await call(h.app, '/oauth/token', {
    form: { grant_type: 'password', username: 'bob', password: 'builder', connection: 'google' },
  });
  assert.equal(ok.status, 200);
  const sent = h.auth0.requests.findLast((r) => r.path === '/oauth/token')!.body!;
  assert.equal(sent.grant_type, 'http://auth0.com/oauth/grant-type/password-realm');
  assert.equal(sent.realm, 'google');
  assert.equal(sent.audience, 'https://api.test');
  // The default connection (db) does not hold bob.
  const wrongRealm = await call(h.app, '/oauth/token', {
    form: { grant_type: 'password', username: 'bob', password: 'builder' },
  });
  assert.equal(wrongRealm.status, 403);
  const wrong = await call(h.app, '/oauth/token', {
    form: { grant_type: 'password', username: 'ada', password: 'nope' },
  });
  assert.equal(wrong.status, 403);
  assert.deepEqual(await jsonOf(wrong), {
    statusCode: 403,
    error: 'Forbidden',
    message: 'wrong username or password',
  });
});

test('a client secret Auth0 refuses is 502 naming the client credentials, not 403', async ({ h }) => {
  const response = await call(h.app, '/oauth/token', {
    clientType: 'misconfigured',
    form: { grant_type: 'password', username: 'ada', password: 'lovelace' },
  });
  assert.equal(response.status, 502);
  assert.match(String((await jsonOf(response)).message), /client credentials/);
});

test('an empty access token from Auth0 is an error saying so', async ({ h }) => {
  h.auth0.tamperNextToken({ emptyAccessToken: true });
  const response = await call(h.app, '/oauth/token', {
    form: { grant_type: 'password', username: 'ada', password: 'lovelace' },
  });
  assert.equal(response.status, 502);
  assert.equal((await jsonOf(response)).message, 'access token is empty');
});

test('tampered, expired, foreign-audience or wrong-nonce ID tokens are refused with 401', async ({ h }) => {
  const past = Math.floor(Date.now() / 1000) - 3600;
  for (const tampering of [
    { foreignKey: true },
    { idTokenClaims: { aud: 'someone-else' } },
    { idTokenClaims: { exp: past } },
    { idTokenClaims: { iss: 'https://evil.test/' } },
  ]) {
    h.auth0.tamperNextToken(tampering);
    const response = await call(h.app, '/oauth/token', {
      form: { grant_type: 'password', username: 'ada', password: 'lovelace' },
    });
    assert.equal(response.status, 401, JSON.stringify(tampering));
    assert.match(String((await jsonOf(response)).message), /^the ID token is not valid/);
  }
  h.auth0.tamperNextToken({ idTokenClaims: { nonce: 'replayed' } });
  const replay = await codeLogin(h);
  assert.equal(replay.status, 401);
  assert.equal((await jsonOf(replay)).message, 'the ID token is not valid: nonce mismatch');
});

test('redirectUri: a path or the client origin redirects after login, another origin is refused before the state is spent', async ({
  h,
}) => {
  const ok = await call(h.app, '/oauth/token?redirectUri=/home%3Ftab%3D1', {
    form: { grant_type: 'password', username: 'ada', password: 'lovelace' },
  });
  assert.equal(ok.status, 302);
  assert.equal(ok.headers.get('location'), 'https://app.test/home?tab=1');
  assert.match(ok.headers.get('set-cookie')!, /^sid=/);
  for (const evil of ['https://evil.test/', '//evil.test/x', 'javascript:alert(1)', '/\\evil.test']) {
    const refused = await call(h.app, `/oauth/token?redirectUri=${encodeURIComponent(evil)}`, {
      form: { grant_type: 'password', username: 'ada', password: 'lovelace' },
    });
    assert.equal(refused.status, 400, evil);
  }
});

test('the cookie is not Secure when the original protocol is http; SameSite is left out when not configured', async ({
  h,
}) => {
  const response = await call(h.app, '/oauth/token', {
    headers: { 'x-forwarded-proto': 'http' },
    form: { grant_type: 'password', username: 'ada', password: 'lovelace' },
  });
  assert.match(
    response.headers.get('set-cookie')!,
    /^sid=[\w-]{43}; Path=\/; Max-Age=3600; HttpOnly; SameSite=Strict$/,
  );
  const portal = await call(h.app, '/oauth/token', {
    clientType: 'portal',
    form: { grant_type: 'password', username: 'ada', password: 'lovelace' },
  });
  assert.match(portal.headers.get('set-cookie')!, /^sid=[\w-]{43}; Path=\/; Max-Age=3600; HttpOnly; Secure$/);
});

test('no password, token or cookie reaches the logs', async ({ h }) => {
  const response = await call(h.app, '/oauth/token', {
    clientType: 'api',
    form: { grant_type: 'password', username: 'ada', password: 'lovelace' },
  });
  const { accessToken, idToken } = await jsonOf(response);
  const logs = h.logs.join('');
  assert.ok(logs.includes('/oauth/token'), 'requests are logged');
  for (const secret of ['lovelace', 'app-secret', String(accessToken), String(idToken)])
    assert.ok(!logs.includes(secret));
});

test.run();

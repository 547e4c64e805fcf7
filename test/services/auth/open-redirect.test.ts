import * as assert from 'uvu/assert';
import { call, harnessSuite } from './harness.ts';

const test = harnessSuite('auth: open-redirect attempts');

const login = { grant_type: 'password', username: 'ada', password: 'lovelace' };

/** Targets that would leave the client's origin (https://app.test), each by another trick. */
const ATTEMPTS = [
  'https://evil.test/',
  'http://app.test/', // same host, another scheme: another origin
  'https://app.test.evil.test/',
  'https://app.test@evil.test/',
  'https://app.test:8443/',
  '//evil.test/x',
  '///evil.test/x',
  '/\\evil.test',
  '\\\\evil.test',
  '/\t/evil.test', // the URL parser drops tabs and newlines: "//evil.test"
  '/\n/evil.test',
  ' //evil.test',
  'javascript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
];

/** Targets on the client's origin, with what the browser is sent to. */
const ALLOWED: ReadonlyArray<readonly [string, string]> = [
  ['/home?tab=1', 'https://app.test/home?tab=1'],
  ['https://app.test/x#y', 'https://app.test/x#y'],
  ['/a/../b', 'https://app.test/b'],
];

test('POST /oauth/token?redirectUri: every way out of the client origin is 400 and Auth0 is not asked', async ({
  h,
}) => {
  for (const target of ATTEMPTS) {
    const before = h.auth0.requests.length;
    const response = await call(h.app, `/oauth/token?redirectUri=${encodeURIComponent(target)}`, {
      form: login,
    });
    assert.equal(response.status, 400, JSON.stringify(target));
    assert.equal(response.headers.get('location'), null);
    assert.equal(h.auth0.requests.length, before, `${JSON.stringify(target)}: no login attempted`);
  }
  for (const [target, location] of ALLOWED) {
    const response = await call(h.app, `/oauth/token?redirectUri=${encodeURIComponent(target)}`, {
      form: login,
    });
    assert.equal(response.status, 302, target);
    assert.equal(response.headers.get('location'), location);
  }
});

test('GET /logout?redirect: every way out of the client origin is 400, the session kept', async ({ h }) => {
  const sid = /sid=([^;]+)/.exec(
    (await call(h.app, '/oauth/token', { form: login })).headers.get('set-cookie')!,
  )![1];
  for (const target of ATTEMPTS) {
    const response = await call(h.app, `/logout?redirect=${encodeURIComponent(target)}`, {
      headers: { cookie: `sid=${sid}` },
    });
    assert.equal(response.status, 400, JSON.stringify(target));
  }
  assert.equal((await call(h.app, '/userinfo', { headers: { cookie: `sid=${sid}` } })).status, 200);
  for (const [target, location] of ALLOWED) {
    const response = await call(h.app, `/logout?redirect=${encodeURIComponent(target)}`);
    assert.equal(response.status, 302, target);
    const logout = new URL(response.headers.get('location')!);
    assert.equal(logout.searchParams.get('returnTo'), location);
  }
});

test.run();

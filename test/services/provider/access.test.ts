import * as assert from 'node:assert/strict';
import { Hono } from 'hono';
import { errorHandler } from '../../../services/kit/index.ts';
import { requireGroup } from '../../../services/provider/access.ts';
import { test } from '../../support/suite.ts';
import { startUserinfoStandIn, type UserinfoStandIn } from './userinfo-stand-in.ts';

let auth: UserinfoStandIn;
let clock = 0;

function app(cacheMs: number, authServiceUrl = auth.url) {
  const hono = new Hono();
  hono.onError(errorHandler);
  hono.use(requireGroup({ authServiceUrl, group: 'managers', cacheMs, timeoutMs: 5000, now: () => clock }));
  hono.get('/whoami', (c) => c.json(c.get('caller')));
  return hono;
}

const ask = (hono: Hono, headers: Record<string, string>) => hono.request('/whoami', { headers });

test.before(async () => {
  auth = await startUserinfoStandIn({
    ada: { id: 'ada', groups: ['managers'] },
    bob: { id: 'bob', groups: ['developers'] },
  });
});

test.after(() => auth?.stop());

test('the caller in the group passes, with its id and groups', async () => {
  const answer = await ask(app(0), { cookie: 'sid=ada' });
  assert.equal(answer.status, 200);
  assert.deepEqual(await answer.json(), { id: 'ada', groups: ['managers'] });
});

test('a cached answer is reused until it expires, per session', async () => {
  const hono = app(1000);
  const calls = auth.requests.length;
  clock = 0;
  await ask(hono, { cookie: 'sid=ada' });
  clock = 999;
  await ask(hono, { cookie: 'sid=ada' });
  assert.equal(auth.requests.length, calls + 1);
  await ask(hono, { authorization: 'Bearer ada' });
  assert.equal(auth.requests.length, calls + 2, 'another session is asked for');
  clock = 1000;
  await ask(hono, { cookie: 'sid=ada' });
  assert.equal(auth.requests.length, calls + 3, 'expired');
});

test('a cached non-member stays 403; a refused session is not cached', async () => {
  const hono = app(60_000);
  assert.equal((await ask(hono, { cookie: 'sid=bob' })).status, 403);
  const calls = auth.requests.length;
  assert.equal((await ask(hono, { cookie: 'sid=bob' })).status, 403);
  assert.equal(auth.requests.length, calls);
  assert.equal((await ask(hono, { cookie: 'sid=nobody' })).status, 401);
  assert.equal((await ask(hono, { cookie: 'sid=nobody' })).status, 401);
  assert.equal(auth.requests.length, calls + 2);
});

test('a base URL with a path keeps it', async () => {
  const answer = await ask(app(0, `${auth.url}/`), { cookie: 'sid=ada' });
  assert.equal(answer.status, 200);
  const prefixed = await ask(app(0, `${auth.url}/auth`), { cookie: 'sid=ada' });
  assert.equal(prefixed.status, 503, 'the stand-in has no /auth/userinfo: 404 is a failing auth service');
});

test.run();

import * as assert from 'node:assert/strict';
import { call, type Harness, harnessSuite, jsonOf } from './harness.ts';

const test = harnessSuite('auth user management');

type ListedUser = { user_id: string; email: string };

async function list(h: Harness, query: string, headers: Record<string, string> = {}) {
  const response = await call(h.app, `/users${query}`, { clientType: null, headers });
  const sent = h.auth0.requests.findLast((r) => r.path === '/api/v2/users');
  return { response, sent, users: response.status === 200 ? ((await response.json()) as ListedUser[]) : [] };
}

test('GET /users: all connections of the management client by default, with a cached machine-to-machine token', async ({
  h,
}) => {
  const first = await list(h, '');
  assert.equal(first.response.status, 200);
  assert.deepEqual(first.users.map((u) => u.user_id).sort(), ['auth0|ada', 'google|bob']);
  assert.equal(first.sent?.query.q, '(identities.connection:"db" OR identities.connection:"google")');
  assert.equal(first.sent?.query.search_engine, 'v3');
  assert.equal(first.sent?.query.per_page, '25');
  assert.equal(first.sent?.query.page, '0');
  await list(h, '');
  const grants = h.auth0.requests.filter((r) => r.body?.grant_type === 'client_credentials');
  assert.equal(grants.length, 1, 'one token for both calls');
  assert.equal(grants[0]!.body!.audience, `${h.auth0.url}/api/v2/`);
});

test('GET /users: fields, wildcards, app_metadata, connections and paging reach Auth0 as one Lucene query', async ({
  h,
}) => {
  const byNick = await list(h, `?nickname=${encodeURIComponent('bob the*')}&connection=google&_l=10&_sk=20`);
  assert.equal(byNick.sent?.query.q, '(nickname:bob\\ the*) AND identities.connection:"google"');
  assert.equal(byNick.sent?.query.per_page, '10');
  assert.equal(byNick.sent?.query.page, '2');
  const byGroup = await list(h, '?app_metadata.groups=dev&connection=db&connection=google');
  assert.deepEqual(byGroup.users.map((u) => u.user_id).sort(), ['auth0|ada', 'google|bob']);
  const byEmail = await list(h, `?email=${encodeURIComponent('ada@example.test')}`);
  assert.deepEqual(
    byEmail.users.map((u) => u.user_id),
    ['auth0|ada'],
  );
  const wildcard = await list(h, '?email=*@example.test&app_metadata.tenant=t1');
  assert.deepEqual(
    wildcard.users.map((u) => u.user_id),
    ['google|bob'],
  );
});

test('GET /users with an acl_rows ACL: AND-ed in parentheses, $in translated', async ({ h }) => {
  const acl = JSON.stringify({ 'app_metadata.groups': { $in: ['admin', 'ops'] } });
  const { sent, users } = await list(h, '?app_metadata.groups=dev', { acl_rows: acl });
  assert.equal(
    sent?.query.q,
    '((app_metadata.groups:"dev") AND (app_metadata.groups:("admin" OR "ops"))) AND (identities.connection:"db" OR identities.connection:"google")',
  );
  assert.deepEqual(
    users.map((u) => u.user_id),
    ['auth0|ada'],
  );
});

test('GET /users: bad paging, an unknown field or connection, a bad ACL are 400 and Auth0 is not asked', async ({
  h,
}) => {
  const before = h.auth0.requests.length;
  for (const query of ['?_l=0', '?_l=abc', '?_sk=-1', '?password=x', '?connection=github']) {
    assert.equal((await call(h.app, `/users${query}`, { clientType: null })).status, 400, query);
  }
  assert.equal((await call(h.app, '/users', { clientType: null, headers: { acl_rows: '{' } })).status, 400);
  assert.equal(h.auth0.requests.length, before);
});

test('POST /users: the default management connection when none is given; an unsupported one is 400; Auth0 conflicts pass on', async ({
  h,
}) => {
  const created = await call(h.app, '/users', {
    clientType: null,
    json: { email: 'cy@example.test', password: 'Secret-123', app_metadata: { groups: ['ops'] } },
  });
  assert.equal(created.status, 201);
  const body = await jsonOf(created);
  assert.match(String(body.user_id), /^auth0\|/);
  assert.equal(h.auth0.requests.findLast((r) => r.path === '/api/v2/users')!.body!.connection, 'db');
  const again = await call(h.app, '/users', {
    clientType: null,
    json: { email: 'cy@example.test', password: 'x' },
  });
  assert.equal(again.status, 409);
  assert.equal((await jsonOf(again)).message, 'The user already exists.');
  const elsewhere = await call(h.app, '/users', {
    clientType: null,
    json: { email: 'x@y', connection: 'github' },
  });
  assert.equal(elsewhere.status, 400);
});

test('POST /user/:userId updates with the given supported connection, else the default; DELETE removes; unknown users are 404', async ({
  h,
}) => {
  const id = encodeURIComponent('google|bob');
  const updated = await call(h.app, `/user/${id}`, {
    clientType: null,
    json: { email: 'robert@example.test', connection: 'google' },
  });
  assert.equal(updated.status, 200);
  assert.equal((await jsonOf(updated)).email, 'robert@example.test');
  const patch = h.auth0.requests.findLast((r) => r.method === 'PATCH')!;
  assert.equal(patch.path, '/api/v2/users/google%7Cbob');
  assert.equal(patch.body!.connection, 'google');
  await call(h.app, `/user/${id}`, { clientType: null, json: { nickname: 'rob', connection: 'github' } });
  assert.equal(h.auth0.requests.findLast((r) => r.method === 'PATCH')!.body!.connection, 'db');

  const password = await call(h.app, `/users/${id}/password`, {
    clientType: null,
    json: { password: 'N3w-pass' },
  });
  assert.equal(password.status, 204);
  assert.equal(h.auth0.users.find((u) => u.sub === 'google|bob')!.password, 'N3w-pass');

  assert.equal((await call(h.app, `/users/${id}`, { method: 'DELETE', clientType: null })).status, 204);
  assert.equal(
    h.auth0.users.some((u) => u.sub === 'google|bob'),
    false,
  );
  const gone = await call(h.app, `/users/${id}`, { method: 'DELETE', clientType: null });
  assert.equal(gone.status, 404);
});

test('users import: the connection name mapped to its id, connection_id refused; job status and errors', async ({
  h,
}) => {
  const job = await call(h.app, '/users/import', {
    clientType: null,
    json: { users: [{ email: 'imp@example.test' }], connection: 'google', upsert: true },
  });
  assert.equal(job.status, 202);
  const { id } = await jsonOf(job);
  const held = h.auth0.importJobs.find((j) => j.id === id)!;
  assert.equal(held.connection_id, 'con_google');
  assert.deepEqual(held.users, [{ email: 'imp@example.test' }]);
  const status = await call(h.app, `/users/import/status/${id}`, { clientType: null });
  assert.equal((await jsonOf(status)).status, 'pending');
  const errors = await call(h.app, `/users/import/status/${id}/errors`, { clientType: null });
  assert.deepEqual(await errors.json(), []);
  const byDefault = await call(h.app, '/users/import', {
    clientType: null,
    json: { users: [{ email: 'd@x' }] },
  });
  assert.equal(byDefault.status, 202);
  assert.equal(h.auth0.importJobs.at(-1)!.connection_id, 'con_db');
  const refused = await call(h.app, '/users/import', {
    clientType: null,
    json: { users: [{}], connection_id: 'con_x' },
  });
  assert.equal(refused.status, 400);
  assert.equal((await call(h.app, '/users/import/status/nope', { clientType: null })).status, 404);
});

test('the management token is fetched again when Auth0 stops accepting it', async ({ h }) => {
  h.auth0.revokeManagementTokens();
  assert.equal((await list(h, '')).response.status, 200);
});

test('GET /users/active: the users with a live session, once each; gone with their last session', async ({
  h,
}) => {
  const login = () =>
    call(h.app, '/oauth/token', { form: { grant_type: 'password', username: 'ada', password: 'lovelace' } });
  const first = await login();
  const second = await login();
  const active = await call(h.app, '/users/active', { clientType: null });
  assert.deepEqual(await active.json(), [{ userId: 'auth0|ada' }]);
  const cookie = (response: Response) => response.headers.get('set-cookie')!.split(';')[0]!;
  await call(h.app, '/logout', { headers: { cookie: cookie(first) } });
  assert.deepEqual(await (await call(h.app, '/users/active', { clientType: null })).json(), [
    { userId: 'auth0|ada' },
  ]);
  await call(h.app, '/logout', { headers: { cookie: cookie(second) } });
  assert.deepEqual(await (await call(h.app, '/users/active', { clientType: null })).json(), []);
});

test.run();

import * as assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import pino from 'pino';
import type { RunningServer } from '../../../services/kit/index.ts';
import { MAX_BODY_BYTES } from '../../../services/provider/app.ts';
import { CredentialCipher, keyId, type Sealed } from '../../../services/provider/cipher.ts';
import { type ProviderConfig, readConfig } from '../../../services/provider/config.ts';
import { service } from '../../../services/provider/index.ts';
import { startProviderService } from '../../../services/provider/start.ts';
import { type MongoFixture, startMongo } from '../../support/mongo.ts';
import { test } from '../../support/suite.ts';
import { startTcpProxy, type TcpProxy } from '../../support/tcp-proxy.ts';
import { CA_BASE64, CREDENTIALS, provider, SECRET_MARK } from './bodies.ts';
import { capturingLogger } from './capturing-logger.ts';
import { startUserinfoStandIn, type UserinfoStandIn } from './userinfo-stand-in.ts';

const KEY_A = randomBytes(32);
const KEY_B = randomBytes(32);
const MANAGER = { cookie: 'sid=manager-session', 'client-type': 'console' };
const DEVELOPER = { cookie: 'sid=developer-session' };

let mongo: MongoFixture;
let gate: TcpProxy;
let auth: UserinfoStandIn;
let server: RunningServer;
let config: ProviderConfig;
let base: string;
let db: MongoClient;
const logLines: string[] = [];
/** Every response body the service sent, to grep for secrets at the end. */
const bodies: string[] = [];

function env(overrides: Record<string, string> = {}) {
  return {
    HTTP_PORT: '0',
    MONGODB_URL: mongo.url.replace(/^mongodb:\/\/[^/]+/, `mongodb://127.0.0.1:${gate.port}`),
    PROVIDERS_DATABASE: mongo.database,
    PROVIDERS_ENCRYPTION_KEY: KEY_A.toString('base64'),
    AUTH_SERVICE_URL: auth.url,
    AUTH_CACHE_SECONDS: '60',
    MONGODB_TIMEOUT_MS: '1500',
    ...overrides,
  };
}

async function call(
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...MANAGER,
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  bodies.push(text);
  return { status: response.status, headers: response.headers, json: text ? JSON.parse(text) : undefined };
}

const providers = (tenant: string) => `/api/backend/tenants/${tenant}/providers`;
const stored = (tenantId: string, providerId: string) =>
  db.db(mongo.database).collection('providers').findOne({ tenantId, providerId });

test.before(async () => {
  mongo = await startMongo();
  const [host, port] = /^mongodb:\/\/([^/:]+):(\d+)/.exec(mongo.url)!.slice(1);
  gate = await startTcpProxy(Number(port), host!);
  auth = await startUserinfoStandIn({
    'manager-session': { id: 'ada', groups: ['developers', 'access_token_manager'] },
    'manager-token': { id: 'ada', groups: ['access_token_manager'] },
    'developer-session': { id: 'bob', groups: ['developers'] },
  });
  db = new MongoClient(mongo.url);
  config = readConfig(env());
  server = await startProviderService(config, {
    logger: capturingLogger(logLines),
    handleSignals: false,
  });
  base = `http://127.0.0.1:${server.port}`;
});

test.after(async () => {
  await server?.close();
  await db?.close();
  await auth?.stop();
  await gate?.close();
  await mongo?.stop();
});

test('POST creates: 201 with the provider, credentials reduced to type and expiry', async () => {
  const body = provider('gitlab-main', 'gitlab', {
    description: 'our GitLab',
    capabilities: ['git-provider'],
    base64CA: CA_BASE64,
    proxy: { url: 'http://proxy.example:3128', username: 'proxy-user', password: `${SECRET_MARK}proxy` },
    credentials: { ...CREDENTIALS.token, expirationDate: '2027-01-31T00:00:00Z' },
  });
  const { status, json } = await call('POST', providers('acme'), { body });
  assert.equal(status, 201);
  const { createdAt, updatedAt, ...rest } = json;
  assert.deepEqual(rest, {
    tenantId: 'acme',
    providerId: 'gitlab-main',
    label: 'label of gitlab-main',
    description: 'our GitLab',
    type: 'gitlab',
    capabilities: ['git-provider'],
    urls: body.urls,
    base64CA: CA_BASE64,
    proxy: { url: 'http://proxy.example:3128', username: 'proxy-user' },
    credentials: { type: 'token', expirationDate: '2027-01-31T00:00:00Z' },
  });
  assert.equal(createdAt, updatedAt);
  assert.deepEqual((await call('GET', `${providers('acme')}/gitlab-main`)).json, json);
});

test('at rest: ciphertext bound to tenant and provider, nothing readable', async () => {
  const document = (await stored('acme', 'gitlab-main'))!;
  assert.ok(!JSON.stringify(document).includes(SECRET_MARK));
  const cipher = new CredentialCipher([KEY_A]);
  const content = document.credentials.content as Sealed;
  assert.deepEqual(Object.keys(content).sort(), ['data', 'iv', 'keyId', 'tag']);
  assert.deepEqual(
    cipher.open(content, { tenantId: 'acme', providerId: 'gitlab-main', field: 'credentials' }),
    CREDENTIALS.token.content,
  );
  assert.equal(
    cipher.open(document.proxy.password, {
      tenantId: 'acme',
      providerId: 'gitlab-main',
      field: 'proxy.password',
    }),
    `${SECRET_MARK}proxy`,
  );
});

test('a duplicate providerId in a tenant is a 409; another tenant may use it', async () => {
  const again = await call('POST', providers('acme'), { body: provider('gitlab-main') });
  assert.equal(again.status, 409);
  assert.equal(again.json.statusCode, 409);
  assert.equal((await call('POST', providers('globex'), { body: provider('gitlab-main') })).status, 201);
});

test('concurrent POSTs of one id: exactly one wins', async () => {
  const answers = await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      call('POST', providers('acme'), { body: provider('raced', 'github', { label: `attempt ${i}` }) }),
    ),
  );
  const statuses = answers.map((a) => a.status).sort();
  assert.deepEqual(statuses, [201, 409, 409, 409, 409, 409, 409, 409]);
  assert.equal(
    await db.db(mongo.database).collection('providers').countDocuments({ providerId: 'raced' }),
    1,
  );
});

test('validation: 400 listing every problem with path and rule, never a secret', async () => {
  const body = provider('bad', 'vault', {
    urls: { base: 'nope', apiBase: 'https://vault.example.com' },
    capabilities: ['quantum'],
    credentials: { type: 'github-app', content: { privateKeyBase64: `${SECRET_MARK}leak` } },
  });
  const { status, json } = await call('POST', providers('acme'), { body });
  assert.equal(status, 400);
  assert.equal(json.error, 'Bad Request');
  assert.deepEqual(json.errors.map((e: { path: string }) => e.path).sort(), [
    '/capabilities/0',
    '/credentials/type',
    '/urls/base',
  ]);
  const badJson = await fetch(`${base}${providers('acme')}`, {
    method: 'POST',
    headers: { ...MANAGER, 'content-type': 'application/json' },
    body: '{"providerId":',
  });
  assert.equal(badJson.status, 400);
  const notJson = await call('POST', providers('acme'), { headers: { 'content-type': 'text/plain' } });
  assert.equal(notJson.status, 415);
  const huge = provider('huge', 'gitlab', { description: 'x'.repeat(MAX_BODY_BYTES) });
  assert.equal((await call('POST', providers('acme'), { body: huge })).status, 413);
});

test('console-version below 10.8 rejects capabilities and expirationDate', async () => {
  const old = { 'console-version': '10.7.3' };
  const withNew = provider('old-1', 'gitlab', {
    capabilities: ['git-provider'],
    credentials: { ...CREDENTIALS.token, expirationDate: '2027-01-31T00:00:00Z' },
  });
  const rejected = await call('POST', providers('acme'), { body: withNew, headers: old });
  assert.equal(rejected.status, 400);
  assert.deepEqual(rejected.json.errors.map((e: { path: string }) => e.path).sort(), ['/', '/credentials']);
  const plain = provider('old-1', 'gitlab', { credentials: CREDENTIALS.token });
  assert.equal((await call('POST', providers('acme'), { body: plain, headers: old })).status, 201);
  const patched = await call('PATCH', `${providers('acme')}/old-1`, {
    body: { capabilities: [] },
    headers: old,
  });
  assert.equal(patched.status, 400);
  const current = await call('PATCH', `${providers('acme')}/old-1`, {
    body: { capabilities: ['git-provider'] },
    headers: { 'console-version': '10.8.0' },
  });
  assert.equal(current.status, 200);
  assert.equal((await call('GET', providers('acme'), { headers: { 'console-version': 'ten' } })).status, 200);
  assert.equal(
    (await call('POST', providers('acme'), { body: plain, headers: { 'console-version': 'ten' } })).status,
    400,
  );
});

test('PATCH changes what it sends and keeps the stored credentials', async () => {
  const before = (await stored('acme', 'gitlab-main'))!;
  const { status, json } = await call('PATCH', `${providers('acme')}/gitlab-main`, {
    body: {
      label: 'renamed',
      urls: { base: 'https://gitlab.example', apiBase: 'https://gitlab.example/api/v4' },
    },
  });
  assert.equal(status, 200);
  assert.equal(json.label, 'renamed');
  assert.equal(json.urls.apiBase, 'https://gitlab.example/api/v4');
  assert.deepEqual(json.credentials, { type: 'token', expirationDate: '2027-01-31T00:00:00Z' });
  const after = (await stored('acme', 'gitlab-main'))!;
  assert.deepEqual(after.credentials, before.credentials);
  assert.equal(after.version, before.version + 1);

  const proxy = await call('PATCH', `${providers('acme')}/gitlab-main`, {
    body: { proxy: { url: 'http://proxy2.example:3128', password: `${SECRET_MARK}proxy2` } },
  });
  assert.deepEqual(proxy.json.proxy, { url: 'http://proxy2.example:3128' }, 'proxy replaced as a whole');
  assert.equal(
    new CredentialCipher([KEY_A]).open((await stored('acme', 'gitlab-main'))!.proxy.password, {
      tenantId: 'acme',
      providerId: 'gitlab-main',
      field: 'proxy.password',
    }),
    `${SECRET_MARK}proxy2`,
  );

  const replaced = await call('PATCH', `${providers('acme')}/gitlab-main`, {
    body: { credentials: CREDENTIALS.userPass },
  });
  assert.equal(replaced.status, 200);
  assert.deepEqual(replaced.json.credentials, { type: 'userPass' });
  const sealed = (await stored('acme', 'gitlab-main'))!.credentials.content;
  assert.deepEqual(
    new CredentialCipher([KEY_A]).open(sealed, {
      tenantId: 'acme',
      providerId: 'gitlab-main',
      field: 'credentials',
    }),
    CREDENTIALS.userPass.content,
  );
});

test('concurrent PATCHes: each answers 200 or 409, none is lost silently', async () => {
  const path = `${providers('acme')}/raced`;
  const before = (await stored('acme', 'raced'))!.version;
  const answers = await Promise.all(
    Array.from({ length: 6 }, (_, i) => call('PATCH', path, { body: { label: `concurrent ${i}` } })),
  );
  const statuses = answers.map((a) => a.status);
  assert.ok(
    statuses.every((s) => s === 200 || s === 409),
    statuses.join(),
  );
  const applied = answers.filter((a) => a.status === 200);
  assert.ok(applied.length >= 1);
  const after = (await stored('acme', 'raced'))!;
  assert.equal(after.version, before + applied.length, 'every 200 is one write');
  assert.ok(
    applied.some((a) => a.json.label === after.label),
    'the stored label is one a 200 answered',
  );
});

test('PATCH: providerId in the body 400, unknown provider 404, the matrix checked on the merged provider', async () => {
  const path = `${providers('acme')}/gitlab-main`;
  assert.equal((await call('PATCH', path, { body: { providerId: 'x' } })).status, 400);
  assert.equal((await call('PATCH', `${providers('acme')}/nope`, { body: { label: 'x' } })).status, 404);
  assert.equal(
    (await call('PATCH', `${providers('initech')}/gitlab-main`, { body: { label: 'x' } })).status,
    404,
  );

  assert.equal(
    (
      await call('POST', providers('acme'), {
        body: provider('vault-1', 'vault', { credentials: CREDENTIALS.m2m }),
      })
    ).status,
    201,
  );
  const typeChange = await call('PATCH', `${providers('acme')}/vault-1`, { body: { type: 'github' } });
  assert.equal(typeChange.status, 400);
  assert.equal(typeChange.json.errors[0].path, '/type');
  const credentialChange = await call('PATCH', `${providers('acme')}/vault-1`, {
    body: { credentials: CREDENTIALS['github-app'] },
  });
  assert.equal(credentialChange.status, 400);
  assert.equal(credentialChange.json.errors[0].path, '/credentials/type');
  const both = await call('PATCH', `${providers('acme')}/vault-1`, {
    body: { type: 'github', credentials: CREDENTIALS['github-app'] },
  });
  assert.equal(both.status, 200);
  assert.deepEqual([both.json.type, both.json.credentials.type], ['github', 'github-app']);
});

test('GET list: one tenant, by providerId, paged with skip/limit and a total', async () => {
  for (const id of ['p-c', 'p-a', 'p-b']) {
    assert.equal((await call('POST', providers('paged'), { body: provider(id) })).status, 201);
  }
  const first = await call('GET', `${providers('paged')}?limit=2`);
  assert.equal(first.status, 200);
  assert.deepEqual(
    first.json.map((p: { providerId: string }) => p.providerId),
    ['p-a', 'p-b'],
  );
  assert.equal(first.headers.get('x-total-count'), '3');
  const second = await call('GET', `${providers('paged')}?limit=2&skip=2`);
  assert.deepEqual(
    second.json.map((p: { providerId: string }) => p.providerId),
    ['p-c'],
  );
  assert.deepEqual((await call('GET', providers('nobody'))).json, []);
  // skip=1770740031409 was a 500 from MongoDB (found by Schemathesis): skip fits 32 bits.
  // skip= was a 200 with the first page (Schemathesis again): only decimal digits are a number.
  const bad = ['limit=0', 'limit=201', 'skip=-1', 'skip=1770740031409', 'limit=x', 'sort=label'];
  for (const query of [...bad, 'skip=', 'limit=', 'skip=0x1', 'limit=1e1', 'skip=%201', 'skip=1.0']) {
    const answer = await call('GET', `${providers('paged')}?${query}`);
    assert.equal(answer.status, 400, query);
    assert.equal(answer.json.statusCode, 400, query);
  }
  assert.equal((await call('GET', `${providers('paged')}?skip=0&limit=200`)).json.length, 3);
});

test('DELETE: 204, then 404 for it', async () => {
  assert.equal((await call('DELETE', `${providers('paged')}/p-c`)).status, 204);
  assert.equal((await call('GET', `${providers('paged')}/p-c`)).status, 404);
  assert.equal((await call('DELETE', `${providers('paged')}/p-c`)).status, 404);
  assert.equal((await call('PUT', `${providers('paged')}/p-a`, { body: {} })).status, 405);
});

test('access: 401 without or with a refused session, 403 outside the group, bearer accepted', async () => {
  const calls = auth.requests.length;
  const none = await fetch(`${base}${providers('acme')}`);
  assert.equal(none.status, 401);
  assert.equal(auth.requests.length, calls, 'no session: the auth service is not asked');
  assert.equal((await call('GET', providers('acme'), { headers: { cookie: 'sid=forged' } })).status, 401);
  const developer = await call('GET', providers('acme'), { headers: DEVELOPER });
  assert.equal(developer.status, 403);
  const bearer = await fetch(`${base}${providers('acme')}`, {
    headers: { authorization: 'Bearer manager-token' },
  });
  assert.equal(bearer.status, 200);
});

test('access: the session and client-type are forwarded; answers cached per session', async () => {
  const cookie = 'sid=manager-session; theme=dark';
  const calls = auth.requests.length;
  for (let i = 0; i < 3; i++) {
    assert.equal(
      (await call('GET', providers('acme'), { headers: { cookie, 'client-type': 'cli' } })).status,
      200,
    );
  }
  assert.equal(auth.requests.length, calls + 1);
  const forwarded = auth.requests.at(-1)!;
  assert.equal(forwarded.cookie, cookie);
  assert.equal(forwarded['client-type'], 'cli');
});

test('auth service failing or unreachable: 503', async () => {
  auth.mode = 'error';
  try {
    assert.equal(
      (await call('GET', providers('acme'), { headers: { cookie: 'sid=manager-session; n=1' } })).status,
      503,
    );
    auth.mode = 'garbage';
    assert.equal(
      (await call('GET', providers('acme'), { headers: { cookie: 'sid=manager-session; n=2' } })).status,
      503,
    );
  } finally {
    auth.mode = 'ok';
  }
  const unreachable = await startProviderService(
    readConfig(env({ AUTH_SERVICE_URL: 'http://127.0.0.1:1' })),
    {
      logger: pino({ level: 'silent' }),
      handleSignals: false,
    },
  );
  try {
    const answer = await fetch(`http://127.0.0.1:${unreachable.port}${providers('acme')}`, {
      headers: MANAGER,
    });
    assert.equal(answer.status, 503);
    assert.equal(((await answer.json()) as { statusCode: number }).statusCode, 503);
  } finally {
    await unreachable.close();
  }
});

test('MongoDB down: 503 and not ready, then it recovers', async () => {
  await gate.cut();
  try {
    assert.equal((await call('GET', `${providers('acme')}/gitlab-main`)).status, 503);
    assert.equal((await call('POST', providers('acme'), { body: provider('while-down') })).status, 503);
    assert.equal((await fetch(`${base}/-/ready`)).status, 503);
    const checkUp = await fetch(`${base}/-/check-up`);
    assert.equal(checkUp.status, 503);
    assert.deepEqual(((await checkUp.json()) as { checks: unknown }).checks, {
      mongodb: 'KO',
      authService: 'OK',
    });
  } finally {
    await gate.restore();
  }
  // The driver finds the server again on its own; bounded, since both cores may be busy.
  const deadline = Date.now() + 30_000;
  let status = (await call('GET', `${providers('acme')}/gitlab-main`)).status;
  while (status !== 200 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    status = (await call('GET', `${providers('acme')}/gitlab-main`)).status;
  }
  assert.equal(status, 200);
  assert.equal((await fetch(`${base}/-/ready`)).status, 200);
  const checkUp = await fetch(`${base}/-/check-up`);
  assert.equal(checkUp.status, 200);
  const { name, version } = (await (await fetch(`${base}/-/healthz`)).json()) as Record<string, string>;
  assert.deepEqual(await checkUp.json(), {
    name,
    version,
    status: 'OK',
    checks: { mongodb: 'OK', authService: 'OK' },
  });
});

test('GET /documentation/json: OpenAPI with the validating schemas', async () => {
  const { status, json } = await call('GET', '/documentation/json', { headers: {} });
  assert.equal(status, 200);
  assert.equal(json.openapi, '3.1.0');
  assert.deepEqual(Object.keys(json.paths['/api/backend/tenants/{tenantId}/providers']).sort(), [
    'get',
    'parameters',
    'post',
  ]);
  assert.deepEqual(Object.keys(json.paths['/api/backend/tenants/{tenantId}/providers/{providerId}']).sort(), [
    'delete',
    'get',
    'parameters',
    'patch',
  ]);
  assert.equal(json.components.schemas.ProviderCreate.oneOf.length, 6);
  assert.equal(json.components.schemas.ProviderPatch.additionalProperties, false);
  assert.equal(json.components.schemas.ProviderPatch.properties.providerId, undefined);
});

test('key rotation: a service with the new key first serves records under the old one; --rotate-keys reseals only those', async () => {
  const bothKeys = `${KEY_B.toString('base64')},${KEY_A.toString('base64')}`;
  const collection = db.db(mongo.database).collection('providers');
  const withNewKey = await startProviderService(readConfig(env({ PROVIDERS_ENCRYPTION_KEY: bothKeys })), {
    logger: pino({ level: 'silent' }),
    handleSignals: false,
  });
  try {
    const url = `http://127.0.0.1:${withNewKey.port}${providers('acme')}`;
    const read = await fetch(`${url}/gitlab-main`, { headers: MANAGER });
    assert.equal(read.status, 200, 'a record under the old key');
    const created = await fetch(url, {
      method: 'POST',
      headers: { ...MANAGER, 'content-type': 'application/json' },
      body: JSON.stringify(provider('under-new-key', 'vault', { credentials: CREDENTIALS.m2m })),
    });
    assert.equal(created.status, 201);
  } finally {
    await withNewKey.close();
  }
  const sealedUnder = async (providerId: string) =>
    ((await collection.findOne({ tenantId: 'acme', providerId }))!.credentials.content as Sealed).keyId;
  assert.equal(await sealedUnder('under-new-key'), keyId(KEY_B));
  assert.equal(await sealedUnder('gitlab-main'), keyId(KEY_A));

  const all = await collection.find({}).toArray();
  const underA = all.filter(
    (p) => p.credentials?.content.keyId === keyId(KEY_A) || p.proxy?.password?.keyId === keyId(KEY_A),
  );
  assert.ok(underA.length >= 3);
  // The CLI entry, as `npx streamfold service provider --rotate-keys` runs it.
  const rotate = async (keys: string) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await service.run(
      env({ PROVIDERS_ENCRYPTION_KEY: keys, LOG_LEVEL: 'silent' }),
      { out: (line) => out.push(line), err: (line) => err.push(line) },
      new Set(['rotate-keys']),
    );
    return { code, out: out.join('\n'), err: err.join('\n') };
  };
  const first = await rotate(bothKeys);
  assert.deepEqual(first, {
    code: 0,
    out: `re-encrypted ${underA.length} provider(s); ${all.length - underA.length} already under the current key`,
    err: '',
  });
  const onlyNew = new CredentialCipher([KEY_B]);
  for (const p of await collection.find({}).toArray()) {
    const context = { tenantId: p.tenantId, providerId: p.providerId };
    if (p.credentials) onlyNew.open(p.credentials.content, { ...context, field: 'credentials' });
    if (p.proxy?.password) onlyNew.open(p.proxy.password, { ...context, field: 'proxy.password' });
  }
  const gitlab = (await collection.findOne({ tenantId: 'acme', providerId: 'gitlab-main' }))!;
  assert.equal(
    onlyNew.open(gitlab.proxy.password, {
      tenantId: 'acme',
      providerId: 'gitlab-main',
      field: 'proxy.password',
    }),
    `${SECRET_MARK}proxy2`,
  );
  assert.match((await rotate(bothKeys)).out, /^re-encrypted 0 provider\(s\)/);
  const unknownKey = await rotate(randomBytes(32).toString('base64'));
  assert.equal(unknownKey.code, 1);
  assert.match(unknownKey.err, /no encryption key with id/);
  assert.ok(!unknownKey.err.includes(KEY_B.toString('base64')));
});

test('no response body and no log line holds a secret', () => {
  assert.ok(bodies.length > 30);
  assert.ok(logLines.length > 30);
  for (const text of [...bodies, ...logLines]) assert.ok(!text.includes(SECRET_MARK), text);
  assert.ok(!logLines.join('').includes('manager-session'), 'no cookie value in the logs');
});

test.run();

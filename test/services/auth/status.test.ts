import * as assert from 'node:assert/strict';
import { call, harnessSuite, jsonOf } from './harness.ts';

const test = harnessSuite('auth status and documentation');

test('status routes: healthz, ready and check-up name the service', async ({ h }) => {
  for (const path of ['/-/healthz', '/-/ready', '/-/check-up']) {
    const response = await call(h.app, path, { clientType: null });
    assert.equal(response.status, 200, path);
    assert.deepEqual(await jsonOf(response), { name: 'auth-test', version: '0.0.0', status: 'OK' });
  }
});

test('GET /documentation/json: an OpenAPI 3 document of every route, bodies and queries from the zod schemas', async ({
  h,
}) => {
  const document = (await (await call(h.app, '/documentation/json', { clientType: null })).json()) as {
    openapi: string;
    paths: Record<
      string,
      Record<string, { parameters: Array<{ name: string; in: string }>; requestBody?: unknown }>
    >;
  };
  assert.match(document.openapi, /^3\./);
  const routes = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
  );
  assert.deepEqual(routes.sort(), [
    'DELETE /users/{userId}',
    'GET /authorize',
    'GET /logout',
    'GET /userinfo',
    'GET /users',
    'GET /users/active',
    'GET /users/import/status/{jobId}',
    'GET /users/import/status/{jobId}/errors',
    'GET /users/me',
    'PATCH /users/{userId}',
    'POST /oauth/token',
    'POST /refreshtoken',
    'POST /user/{userId}',
    'POST /users',
    'POST /users/import',
    'POST /users/{userId}/password',
  ]);
  const authorize = document.paths['/authorize']!.get!;
  assert.deepEqual(
    authorize.parameters.map((p) => `${p.in}:${p.name}`),
    ['header:client-type', 'query:connection', 'query:prompt', 'query:action', 'query:state'],
  );
  assert.ok(document.paths['/oauth/token']!.post!.requestBody);
});

test('a body over 64 KiB is 413; another method on a known path is 405', async ({ h }) => {
  const big = await call(h.app, '/oauth/token', { json: { code: 'x'.repeat(70_000), state: 's' } });
  assert.equal(big.status, 413);
  const wrongMethod = await call(h.app, '/userinfo', { method: 'DELETE' });
  assert.equal(wrongMethod.status, 405);
});

test.run();

import * as assert from 'node:assert/strict';
import { Hono } from 'hono';
import pino from 'pino';
import { Registry } from 'prom-client';
import { createServiceApp, healthRoutes } from '../../../services/kit/index.ts';
import { allowedMethods } from '../../../services/kit/method-not-allowed.ts';
import { test } from '../../support/suite.ts';

function app(): Hono {
  const service = createServiceApp({
    logger: pino({ level: 'silent' }),
    registry: new Registry(),
    health: healthRoutes({ name: 'svc', version: '1.0.0', ready: () => true }),
  });
  const orders = new Hono();
  orders.get('/:id', (c) => c.json({ id: c.req.param('id') }));
  orders.post('/:id', (c) => c.body(null, 204));
  orders.use('/:id/audit', async (_c, next) => next());
  service.route('/orders', orders);
  return service;
}

test('a known path asked with another method: 405, an Allow header, the JSON error body', async () => {
  const response = await app().request('/orders/7', { method: 'PUT' });
  assert.equal(response.status, 405);
  assert.equal(response.headers.get('allow'), 'GET, HEAD, POST');
  assert.match(response.headers.get('content-type') ?? '', /application\/json/);
  assert.deepEqual(await response.json(), {
    statusCode: 405,
    error: 'Method Not Allowed',
    message: 'PUT is not allowed on /orders/7',
  });
});

test('the shared routes too: DELETE /-/healthz and POST /-/metrics', async () => {
  const service = app();
  const health = await service.request('/-/healthz', { method: 'DELETE' });
  assert.equal(health.status, 405);
  assert.equal(health.headers.get('allow'), 'GET, HEAD');
  assert.equal((await service.request('/-/metrics', { method: 'POST' })).headers.get('allow'), 'GET, HEAD');
});

test('an unknown path, or one only middleware covers, stays a 404; known methods still answer', async () => {
  const service = app();
  const unknown = await service.request('/nothing', { method: 'DELETE' });
  assert.equal(unknown.status, 404);
  assert.equal(unknown.headers.get('allow'), null);
  assert.equal((await service.request('/orders/7/audit')).status, 404);
  assert.deepEqual(allowedMethods(service, '/orders/7/audit'), []);
  assert.equal((await service.request('/orders/7', { method: 'POST' })).status, 204);
  assert.equal((await service.request('/orders/7', { method: 'HEAD' })).status, 200);
});

// Found by Schemathesis (auth): the Allow header listed POST, PUT, PATCH, DELETE on every path, from
// a body limit registered for those methods on `*`, and PATCH, DELETE on /users/active, from
// /users/{userId}; OpenAPI reads /users/active as its own path.
test('Allow: middleware on every path and templated routes under a concrete one are not methods of it', async () => {
  const service = app();
  service.on(['POST', 'PUT', 'PATCH', 'DELETE'], '*', async (_c, next) => next());
  service.get('/orders/active', (c) => c.json([]));
  const active = await service.request('/orders/active', { method: 'OPTIONS' });
  assert.equal(active.status, 405);
  assert.equal(active.headers.get('allow'), 'GET, HEAD');
  assert.equal(
    (await service.request('/orders/7', { method: 'PUT' })).headers.get('allow'),
    'GET, HEAD, POST',
  );
});

test.run();

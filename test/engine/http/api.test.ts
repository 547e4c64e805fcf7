import { pino } from 'pino';
import * as assert from 'uvu/assert';
import { createEngineApi } from '../../../engine/http/app.ts';
import { createEngineMetrics } from '../../../engine/metrics/index.ts';
import { encodeKeyOnly } from '../../../engine/record/key.ts';
import { reflect } from '../../../engine/runtime/compile.ts';
import { configFor, SINGLE_VIEW } from '../../support/configs.ts';
import { create, runEvents } from '../../support/embedded.ts';
import { test } from '../../support/suite.ts';

const config = configFor(SINGLE_VIEW, (d) => {
  d.server = { apiPrefix: '/api/v1' };
});

async function api() {
  const run = await runEvents(
    config,
    [create('customers', { id: 1, name: 'Ada' }), create('orders', { id: 10, customerId: 1 })],
    { keep: true },
  );
  const { engine, store } = run.embedded;
  const app = createEngineApi({
    apiPrefix: '/api/v1',
    store,
    topology: engine.compiled.topology,
    reflection: reflect(engine.compiled),
    logger: pino({ level: 'silent' }),
    registry: run.metrics.registry,
    service: { name: 'streamfold', version: '0.0.0-test' },
    ready: () => engine.ready(),
  });
  return { app, run };
}

test('items: 200 with the aggregate, 400 bad key, 404 unknown head or key', async () => {
  const { app, run } = await api();
  const ok = await app.request(`/api/v1/heads/customers/items/${encodeKeyOnly('{"id":1}')}`);
  assert.is(ok.status, 200);
  assert.equal(await ok.json(), run.last.get('{"id":1}')?.after);

  // A key nested 5 000 deep overflowed canonicalJson's recursion (a 500) before keys were bounded.
  const deep = encodeKeyOnly(`{"a":${'['.repeat(5000)}${']'.repeat(5000)}}`);
  for (const bad of ['***', encodeKeyOnly('[1]'), encodeKeyOnly('not json'), 'a', deep]) {
    const res = await app.request(`/api/v1/heads/customers/items/${bad}`);
    assert.is(res.status, 400, bad);
    const body = (await res.json()) as Record<string, unknown>;
    assert.equal(Object.keys(body).sort(), ['error', 'message', 'statusCode']);
    assert.is(body.error, 'Bad Request');
  }
  assert.is(
    (await app.request(`/api/v1/heads/orders/items/${encodeKeyOnly('{"id":10}')}`)).status,
    404,
    'not a head',
  );
  assert.is((await app.request(`/api/v1/heads/nope/items/${encodeKeyOnly('{"id":1}')}`)).status, 404);
  const missing = await app.request(`/api/v1/heads/customers/items/${encodeKeyOnly('{"id":99}')}`);
  assert.is(missing.status, 404);
  assert.is(((await missing.json()) as { error: string }).error, 'Not Found');
  assert.is(
    (await app.request(`/heads/customers/items/${encodeKeyOnly('{"id":1}')}`)).status,
    404,
    'prefix required',
  );
  await run.embedded.stop();
});

test('reflection lists nodes, heads and readable edges', async () => {
  const { app, run } = await api();
  const res = await app.request('/api/v1/reflection/aggregation/graph');
  assert.is(res.status, 200);
  const body = (await res.json()) as {
    heads: string[];
    edges: { id: string; sentence: string }[];
    nodes: { id: string }[];
  };
  assert.equal(body.heads, ['customers']);
  assert.equal(
    body.nodes.map((n) => n.id),
    ['customers', 'orders', 'items'],
  );
  assert.is(body.edges.find((e) => e.id === 'customerOrders')?.sentence, 'customers.id = orders.customerId');
  await run.embedded.stop();
});

test('a known route with the wrong method: 405 with Allow, not 404', async () => {
  const { app, run } = await api();
  const item = await app.request(`/api/v1/heads/customers/items/${encodeKeyOnly('{"id":1}')}`, {
    method: 'POST',
  });
  assert.is(item.status, 405);
  assert.is(item.headers.get('allow'), 'GET, HEAD');
  assert.is(((await item.json()) as { error: string }).error, 'Method Not Allowed');
  assert.is((await app.request('/api/v1/reflection/aggregation/graph', { method: 'PUT' })).status, 405);
  assert.is((await app.request('/api/v1/nothing', { method: 'PUT' })).status, 404);
  await run.embedded.stop();
});

test('health, readiness and metrics', async () => {
  const { app, run } = await api();
  assert.is((await app.request('/-/healthz')).status, 200);
  const ready = await app.request('/-/ready');
  assert.is(ready.status, 200);
  assert.is(((await ready.json()) as { status: string }).status, 'OK');
  const metrics = await (await app.request('/-/metrics')).text();
  for (const name of [
    'streamfold_consumed_messages_total',
    'streamfold_invalid_messages_total',
    'streamfold_internal_update_compression_ratio',
    'streamfold_batch_duration_seconds_bucket',
    'streamfold_store_round_trips_total',
    'streamfold_produced_messages_total',
  ]) {
    assert.ok(metrics.includes(name), `metrics include ${name}`);
  }
  assert.match(metrics, /streamfold_consumed_messages_total\{node="customers"\} 1/);
  await run.embedded.stop();
  // Stopped: the consumers left their groups and the store is closed, so readiness fails.
  assert.is((await app.request('/-/ready')).status, 503);
});

test('process and runtime metrics carry the project prefix once', async () => {
  const metrics = await createEngineMetrics().registry.metrics();
  assert.match(metrics, /^streamfold_process_cpu_user_seconds_total \d/m);
  assert.match(metrics, /^streamfold_nodejs_eventloop_lag_seconds \d/m);
  assert.not.match(metrics, /process_process_/);
});

test('the OpenAPI document: the items route under the prefix with the heads, and reflection', async () => {
  const { app, run } = await api();
  const document = (await (await app.request('/documentation/json')).json()) as {
    paths: Record<string, { get: { parameters?: { name: string; schema: { enum?: string[] } }[] } }>;
  };
  assert.equal(Object.keys(document.paths).sort(), [
    '/api/v1/heads/{node}/items/{key}',
    '/api/v1/reflection/aggregation/graph',
  ]);
  const node = document.paths['/api/v1/heads/{node}/items/{key}']!.get.parameters![0]!;
  assert.equal(node.schema.enum, ['customers']);
  await run.embedded.stop();
});

test.run();

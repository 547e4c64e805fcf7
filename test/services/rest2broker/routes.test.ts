import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';
import pino from 'pino';
import { z } from 'zod';
import type { RunningServer } from '../../../services/kit/index.ts';
import {
  type Adapter,
  BadRequestError,
  createRest2Broker,
  KeyGeneratingAdapterFromBody,
  type Rest2Broker,
  type Rest2BrokerRoute,
} from '../../../services/rest2broker/index.ts';
import { type KafkaFixture, startKafka } from '../../support/kafka.ts';
import { test } from '../../support/suite.ts';
import { startTopicReader, type TopicReader } from './topic-reader.ts';

const TOPICS = { raw: 1, options: 3, events: 2, adapted: 1, validated: 1, checkup: 1 };
const silent = pino({ level: 'silent' });
const schemaFile = fileURLToPath(new URL('./order.schema.json', import.meta.url));

let kafka: KafkaFixture;
let reader: TopicReader;
let service: Rest2Broker;
let server: RunningServer;
let schemaServer: Server;
let schemaFetches = 0;
let base: string;

const failingAdapter = (error: Error): Adapter => ({
  adapt: async () => {
    throw error;
  },
});

function routes(): Rest2BrokerRoute[] {
  const t = (name: keyof typeof TOPICS) => kafka.topic(name);
  const schemaPort = (schemaServer.address() as AddressInfo).port;
  return [
    { method: 'POST', path: '/raw', broker: { topic: t('raw') } },
    {
      method: 'put',
      path: '/options/:id',
      broker: {
        topic: t('options'),
        key: (request) => `order-${request.params.id}`,
        partition: 2,
        headers: (request) => ({ source: 'test', tenant: request.query.tenant ?? 'none' }),
        timestamp: 1_700_000_000_000,
      },
      status: 202,
      response: { accepted: true },
      exposeKafkaHeaders: true,
    },
    {
      method: 'POST',
      path: '/override',
      broker: {
        topic: t('options'),
        partition: 0,
        key: Buffer.from([0, 1, 2]),
        value: (request) => request.body.toString('utf8').toUpperCase(),
      },
      response: 'queued',
    },
    {
      method: 'POST',
      path: '/constant-key',
      broker: { topic: t('options'), partition: 1, key: 'fixed', value: null },
    },
    { method: 'POST', path: '/events', adapter: new KeyGeneratingAdapterFromBody({ topic: t('events') }) },
    {
      method: 'POST',
      path: '/adapted/:kind',
      adapter: {
        adapt: async (request) => {
          if (request.params.kind === 'reject') throw new BadRequestError(422, 'kind "reject" is refused');
          return {
            record: { topic: t('adapted'), key: Buffer.from(request.params.kind!), value: request.body },
            response: { status: 201, body: { kind: request.params.kind! } },
          };
        },
      },
    },
    { method: 'POST', path: '/broken', adapter: failingAdapter(new Error('adapter exploded')) },
    {
      method: 'POST',
      path: '/broken-string',
      adapter: {
        adapt: async () => {
          throw 'adapter threw a string';
        },
      },
    },
    {
      method: 'POST',
      path: '/broken-key',
      broker: { topic: t('raw'), key: () => Promise.reject({ reason: 'no key' }) },
    },
    {
      method: 'POST',
      path: '/zod',
      schema: z.object({ orderId: z.string().min(1), quantity: z.number().int().positive() }),
      broker: { topic: t('validated'), key: (request) => (request.json() as { orderId: string }).orderId },
    },
    {
      method: 'POST',
      path: '/json-schema-file',
      jsonSchema: schemaFile,
      broker: { topic: t('validated'), key: (request) => (request.json() as { orderId: string }).orderId },
    },
    {
      method: 'POST',
      path: '/json-schema-url',
      jsonSchema: `http://127.0.0.1:${schemaPort}/order.schema.json`,
      broker: { topic: t('validated'), key: 'from-url' },
    },
    { method: 'POST', path: '/small', bodyLimit: 100, broker: { topic: t('raw') } },
  ];
}

test.before(async () => {
  kafka = await startKafka({ topics: TOPICS });
  schemaServer = createServer((_, res) => {
    schemaFetches++;
    res.setHeader('content-type', 'application/json');
    res.end(readFileSync(schemaFile));
  });
  await new Promise<void>((resolve) => schemaServer.listen(0, '127.0.0.1', resolve));
  service = createRest2Broker({
    brokers: kafka.brokers,
    kafkaProperties: kafka.properties,
    routes: routes(),
    checkUpTopic: kafka.topic('checkup'),
    service: { name: 'routes-test', version: '9.9.9' },
    logger: silent,
  });
  server = await service.listen({ hostname: '127.0.0.1', port: 0, handleSignals: false });
  base = `http://127.0.0.1:${server.port}`;
  reader = await startTopicReader(
    kafka,
    Object.fromEntries(Object.entries(TOPICS).map(([name, partitions]) => [kafka.topic(name), partitions])),
  );
});

test.after(async () => {
  await reader?.stop();
  await service?.close();
  schemaServer?.close();
  await kafka?.stop();
});

function post(
  path: string,
  body: RequestInit['body'],
  headers: Record<string, string> = {},
  method = 'POST',
) {
  return fetch(base + path, { method, body, headers, duplex: 'half' } as RequestInit);
}

const json = (value: unknown) => JSON.stringify(value);
const JSON_TYPE = { 'content-type': 'application/json' };

test('by default a route answers 204 with no body and produces the raw bytes unchanged, unkeyed', async () => {
  const bytes = Buffer.from([0xff, 0x00, 0xfe, 0x80, 0x41]);
  const response = await post('/raw', bytes, { 'content-type': 'application/octet-stream' });
  assert.equal(response.status, 204);
  assert.equal(await response.text(), '');
  assert.equal(response.headers.get('x-kafka-topic'), null);
  const [record] = await reader.waitFor(kafka.topic('raw'), 1);
  assert.deepEqual(record!.value, bytes);
  assert.equal(record!.key, null);
});

test('broker options: key from a path param, fixed partition, headers from the query, timestamp; x-kafka-* headers and a JSON response', async () => {
  const response = await post('/options/42?tenant=acme', 'payload', {}, 'PUT');
  assert.equal(response.status, 202);
  assert.match(response.headers.get('content-type') ?? '', /application\/json/);
  assert.deepEqual(await response.json(), { accepted: true });
  assert.equal(response.headers.get('x-kafka-topic'), kafka.topic('options'));
  assert.equal(response.headers.get('x-kafka-partition'), '2');
  const offset = Number(response.headers.get('x-kafka-offset'));
  assert.ok(Number.isInteger(offset) && offset >= 0);
  const records = await reader.waitFor(kafka.topic('options'), 1);
  const record = records.find((r) => r.key?.toString() === 'order-42')!;
  assert.ok(record, 'record keyed by the path param');
  assert.equal(record.partition, 2);
  assert.equal(record.offset, offset);
  assert.equal(record.value?.toString(), 'payload');
  assert.equal(record.timestamp, 1_700_000_000_000);
  const headers = Object.assign({}, ...(record.headers ?? [])) as Record<string, Buffer>;
  assert.equal(headers.source?.toString(), 'test');
  assert.equal(headers.tenant?.toString(), 'acme');
});

test('value override and a Buffer key; a string response is text/plain with status 200', async () => {
  const response = await post('/override', 'shout');
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /text\/plain/);
  assert.equal(await response.text(), 'queued');
  const records = await reader.waitFor(kafka.topic('options'), 2);
  const record = records.find((r) => r.partition === 0)!;
  assert.deepEqual(record.key, Buffer.from([0, 1, 2]));
  assert.equal(record.value?.toString(), 'SHOUT');
});

test('a constant string key and a null value (tombstone)', async () => {
  const response = await post('/constant-key', 'ignored');
  assert.equal(response.status, 204);
  const records = await reader.waitFor(kafka.topic('options'), 3);
  const record = records.find((r) => r.partition === 1)!;
  assert.equal(record.key?.toString(), 'fixed');
  assert.equal(record.value, null);
});

test('KeyGeneratingAdapterFromBody: answers {id} = SHA-256 hex of the body, keys the record with it, same body same key', async () => {
  const body = json({ event: 'signed-up', user: 7 });
  const expected = createHash('sha256').update(body).digest('hex');
  const first = await post('/events', body, JSON_TYPE);
  assert.equal(first.status, 200);
  assert.deepEqual(await first.json(), { id: expected });
  const second = await post('/events', body, JSON_TYPE);
  assert.deepEqual(await second.json(), { id: expected });
  const other = await post('/events', '', JSON_TYPE);
  const emptyId = createHash('sha256').update('').digest('hex');
  assert.deepEqual(await other.json(), { id: emptyId });
  const records = await reader.waitFor(kafka.topic('events'), 3);
  const sameBody = records.filter((r) => r.key?.toString() === expected);
  assert.equal(sameBody.length, 2);
  assert.equal(sameBody[0]!.partition, sameBody[1]!.partition, 'same key, same partition');
  assert.equal(sameBody[0]!.value?.toString(), body);
  // An empty value may come back as null or as an empty buffer, depending on the broker.
  assert.ok(records.some((r) => r.key?.toString() === emptyId && (r.value?.length ?? 0) === 0));
});

test('a custom adapter decides record and response; BadRequestError answers its status', async () => {
  const accepted = await post('/adapted/create', 'x');
  assert.equal(accepted.status, 201);
  assert.deepEqual(await accepted.json(), { kind: 'create' });
  const [record] = await reader.waitFor(kafka.topic('adapted'), 1);
  assert.equal(record!.key?.toString(), 'create');

  const refused = await post('/adapted/reject', 'x');
  assert.equal(refused.status, 422);
  assert.deepEqual(await refused.json(), {
    statusCode: 422,
    error: 'Unprocessable Entity',
    message: 'kind "reject" is refused',
  });
});

test('any other adapter error answers 500 with its message', async () => {
  const response = await post('/broken', 'x');
  assert.equal(response.status, 500);
  assert.deepEqual(await response.json(), {
    statusCode: 500,
    error: 'Internal Server Error',
    message: 'adapter exploded',
  });
});

test('a thrown non-Error (an adapter throwing a string, a key function rejecting with an object) answers the JSON 500', async () => {
  const thrown = await post('/broken-string', 'x');
  assert.equal(thrown.status, 500);
  assert.match(thrown.headers.get('content-type') ?? '', /application\/json/);
  assert.deepEqual(await thrown.json(), {
    statusCode: 500,
    error: 'Internal Server Error',
    message: 'adapter threw a string',
  });
  const rejected = await post('/broken-key', 'x');
  assert.equal(rejected.status, 500);
  assert.deepEqual(await rejected.json(), {
    statusCode: 500,
    error: 'Internal Server Error',
    message: '{"reason":"no key"}',
  });
});

for (const path of ['/zod', '/json-schema-file', '/json-schema-url']) {
  test(`${path}: a valid body is produced unchanged, keyed from the parsed body`, async () => {
    const before = reader.messages(kafka.topic('validated')).length;
    const body = `{ "orderId": "o-${path}",  "quantity": 3 }`;
    const response = await post(path, body, { 'content-type': 'application/json; charset=utf-8' });
    assert.equal(response.status, 204, await response.text());
    const records = await reader.waitFor(kafka.topic('validated'), before + 1);
    const record = records.at(-1)!;
    assert.equal(record.value?.toString(), body, 'raw body, whitespace kept');
    assert.equal(record.key?.toString(), path === '/json-schema-url' ? 'from-url' : `o-${path}`);
  });

  test(`${path}: an invalid body answers 400 listing every error, and nothing is produced`, async () => {
    const before = reader.messages(kafka.topic('validated')).length;
    const response = await post(path, json({ quantity: 0 }), JSON_TYPE);
    assert.equal(response.status, 400);
    const body = (await response.json()) as {
      statusCode: number;
      error: string;
      message: string;
      errors: unknown[];
    };
    assert.equal(body.statusCode, 400);
    assert.equal(body.error, 'Bad Request');
    assert.equal(body.errors.length, 2, JSON.stringify(body.errors));
    assert.match(body.message, /orderId/);
    assert.match(body.message, /quantity/);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(reader.messages(kafka.topic('validated')).length, before);
  });

  test(`${path}: 415 on a non-JSON content type, 400 on malformed JSON`, async () => {
    const wrongType = await post(path, json({ orderId: 'a', quantity: 1 }), { 'content-type': 'text/plain' });
    assert.equal(wrongType.status, 415);
    assert.equal(((await wrongType.json()) as { error: string }).error, 'Unsupported Media Type');
    const noType = await post(path, new Blob([json({ orderId: 'a', quantity: 1 })]));
    assert.equal(noType.status, 415);
    const malformed = await post(path, '{"orderId": ', JSON_TYPE);
    assert.equal(malformed.status, 400);
    assert.match(((await malformed.json()) as { message: string }).message, /not valid JSON/);
    const empty = await post(path, '', JSON_TYPE);
    assert.equal(empty.status, 400);
  });
}

test('JSON Schema from a URL is fetched once and its compiled validator cached', () => {
  assert.equal(schemaFetches, 1);
});

test('JSON Schema formats are checked (ajv-formats)', async () => {
  const response = await post(
    '/json-schema-file',
    json({ orderId: 'a', quantity: 1, email: 'not-an-email' }),
    JSON_TYPE,
  );
  assert.equal(response.status, 400);
  const body = (await response.json()) as { errors: Array<{ path: string }> };
  assert.deepEqual(
    body.errors.map((e) => e.path),
    ['/email'],
  );
});

test('body limit: 413 JSON over the limit (with and without content-length), accepted at the limit', async () => {
  const atLimit = await post('/small', 'a'.repeat(100));
  assert.equal(atLimit.status, 204);
  const over = await post('/small', 'a'.repeat(101));
  assert.equal(over.status, 413);
  assert.deepEqual(await over.json(), {
    statusCode: 413,
    error: 'Payload Too Large',
    message: 'request body exceeds 100 bytes',
  });
  const chunks = new ReadableStream({
    start(controller) {
      for (let i = 0; i < 5; i++) controller.enqueue(new TextEncoder().encode('b'.repeat(30)));
      controller.close();
    },
  });
  const streamed = await post('/small', chunks);
  assert.equal(streamed.status, 413);
});

test('the service-wide default body limit is 1 MiB', async () => {
  const huge = await post('/raw', Buffer.alloc(1024 * 1024 + 1, 1));
  assert.equal(huge.status, 413);
});

test('health routes answer name and version; unknown routes 404 JSON; a wrong method 405', async () => {
  for (const path of ['/-/healthz', '/-/ready']) {
    const response = await fetch(base + path);
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { name: 'routes-test', version: '9.9.9', status: 'OK' });
  }
  const missing = await fetch(`${base}/nowhere`);
  assert.equal(missing.status, 404);
  assert.equal(((await missing.json()) as { error: string }).error, 'Not Found');
  const wrongMethod = await fetch(`${base}/raw`);
  assert.equal(wrongMethod.status, 405);
  assert.equal(wrongMethod.headers.get('allow'), 'POST');
  assert.equal(((await wrongMethod.json()) as { error: string }).error, 'Method Not Allowed');
});

test('check-up with a topic produces a probe record there and answers 200', async () => {
  const response = await fetch(`${base}/-/check-up`);
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), { name: 'routes-test', version: '9.9.9', status: 'OK' });
  const [probe] = await reader.waitFor(kafka.topic('checkup'), 1);
  const value = JSON.parse(probe!.value!.toString()) as Record<string, string>;
  assert.equal(value.name, 'routes-test');
  assert.ok(!Number.isNaN(Date.parse(value.checkedAt!)));
});

test('metrics count requests by route pattern', async () => {
  const text = await (await fetch(`${base}/-/metrics`)).text();
  assert.match(text, /http_requests_total\{method="PUT",route="\/options\/:id",status="202"\} 1/);
});

test('without checkUpTopic the check-up answers 200 without producing; name/version default to the nearest package.json', async () => {
  const plain = createRest2Broker({ brokers: '127.0.0.1:1', routes: [], logger: silent });
  const response = await plain.app.request('/-/check-up');
  assert.equal(response.status, 200);
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));
  assert.deepEqual(await response.json(), { name: pkg.name, version: pkg.version, status: 'OK' });
  await plain.close();
});

test('healthRoutes replaces all three health routes', async () => {
  const custom = new Hono().get('/-/healthz', (c) => c.text('custom'));
  const replaced = createRest2Broker({
    brokers: '127.0.0.1:1',
    routes: [],
    logger: silent,
    healthRoutes: custom,
    checkUpTopic: 'never',
  });
  assert.equal(await (await replaced.app.request('/-/healthz')).text(), 'custom');
  assert.equal((await replaced.app.request('/-/ready')).status, 404);
  assert.equal((await replaced.app.request('/-/check-up')).status, 404);
  await replaced.close();
});

test('configuration errors: both schema kinds on one route; an unreadable JSON Schema fails listen()', async () => {
  assert.throws(
    () =>
      createRest2Broker({
        brokers: '127.0.0.1:1',
        logger: silent,
        routes: [
          {
            method: 'POST',
            path: '/x',
            schema: z.object({}),
            jsonSchema: schemaFile,
            broker: { topic: 'x' },
          },
        ],
      }),
    /route POST \/x: give either "schema" \(zod\) or "jsonSchema", not both/,
  );
  const missing = createRest2Broker({
    brokers: '127.0.0.1:1',
    logger: silent,
    routes: [{ method: 'POST', path: '/x', jsonSchema: '/nonexistent/schema.json', broker: { topic: 'x' } }],
  });
  await assert.rejects(
    missing.listen({ port: 0, handleSignals: false }),
    /cannot load JSON Schema \/nonexistent\/schema\.json/,
  );
  const response = await missing.app.request('/x', { method: 'POST', body: '{}', headers: JSON_TYPE });
  assert.equal(response.status, 500);
  assert.match(((await response.json()) as { message: string }).message, /cannot load JSON Schema/);
});

test.run();

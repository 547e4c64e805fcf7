import * as assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { parseChangeEvent } from '../../../engine/change-event/parse.ts';
import type { RunningServer } from '../../../services/kit/index.ts';
import { readConfig } from '../../../services/provider/config.ts';
import { startProviderService } from '../../../services/provider/start.ts';
import { type KafkaFixture, startKafka } from '../../support/kafka.ts';
import { type MongoFixture, startMongo } from '../../support/mongo.ts';
import { test } from '../../support/suite.ts';
import { startTopicReader, type TopicReader } from '../rest2broker/topic-reader.ts';
import { CREDENTIALS, provider, SECRET_MARK } from './bodies.ts';
import { startUserinfoStandIn, type UserinfoStandIn } from './userinfo-stand-in.ts';

const HEADERS = { cookie: 'sid=manager', 'content-type': 'application/json' };

let kafka: KafkaFixture;
let mongo: MongoFixture;
let auth: UserinfoStandIn;
let reader: TopicReader;
let server: RunningServer;
let topic: string;
let base: string;

test.before(async () => {
  [kafka, mongo] = await Promise.all([startKafka({ topics: { providers: 1 } }), startMongo()]);
  topic = kafka.topic('providers');
  auth = await startUserinfoStandIn({ manager: { id: 'ada', groups: ['access_token_manager'] } });
  const { 'bootstrap.servers': brokers, ...properties } = kafka.properties;
  const config = readConfig({
    HTTP_PORT: '0',
    MONGODB_URL: mongo.url,
    PROVIDERS_DATABASE: mongo.database,
    PROVIDERS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    AUTH_SERVICE_URL: auth.url,
    PROVIDERS_CHANGES_TOPIC: topic,
    KAFKA_BROKERS: brokers!,
    KAFKA_PROPERTIES: JSON.stringify(properties),
    // A fresh Mokapi connection may need several socket timeouts (3 s each) on a loaded machine.
    KAFKA_ACK_TIMEOUT_MS: '60000',
  });
  server = await startProviderService(config, { logger: pino({ level: 'silent' }), handleSignals: false });
  base = `http://127.0.0.1:${server.port}/api/backend/tenants/acme/providers`;
  reader = await startTopicReader(kafka, { [topic]: 1 });
});

test.after(async () => {
  await server?.close();
  await reader?.stop();
  await auth?.stop();
  await Promise.all([kafka?.stop(), mongo?.stop()]);
});

test('create, update, delete: one change event each, acknowledged before the answer, no secret', async () => {
  const body = provider('vault-1', 'vault', {
    proxy: { url: 'http://proxy:3128', password: `${SECRET_MARK}proxy` },
    credentials: CREDENTIALS.m2m,
  });
  const created = await fetch(base, { method: 'POST', headers: HEADERS, body: JSON.stringify(body) });
  assert.equal(created.status, 201);
  const view = await created.json();
  const patched = await fetch(`${base}/vault-1`, {
    method: 'PATCH',
    headers: HEADERS,
    body: JSON.stringify({ label: 'renamed', credentials: CREDENTIALS.token }),
  });
  assert.equal(patched.status, 200);
  const patchedView = await patched.json();
  assert.equal((await fetch(`${base}/vault-1`, { method: 'DELETE', headers: HEADERS })).status, 204);
  assert.equal(
    (
      await fetch(base, {
        method: 'POST',
        headers: HEADERS,
        body: JSON.stringify(provider('vault-1', 'gitlab')),
      })
    ).status,
    201,
  );

  const messages = await reader.waitFor(topic, 4);
  for (const message of messages) assert.ok(!String(message.value).includes(SECRET_MARK));
  const events = messages.map((message) => {
    const parsed = parseChangeEvent(message);
    assert.equal(parsed.kind, 'change', JSON.stringify(parsed));
    return parsed.kind === 'change' ? parsed.event : undefined;
  });
  assert.deepEqual(
    events.map((e) => e!.op),
    ['c', 'u', 'd', 'c'],
  );
  for (const event of events) assert.deepEqual(event!.key, { tenantId: 'acme', providerId: 'vault-1' });
  assert.deepEqual(events[0]!.after, view);
  assert.equal(events[0]!.before, null);
  assert.deepEqual(events[1]!.before, view);
  assert.deepEqual(events[1]!.after, patchedView);
  assert.deepEqual(events[2]!.before, patchedView);
  assert.equal(events[2]!.after, null);
  assert.deepEqual((events[0]!.after as { credentials: unknown }).credentials, { type: 'm2m' });
  assert.deepEqual((events[0]!.after as { proxy: unknown }).proxy, { url: 'http://proxy:3128' });
});

test('a failed request produces nothing', async () => {
  const before = reader.messages(topic).length;
  const duplicate = await fetch(base, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify(provider('vault-1')),
  });
  assert.equal(duplicate.status, 409);
  const invalid = await fetch(`${base}/vault-1`, {
    method: 'PATCH',
    headers: HEADERS,
    body: '{"type":"svn"}',
  });
  assert.equal(invalid.status, 400);
  // A marker change after them: once it arrives, anything the failed requests produced would have too.
  const marker = await fetch(`${base}/vault-1`, {
    method: 'PATCH',
    headers: HEADERS,
    body: '{"label":"marker"}',
  });
  assert.equal(marker.status, 200);
  const messages = await reader.waitFor(topic, before + 1);
  assert.equal(messages.length, before + 1);
});

test('a broker that does not acknowledge: 503, the change itself stays stored', async () => {
  const unreachable = await startProviderService(
    readConfig({
      HTTP_PORT: '0',
      MONGODB_URL: mongo.url,
      PROVIDERS_DATABASE: mongo.database,
      PROVIDERS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      AUTH_SERVICE_URL: auth.url,
      PROVIDERS_CHANGES_TOPIC: topic,
      KAFKA_BROKERS: '127.0.0.1:1',
      KAFKA_ACK_TIMEOUT_MS: '1000',
    }),
    { logger: pino({ level: 'silent' }), handleSignals: false },
  );
  try {
    const url = `http://127.0.0.1:${unreachable.port}/api/backend/tenants/acme/providers`;
    const answer = await fetch(url, {
      method: 'POST',
      headers: HEADERS,
      body: JSON.stringify(provider('unsent')),
    });
    assert.equal(answer.status, 503);
    assert.match(((await answer.json()) as { message: string }).message, /stored but not acknowledged/);
    assert.equal((await fetch(`${url}/unsent`, { headers: HEADERS })).status, 200);
  } finally {
    await unreachable.close();
  }
});

test.run();

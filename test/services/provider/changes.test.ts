import * as assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { parseChangeEvent } from '../../../engine/change-event/parse.ts';
import { readConfig } from '../../../services/provider/config.ts';
import { type ProviderServer, startProviderService } from '../../../services/provider/start.ts';
import { type KafkaFixture, startKafka } from '../../support/kafka.ts';
import { type MongoFixture, startMongo } from '../../support/mongo.ts';
import { test } from '../../support/suite.ts';
import { startTopicReader, type TopicReader } from '../rest2broker/topic-reader.ts';
import { CREDENTIALS, provider, SECRET_MARK } from './bodies.ts';
import { capturingLogger } from './capturing-logger.ts';
import { startUserinfoStandIn, type UserinfoStandIn } from './userinfo-stand-in.ts';

const HEADERS = { cookie: 'sid=manager', 'content-type': 'application/json' };
const KEY = randomBytes(32).toString('base64');

let kafka: KafkaFixture;
let mongo: MongoFixture;
let auth: UserinfoStandIn;
let reader: TopicReader;
let server: ProviderServer;
let topic: string;
let base: string;
let db: MongoClient;
/** The log lines of every service of this suite, to grep for secrets at the end. */
const logLines: string[] = [];

/** A service on the suite's MongoDB and topic; `KAFKA_BROKERS` decides which broker it reaches. */
function startService(overrides: Record<string, string> = {}) {
  const { 'bootstrap.servers': brokers, ...properties } = kafka.properties;
  const config = readConfig({
    HTTP_PORT: '0',
    MONGODB_URL: mongo.url,
    PROVIDERS_DATABASE: mongo.database,
    PROVIDERS_ENCRYPTION_KEY: KEY,
    AUTH_SERVICE_URL: auth.url,
    PROVIDERS_CHANGES_TOPIC: topic,
    KAFKA_BROKERS: brokers!,
    KAFKA_PROPERTIES: JSON.stringify(properties),
    // Bounds a lost acknowledgement generously: both cores are busy while the suite runs.
    KAFKA_ACK_TIMEOUT_MS: '60000',
    // Rounds run when a test asks (resendPending), not on their own in the middle of a test.
    PROVIDERS_RESEND_SECONDS: '0',
    ...overrides,
  });
  return startProviderService(config, { logger: capturingLogger(logLines), handleSignals: false });
}

/** A service whose broker never answers: every change stays pending. */
const startServiceWithoutBroker = () =>
  startService({ KAFKA_BROKERS: '127.0.0.1:1', KAFKA_PROPERTIES: '{}', KAFKA_ACK_TIMEOUT_MS: '1000' });

const stored = (providerId: string) =>
  db.db(mongo.database).collection('providers').findOne({ tenantId: 'acme', providerId });

function send(url: string, method: string, body?: unknown) {
  return fetch(url, {
    method,
    headers: HEADERS,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** The ops of the change events of one provider, in topic order. */
function opsOf(providerId: string): string[] {
  return reader
    .messages(topic)
    .map((message) => parseChangeEvent(message))
    .flatMap((parsed) =>
      parsed.kind === 'change' && parsed.event.key.providerId === providerId ? [parsed.event.op] : [],
    );
}

test.before(async () => {
  [kafka, mongo] = await Promise.all([startKafka({ topics: { providers: 1 } }), startMongo()]);
  topic = kafka.topic('providers');
  auth = await startUserinfoStandIn({ manager: { id: 'ada', groups: ['access_token_manager'] } });
  db = new MongoClient(mongo.url);
  server = await startService();
  base = `http://127.0.0.1:${server.port}/api/backend/tenants/acme/providers`;
  reader = await startTopicReader(kafka, { [topic]: 1 });
});

test.after(async () => {
  await server?.close();
  await reader?.stop();
  await auth?.stop();
  await db?.close();
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

test('an acknowledged change leaves no pending marker on its record', async () => {
  const document = (await stored('vault-1'))!;
  assert.equal(document.pendingChanges, undefined);
  assert.equal(document.pendingSince, undefined);
});

test('broker down: 503, each change kept pending on its record in order; the next round produces them all in order', async () => {
  const down = await startServiceWithoutBroker();
  try {
    const url = `http://127.0.0.1:${down.port}/api/backend/tenants/acme/providers`;
    const body = provider('outbox-1', 'gitlab', { credentials: CREDENTIALS.token });
    const created = await send(url, 'POST', body);
    assert.equal(created.status, 503);
    assert.match(((await created.json()) as { message: string }).message, /stored .* will be re-sent/);
    assert.equal((await send(`${url}/outbox-1`, 'GET')).status, 200, 'the change itself is stored');
    assert.equal((await send(`${url}/outbox-1`, 'PATCH', { label: 'while down' })).status, 503);
    assert.equal((await send(`${url}/outbox-1`, 'DELETE')).status, 503);
    assert.equal((await send(`${url}/outbox-1`, 'GET')).status, 404, 'deleted, though its record waits');
    const listed = (await (await send(url, 'GET')).json()) as { providerId: string }[];
    assert.ok(!listed.some((p) => p.providerId === 'outbox-1'));
    assert.equal((await send(url, 'POST', body)).status, 503, 'created again over the waiting record');

    const document = (await stored('outbox-1'))!;
    assert.deepEqual(
      document.pendingChanges.map((change: { op: string }) => change.op),
      ['c', 'u', 'd', 'c'],
    );
    assert.ok(document.pendingSince instanceof Date);
    assert.ok(!JSON.stringify(document.pendingChanges).includes(SECRET_MARK));
    assert.deepEqual(await down.resendPending(), { delivered: 0, left: 1 }, 'still no broker');
    const metrics = await (await fetch(`http://127.0.0.1:${down.port}/-/metrics`)).text();
    assert.match(metrics, /streamfold_provider_change_events_total\{result="failed"\} 5\n/);
  } finally {
    await down.close();
  }

  const before = reader.messages(topic).length;
  assert.deepEqual(await server.resendPending(), { delivered: 1, left: 0 });
  await reader.waitFor(topic, before + 4);
  assert.deepEqual(opsOf('outbox-1'), ['c', 'u', 'd', 'c']);
  const [, updated, deleted] = reader
    .messages(topic)
    .slice(before)
    .map((m) => parseChangeEvent(m));
  assert.equal(updated?.kind === 'change' && updated.event.after?.label, 'while down');
  assert.equal(deleted?.kind === 'change' && deleted.event.after, null);
  assert.equal((await stored('outbox-1'))!.pendingChanges, undefined, 'settled');
  assert.deepEqual(await server.resendPending(), { delivered: 0, left: 0 });
  const metrics = await (await fetch(`http://127.0.0.1:${server.port}/-/metrics`)).text();
  const acknowledged = /streamfold_provider_change_events_total\{result="acknowledged"\} (\d+)/.exec(metrics);
  assert.equal(Number(acknowledged?.[1]), reader.messages(topic).length, 'one count per event on the topic');
});

test('a deleted provider whose event was pending disappears once it is acknowledged', async () => {
  const down = await startServiceWithoutBroker();
  try {
    const url = `http://127.0.0.1:${down.port}/api/backend/tenants/acme/providers`;
    assert.equal((await send(url, 'POST', provider('outbox-2'))).status, 503);
    assert.equal((await send(`${url}/outbox-2`, 'DELETE')).status, 503);
  } finally {
    await down.close();
  }
  assert.equal((await stored('outbox-2'))!.deleted, true);
  const before = reader.messages(topic).length;
  await server.resendPending();
  await reader.waitFor(topic, before + 2);
  assert.deepEqual(opsOf('outbox-2'), ['c', 'd']);
  assert.equal(await stored('outbox-2'), null);
});

test('concurrent POSTs of an id whose deletion is pending: exactly one takes the record over', async () => {
  const down = await startServiceWithoutBroker();
  try {
    const url = `http://127.0.0.1:${down.port}/api/backend/tenants/acme/providers`;
    assert.equal((await send(url, 'POST', provider('outbox-race'))).status, 503);
    assert.equal((await send(`${url}/outbox-race`, 'DELETE')).status, 503);
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        send(url, 'POST', provider('outbox-race', 'gitlab', { label: `attempt ${i}` })),
      ),
    );
    // 503: stored, its event pending (no broker); 409: another attempt took the record.
    assert.deepEqual(answers.map((a) => a.status).sort(), [409, 409, 409, 409, 409, 503]);
  } finally {
    await down.close();
  }
  const document = (await stored('outbox-race'))!;
  assert.equal(document.deleted, undefined);
  assert.deepEqual(
    document.pendingChanges.map((change: { op: string }) => change.op),
    ['c', 'd', 'c'],
  );
  const before = reader.messages(topic).length;
  await server.resendPending();
  await reader.waitFor(topic, before + 3);
  assert.deepEqual(opsOf('outbox-race'), ['c', 'd', 'c']);
});

test('the next write of a provider delivers the changes its failed predecessors left, first', async () => {
  const down = await startServiceWithoutBroker();
  try {
    const url = `http://127.0.0.1:${down.port}/api/backend/tenants/acme/providers`;
    assert.equal((await send(url, 'POST', provider('outbox-3'))).status, 503);
  } finally {
    await down.close();
  }
  const before = reader.messages(topic).length;
  const patched = await send(`${base}/outbox-3`, 'PATCH', { label: 'broker back' });
  assert.equal(patched.status, 200);
  await reader.waitFor(topic, before + 2);
  assert.deepEqual(opsOf('outbox-3'), ['c', 'u']);
  assert.equal((await stored('outbox-3'))!.pendingChanges, undefined);
});

/** The change events of one provider in topic order. */
function eventsOf(providerId: string) {
  return reader
    .messages(topic)
    .map((message) => parseChangeEvent(message))
    .flatMap((parsed) =>
      parsed.kind === 'change' && parsed.event.key.providerId === providerId ? [parsed.event] : [],
    );
}

test('concurrent writes of one provider: each applied change on the topic once, in the order stored', async () => {
  assert.equal((await send(base, 'POST', provider('ordered'))).status, 201);
  const answers = await Promise.all(
    Array.from({ length: 5 }, (_, i) => send(`${base}/ordered`, 'PATCH', { label: `v${i}` })),
  );
  assert.ok(answers.every((a) => a.status === 200 || a.status === 409));
  const applied = answers.filter((a) => a.status === 200).length;
  assert.ok(applied >= 1);
  // Every answer came after its change was acknowledged: the reader only has to catch up.
  const deadline = Date.now() + 30_000;
  while (eventsOf('ordered').length < 1 + applied && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const final = await (await send(`${base}/ordered`, 'GET')).json();
  // A marker written after them: once it is on the topic, any late duplicate would be too.
  assert.equal((await send(`${base}/ordered`, 'PATCH', { label: 'marker' })).status, 200);
  while (eventsOf('ordered').at(-1)?.after?.label !== 'marker' && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const events = eventsOf('ordered');
  assert.equal(events.pop()!.after!.label, 'marker');
  assert.equal(events.length, 1 + applied);
  for (let i = 1; i < events.length; i++) {
    assert.deepEqual(events[i]!.before, events[i - 1]!.after, `event ${i} follows event ${i - 1}`);
  }
  assert.deepEqual(events.at(-1)!.after, final);
});

test('no change event and no log line holds a secret', () => {
  assert.ok(logLines.length > 10);
  for (const line of logLines) assert.ok(!line.includes(SECRET_MARK), line);
  for (const message of reader.messages(topic)) assert.ok(!String(message.value).includes(SECRET_MARK));
});

test.run();

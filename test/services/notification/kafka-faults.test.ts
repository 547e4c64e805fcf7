/**
 * The Kafka intake under faults: a channel service or MongoDB down makes the event wait (retried
 * with backoff, its offset not committed) while HTTP keeps serving; after recovery each event is
 * sent exactly once. And concurrent `/send` requests with one Idempotency-Key send once.
 */
import * as assert from 'node:assert/strict';
import { type Db, MongoClient } from 'mongodb';
import { createKafkaBroker } from '../../../operators/broker/kafka/index.ts';
import type { BrokerProducer } from '../../../operators/broker/types.ts';
import { type HttpSink, startHttpSink } from '../../support/http-sink.ts';
import { type KafkaFixture, startKafka } from '../../support/kafka.ts';
import { type MongoFixture, startMongo } from '../../support/mongo.ts';
import { type SmtpSink, startSmtpSink } from '../../support/smtp-sink.ts';
import { test } from '../../support/suite.ts';
import { startTcpProxy, type TcpProxy } from '../../support/tcp-proxy.ts';
import { until } from '../../support/until.ts';
import { type NotificationService, startService } from './service-fixture.ts';

/** How long a wait for a condition may take before the test fails. */
const WAIT_MS = 30_000;

let kafka: KafkaFixture;
let mongo: MongoFixture;
let mongoProxy: TcpProxy;
let smtp: SmtpSink;
let sms: HttpSink;
let client: MongoClient;
let db: Db;
let producer: BrokerProducer;
let server: NotificationService;
let env: Record<string, string>;

const send = (event: unknown) =>
  producer.produce({ topic: kafka.topic('events'), key: null, value: Buffer.from(JSON.stringify(event)) });

const statusOf = async (id: string) => (await db.collection('events').findOne({ _id: id as never }))?.status;
const mailsTo = (id: string) => smtp.messages.filter((m) => m.data.includes(`Subject: Therapy ${id}`)).length;
const textsOf = (id: string, from = 0) =>
  sms.calls.slice(from).filter((c) => (c.body as { body: string }).body === `Therapy ${id}`).length;

async function startNotification() {
  server = await startService(env);
  // A new group starts at the end of the topic: produce only once the group has its partition.
  await server.kafka?.assigned;
}

test.before(async () => {
  [kafka, mongo, smtp, sms] = await Promise.all([
    startKafka({ topics: { events: 1, errors: 1 } }),
    startMongo(),
    startSmtpSink(),
    startHttpSink(),
  ]);
  mongoProxy = await startTcpProxy(Number(new URL(mongo.url).port));
  client = await MongoClient.connect(mongo.url);
  db = client.db(mongo.database);
  await db.collection('users').insertOne({
    _id: 'ada' as never,
    name: 'Ada',
    emailAddress: 'ada@example.com',
    phoneNumber: '+391',
    groups: ['patients'],
  });
  await db.collection('message_templates').insertOne({
    name: 'therapy',
    emailTitle: 'Therapy {{data.planName}}',
    emailMessage: 'for {{user.name}}',
    smsMessage: 'Therapy {{data.planName}}',
  });
  await db.collection('notifications_settings').insertOne({
    _id: 's1' as never,
    eventName: 'TMM/TherapyCreated/v1',
    templateName: 'therapy',
    group: 'patients',
    channels: ['email', 'sms'],
  });
  const proxied = new URL(mongo.url);
  proxied.port = String(mongoProxy.port);
  const { 'bootstrap.servers': brokers, ...properties } = kafka.properties;
  env = {
    MONGODB_URL: proxied.href,
    MONGODB_DATABASE: mongo.database,
    MONGODB_TIMEOUT_MS: '500',
    SMTP_URL: smtp.url,
    SMS_SERVICE_URL: sms.url,
    CHANNEL_RETRIES: '0',
    KAFKA_BROKERS: brokers as string,
    KAFKA_PROPERTIES: JSON.stringify(properties),
    KAFKA_EVENTS_TOPIC_NAME: kafka.topic('events'),
    KAFKA_ERRORS_TOPIC_NAME: kafka.topic('errors'),
    KAFKA_CONSUMER_GROUP: 'notification-faults',
  };
  await startNotification();
  producer = createKafkaBroker({ properties: kafka.properties }).producer();
  await producer.connect();
});

test.after(async () => {
  await server?.close();
  await producer?.disconnect();
  await client?.close();
  await mongoProxy?.close();
  await Promise.all([kafka?.stop(), mongo?.stop(), smtp?.stop(), sms?.stop()]);
});

const therapy = (id: string) => ({
  id,
  name: 'TMM/TherapyCreated/v1',
  payload: {
    planName: id,
    patientId: 'ada',
    startDate: '2020-01-01T00:00:00Z',
    endDate: '2020-01-02T00:00:00Z',
  },
});

test('the SMS service down: the event is retried with backoff, uncommitted (a restart reads it again), HTTP serves; once back, email and SMS are sent exactly once', async () => {
  sms.failWith(503, 1_000_000);
  const calls = sms.calls.length;
  await send(therapy('t-1'));
  await until('the SMS tried three times', () => sms.calls.length - calls >= 3, WAIT_MS);
  assert.equal(await statusOf('t-1'), 'RECEIVED', 'not processed while the SMS service is down');
  assert.equal(mailsTo('t-1'), 1, 'the email went out once, and is not resent by the retries');
  const health = await fetch(`${server.base}/-/healthz`);
  assert.equal(health.status, 200, 'HTTP keeps serving');
  const direct = await server.post('/send', {
    channels: ['email'],
    recipients: ['ada'],
    messageTitle: 'Direct',
    messageContent: 'by HTTP',
  });
  assert.deepEqual(await direct.json(), { failures: [] });
  // A restart while the channel is down: the offset was never committed, the event is read again.
  await server.close();
  const beforeRestart = sms.calls.length;
  await startNotification();
  await until('the event read again after the restart', () => sms.calls.length > beforeRestart, WAIT_MS);
  const recovered = sms.calls.length;
  sms.failWith(200, 0);
  await until('the event processed', async () => (await statusOf('t-1')) === 'PROCESSED', WAIT_MS);
  assert.equal(textsOf('t-1', recovered), 1, 'the SMS once the service is back');
  assert.equal(mailsTo('t-1'), 1, 'still one email');
  const [notification] = await db.collection('notifications').find({ 'event.id': 't-1' }).toArray();
  assert.deepEqual(
    ((notification?.messages ?? []) as { channel: string; status: string }[])
      .map((m) => [m.channel, m.status])
      .sort(),
    [
      ['email', 'SUCCESS'],
      ['sms', 'SUCCESS'],
    ],
  );
});

test('MongoDB down: the event waits, HTTP answers (ready: 503), and once MongoDB is back it is sent exactly once', async () => {
  await mongoProxy.cut();
  await send(therapy('t-2'));
  await until(
    'readiness to say MongoDB is down',
    async () => (await fetch(`${server.base}/-/ready`)).status === 503,
    WAIT_MS,
  );
  assert.equal((await fetch(`${server.base}/-/healthz`)).status, 200);
  assert.equal(mailsTo('t-2'), 0);
  await mongoProxy.restore();
  await until('the event processed', async () => (await statusOf('t-2')) === 'PROCESSED', WAIT_MS);
  assert.equal(mailsTo('t-2'), 1);
  assert.equal(textsOf('t-2'), 1);
});

test('concurrent /send requests with one Idempotency-Key send once', async () => {
  const before = smtp.messages.length;
  const sendOnce = () =>
    fetch(`${server.base}/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'same-key' },
      body: JSON.stringify({
        channels: ['email'],
        recipients: ['ada'],
        messageTitle: 'Once',
        messageContent: 'x',
      }),
    });
  const statuses = (await Promise.all(Array.from({ length: 5 }, sendOnce))).map((a) => a.status).sort();
  assert.ok(statuses.includes(200), String(statuses));
  assert.ok(
    statuses.every((s) => s === 200 || s === 409),
    `the others are still sending (409) or answered the stored answer: ${statuses}`,
  );
  assert.deepEqual(await (await sendOnce()).json(), { failures: [] }, 'the stored answer');
  assert.equal(smtp.messages.length - before, 1, 'one email');
});

test.run();
